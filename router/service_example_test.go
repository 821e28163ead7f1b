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
// the driver, read through the router, and see which members served the
// reads. Set DECONGESTANT_URI to your replica set's URI (TestExample runs
// this against a real set); docs/library.md shows this file as a program and
// README.md its run function.
func Example() {
	if err := run(context.Background()); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context) error {
	// leastwait, ours: each read goes where it will wait least, never to a
	// member more than 2 s behind the primary.
	bound := balancer.DefaultSettings().WithBound(balancer.Bound{Max: 2 * time.Second})
	policy, err := balancer.Parse("leastwait", bound)
	if err != nil {
		return err
	}
	r, err := router.Connect(ctx, os.Getenv("DECONGESTANT_URI"), router.WithPolicy(policy))
	if err != nil {
		return err
	}
	defer r.Close(ctx)

	users := r.Database("app").Collection("users") // reads through it are routed
	if _, err := users.Primary().InsertOne(ctx, bson.M{"name": "ada"}); err != nil {
		return err // writes: the primary, through the driver as before
	}
	var u bson.M // Find, FindOne, Aggregate, CountDocuments, Distinct
	if err := users.FindOne(ctx, bson.M{"name": "ada"}).Decode(&u); err != nil {
		return err
	}
	fmt.Println(u["name"], "served by", r.Served().ByHost)
	return nil
}
