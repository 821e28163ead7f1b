package wire_test

import (
	"bytes"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/wiremessage"

	"github.com/decongestant/decongestant/proxy/wire"
)

func Example() {
	// A find as a driver sends it with readPreference secondaryPreferred.
	body, _ := bson.Marshal(bson.D{
		{Key: "find", Value: "orders"},
		{Key: "filter", Value: bson.D{{Key: "status", Value: "open"}}},
		{Key: "$readPreference", Value: bson.D{{Key: "mode", Value: "secondaryPreferred"}, {Key: "maxStalenessSeconds", Value: 90}}},
		{Key: "$db", Value: "shop"},
	})
	conn := bytes.NewReader(wire.AppendMsg(nil, 1, 0, 0, body))

	msg, err := wire.ReadMessage(conn, wire.MaxMessageSize)
	if err != nil {
		fmt.Println(err)
		return
	}
	m, err := wire.Parse(msg)
	if err != nil {
		fmt.Println(err)
		return
	}
	c, err := wire.Classify(&m)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c.Kind, c.Command, c.Database+"."+c.Collection, c.ReadPref.Mode, c.ReadPref.MaxStaleness)

	// The proxy forwards the same bytes under its own request id.
	_ = wire.RewriteIDs(msg, 1000, 0)
	fmt.Println(wiremessage.IsMsgMoreToCome(msg), len(msg) == int(m.Header.Length))
	// Output:
	// read find shop.orders secondaryPreferred 1m30s
	// false true
}
