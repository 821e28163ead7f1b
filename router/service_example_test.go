package router_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/decongestant/decongestant/balancer"
	"github.com/decongestant/decongestant/router"
)

// A service's whole use of the router: connect with a policy, write through
// the driver's client, read through the router, and see which members served
// the reads. Set DECONGESTANT_URI to your replica set's URI (TestExample runs
// this against a real set); README.md shows this file as a program.
func Example() {
	if err := run(context.Background()); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context) error {
	uri := os.Getenv("DECONGESTANT_URI")
	if uri == "" {
		uri = "mongodb://localhost:27017/?replicaSet=rs0"
	}
	// Spillway: each read goes to the member where it costs least, never one
	// more than 2 s behind the primary.
	settings := balancer.DefaultSettings().WithBound(balancer.Bound{Max: 2 * time.Second})
	policy, err := balancer.Parse("spillway", settings)
	if err != nil {
		return err
	}
	r, err := router.Connect(ctx, uri, router.WithPolicy(policy))
	if err != nil {
		return err
	}
	defer r.Close(ctx)

	// Writes go to the primary through the driver's own client, unchanged.
	doc := bson.D{{Key: "name", Value: "ada"}, {Key: "at", Value: time.Now()}}
	if _, err := r.Client().Database("app").Collection("users").InsertOne(ctx, doc); err != nil {
		return err
	}
	// Reads through the router: Find, FindOne, Aggregate, CountDocuments,
	// Distinct. A secondary may serve them, up to 2 s behind the write above.
	cur, err := r.Database("app").Collection("users").Find(ctx, bson.D{{Key: "name", Value: "ada"}})
	if err != nil {
		return err
	}
	var users []bson.M
	if err := cur.All(ctx, &users); err != nil {
		return err
	}
	fmt.Printf("%d users named ada; reads served by member: %v\n", len(users), r.Served().ByHost)
	return nil
}
