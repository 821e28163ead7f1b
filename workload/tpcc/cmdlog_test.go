package tpcc

import (
	"bytes"
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/event"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// loggedCommand is one command a monitored client sent.
type loggedCommand struct {
	Name, DB string
	Command  bson.Raw
}

// commandLog records the commands a client starts, so a test can assert
// what a transaction sent (its read concern, its filters' plans).
type commandLog struct {
	mu   sync.Mutex
	cmds []loggedCommand
}

func (l *commandLog) started(_ context.Context, e *event.CommandStartedEvent) {
	l.mu.Lock()
	defer l.mu.Unlock()
	// The event's buffer is reused after the callback returns.
	l.cmds = append(l.cmds, loggedCommand{Name: e.CommandName, DB: e.DatabaseName, Command: slices.Clone(e.Command)})
}

// take returns the commands logged since the last take and forgets them.
func (l *commandLog) take() []loggedCommand {
	l.mu.Lock()
	defer l.mu.Unlock()
	c := l.cmds
	l.cmds = nil
	return c
}

// monitoredClient connects to uri with a command monitor; opts, if given,
// add client options (read concern, …). It is disconnected at cleanup.
func monitoredClient(t *testing.T, uri string, opts ...*options.ClientOptions) (*mongo.Client, *commandLog) {
	t.Helper()
	log := &commandLog{}
	o := options.Client().ApplyURI(uri).SetMonitor(&event.CommandMonitor{Started: log.started})
	client, err := mongo.Connect(append([]*options.ClientOptions{o}, opts...)...)
	if err != nil {
		t.Fatalf("connect %s: %v", uri, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		client.Disconnect(ctx)
	})
	return client, log
}

// sessionFields are the fields of a sent command that belong to its session
// or transaction, not to the query; explain refuses some of them.
var sessionFields = map[string]bool{"lsid": true, "txnNumber": true, "startTransaction": true, "autocommit": true,
	"$clusterTime": true, "readConcern": true, "writeConcern": true, "$db": true, "$readPreference": true,
	"apiVersion": true, "apiStrict": true, "apiDeprecationErrors": true}

// explainable turns a logged command into the commands to explain: a read
// or a write with a filter, one statement each, without its session fields.
// Inserts, commits and cursor traffic have no plan and give nothing, nor
// does an aggregation with a $lookup (explain shows only its outer plan).
func explainable(c loggedCommand) []bson.D {
	switch c.Name {
	case "find", "findAndModify", "count", "aggregate", "update", "delete":
	default:
		return nil
	}
	elems, err := c.Command.Elements()
	if err != nil {
		return nil
	}
	var base bson.D
	var stmts []bson.RawValue
	stmtKey := map[string]string{"update": "updates", "delete": "deletes"}[c.Name]
	for _, e := range elems {
		k := e.Key()
		switch {
		case sessionFields[k]:
		case k == stmtKey:
			vals, _ := e.Value().Array().Values()
			stmts = vals
		default:
			if k == "pipeline" && bytes.Contains(e.Value().Value, []byte("$lookup")) {
				return nil
			}
			base = append(base, bson.E{Key: k, Value: e.Value()})
		}
	}
	if stmtKey == "" {
		return []bson.D{base}
	}
	out := make([]bson.D, 0, len(stmts))
	for _, s := range stmts {
		out = append(out, append(slices.Clone(base), bson.E{Key: stmtKey, Value: bson.A{s}}))
	}
	return out
}

// collScans explains cmd (verbosity queryPlanner) and returns the stages of
// its winning plan that scan a whole collection.
func collScans(ctx context.Context, db *mongo.Database, cmd bson.D) (int, bson.M, error) {
	var res bson.M
	err := db.RunCommand(ctx, bson.D{{Key: "explain", Value: cmd}, {Key: "verbosity", Value: "queryPlanner"}}).Decode(&res)
	if err != nil {
		return 0, nil, err
	}
	return countCollScans(res), res, nil
}

// countCollScans counts the COLLSCAN stages in an explain output, outside
// rejected plans.
func countCollScans(v any) int {
	n := 0
	switch x := v.(type) {
	case bson.M:
		for k, e := range x {
			if k == "rejectedPlans" {
				continue
			}
			if k == "stage" && e == "COLLSCAN" {
				n++
			}
			n += countCollScans(e)
		}
	case bson.D:
		m := bson.M{}
		for _, e := range x {
			m[e.Key] = e.Value
		}
		n += countCollScans(m)
	case bson.A:
		for _, e := range x {
			n += countCollScans(e)
		}
	}
	return n
}

// assertNoCollScan explains every read and filtered write among cmds and
// fails the test for each whose plan scans a whole collection: the indexes
// in place serve every query that was sent. It returns how many it
// explained, so a caller can tell the log was not empty.
func assertNoCollScan(t *testing.T, db *mongo.Database, cmds []loggedCommand) int {
	t.Helper()
	ctx := context.Background()
	n, bad := 0, 0
	defer func() {
		if bad > 3 {
			t.Errorf("… %d commands scanning a whole collection in all", bad)
		}
	}()
	for _, c := range cmds {
		if c.DB != db.Name() {
			continue
		}
		for _, e := range explainable(c) {
			scans, res, err := collScans(ctx, db, e)
			if err != nil {
				t.Errorf("explain %v: %v", e, err)
				continue
			}
			n++
			if scans > 0 {
				if bad++; bad <= 3 {
					t.Errorf("%s scans a whole collection: %v\nplan: %v", c.Name, e, res["queryPlanner"])
				}
			}
		}
	}
	return n
}
