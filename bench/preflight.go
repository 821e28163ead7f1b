package bench

import (
	"context"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readpref"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"

	"github.com/decongestant/decongestant/internal/redact"
	"github.com/decongestant/decongestant/monitor"
	"github.com/decongestant/decongestant/results"
	"github.com/decongestant/decongestant/workload"
)

// prepare checks that the URI names a replica set, records the server
// version, and loads the data (with w:majority, so every member holds it
// before a run).
func prepare(ctx context.Context, o *Options, res *results.Results) error {
	co := append([]*options.ClientOptions{options.Client().ApplyURI(o.URI).
		SetReadPreference(readpref.Primary())}, o.ClientOptions...)
	co = append(co, options.Client().SetWriteConcern(writeconcern.Majority()))
	client, err := mongo.Connect(co...)
	if err != nil {
		return fmt.Errorf("connect to %s: %w", redact.URI(o.URI), err)
	}
	defer client.Disconnect(context.Background())
	if err := monitor.CheckReplicaSet(ctx, client, o.URI, o.ConnectTimeout); err != nil {
		return err
	}
	if err := checkWeights(ctx, client, o.Policies); err != nil {
		return err
	}
	var info struct {
		Version string `bson:"version"`
	}
	if err := client.Database("admin").RunCommand(ctx, bson.D{{Key: "buildInfo", Value: 1}}).Decode(&info); err != nil {
		return fmt.Errorf("buildInfo on %s: %w", redact.URI(o.URI), err)
	}
	res.Config.Host["server_version"] = info.Version
	if o.SkipLoad {
		fmt.Fprintf(o.Progress, "load: skipped\n")
		return nil
	}
	env := workload.Env{DB: client.Database(o.Database), Reads: workload.PlainReads{DB: client.Database(o.Database)}}
	start := time.Now()
	if err := o.Generator.Load(ctx, env, o.LoadParallel, workload.PrintProgress(o.Progress)); err != nil {
		return fmt.Errorf("load: %w", err)
	}
	fmt.Fprintf(o.Progress, "load: done in %.1fs\n", time.Since(start).Seconds())
	res.Config.Extra = map[string]string{"load_s": fmt.Sprintf("%.1f", time.Since(start).Seconds())}
	return nil
}
