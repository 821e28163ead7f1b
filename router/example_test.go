package router_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/decongestant/decongestant/balancer"
	"github.com/decongestant/decongestant/router"
)

// Route reads with Decongestant under a 5 s staleness bound, on the replica
// set $DECONGESTANT_URI names (mongodb://h1,h2,h3/?replicaSet=rs0, say).
// TestExamples runs it against a real set.
func ExampleConnect() {
	ctx := context.Background()
	cfg := balancer.DefaultConfig()
	cfg.Bound = balancer.Bound{Max: 5 * time.Second}
	policy, err := balancer.NewDecongestant(cfg)
	if err != nil {
		panic(err)
	}
	r, err := router.Connect(ctx, os.Getenv("DECONGESTANT_URI"), router.WithPolicy(policy))
	if err != nil {
		panic(err)
	}
	defer r.Close(ctx)

	users := r.Database("app").Collection("users") // routed reads
	var u bson.M
	err = users.FindOne(ctx, bson.D{{Key: "_id", Value: 42}}).Decode(&u)
	switch {
	case errors.Is(err, mongo.ErrNoDocuments):
		fmt.Println("no user 42") // or not yet on the member that served the read
	case err != nil:
		panic(err)
	}
	// Writes go to the primary, unchanged.
	if _, err := r.Client().Database("app").Collection("users").InsertOne(ctx, bson.D{{Key: "name", Value: "ada"}}); err != nil {
		panic(err)
	}

	// Several queries routed as one unit (e.g. a read-only transaction).
	rd := r.Begin(ctx)
	n, err := rd.Database("app").Collection("orders").CountDocuments(rd.Ctx, bson.D{})
	rd.Done(err)
	if err != nil {
		panic(err)
	}

	s := r.Served()
	fmt.Printf("%d orders; %.0f%% of routed reads served by secondaries\n", n, s.SecondaryPct())
}

// Route reads per member with Spillway under a 2 s bound, and read in a
// causally consistent session from whichever member it picks.
// TestExamples runs it against a real set.
func ExampleRouter_Weights() {
	ctx := context.Background()
	cfg := balancer.DefaultSpillwayConfig()
	cfg.Bound = balancer.Bound{Max: 2 * time.Second}
	policy, err := balancer.NewSpillway(cfg)
	if err != nil {
		panic(err)
	}
	r, err := router.Connect(ctx, os.Getenv("DECONGESTANT_URI"), router.WithPolicy(policy))
	if err != nil {
		panic(err)
	}
	defer r.Close(ctx)

	sess, err := r.Client().StartSession()
	if err != nil {
		panic(err)
	}
	defer sess.EndSession(ctx)
	rd := r.Begin(mongo.NewSessionContext(ctx, sess))
	n, err := rd.Database("app").Collection("orders").CountDocuments(rd.Ctx, bson.D{})
	rd.Done(err)

	from := rd.Host // the secondary Spillway picked, "" for the primary
	if from == "" {
		from = "the primary"
	}
	w, _ := r.Weights()
	fmt.Printf("%d orders read from %s; shares in force %v\n", n, from, w)
}

// Log the router's decisions and look at what it does. TestExamples runs it
// against a real set.
func ExampleRouter_Stats() {
	ctx := context.Background()
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	r, err := router.Connect(ctx, os.Getenv("DECONGESTANT_URI"), router.WithLogger(log))
	if err != nil {
		panic(err)
	}
	defer r.Close(ctx)

	orders := r.Database("app").Collection("orders")
	for range 100 {
		if _, err := orders.CountDocuments(ctx, bson.D{}); err != nil {
			panic(err)
		}
	}
	st := r.Stats() // Members: those that served reads
	fmt.Printf("%s: %.0f%% of reads to secondaries, lag known %v, bound forced 0 %d times\n",
		st.Policy, 100*st.Fraction, st.Lag.Known, st.Bound.ForcedZero)
	for _, m := range st.Members {
		fmt.Printf("%s (%s): %d reads, wire p50 %v over the latest period, lag %v, share %.2f\n",
			m.Host, m.Role, m.Served, m.Wire.P50, m.Lag, m.Weight)
	}
}

// Count where the reads of one stretch of work went: the difference of two
// snapshots of Router.Served, taken before and after (written out here, so
// the example runs without a replica set).
func ExampleServed_Sub() {
	before := router.Served{Primary: 120, Secondary: 30,
		ByHost: map[string]int64{"h1:27017": 120, "h2:27017": 30}}
	after := router.Served{Primary: 150, Secondary: 120,
		ByHost: map[string]int64{"h1:27017": 150, "h2:27017": 75, "h3:27017": 45}}
	d := after.Sub(before)
	fmt.Printf("%d reads: %d primary, %d secondary (%.0f%%)\n", d.Total(), d.Primary, d.Secondary, d.SecondaryPct())
	fmt.Println(d.ByHost)
	// Output:
	// 120 reads: 30 primary, 90 secondary (75%)
	// map[h1:27017:30 h2:27017:45 h3:27017:45]
}
