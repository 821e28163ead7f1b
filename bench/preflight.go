package bench

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readpref"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"

	"github.com/decongestant/decongestant/cluster"
	"github.com/decongestant/decongestant/faults"
	"github.com/decongestant/decongestant/internal/redact"
	"github.com/decongestant/decongestant/monitor"
	"github.com/decongestant/decongestant/results"
	"github.com/decongestant/decongestant/workload"
)

// prepare checks that the URI names a replica set, records the server
// version, and loads the data (with w:majority, so every member holds it
// before a run).
func prepare(ctx context.Context, o *Options, res *results.Results) error {
	co := append([]*options.ClientOptions{options.Client().SetReadPreference(readpref.Primary())}, o.ClientOptions...)
	co = append(co, options.Client().SetWriteConcern(writeconcern.Majority()))
	client, err := monitor.Connect(ctx, o.URI, o.ConnectTimeout, co...)
	if err != nil {
		return err
	}
	defer client.Disconnect(context.Background())
	if err := checkWeights(ctx, client, o, readsMembers(o.Phases)); err != nil {
		return err
	}
	if err := checkCluster(ctx, o, client); err != nil {
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

// healthyTimeout bounds the wait for a healthy cluster before the load.
const healthyTimeout = 30 * time.Second

// checkCluster resolves the cluster fault actions act on (Options.Cluster,
// or opened from ClusterDir) and checks it before any load: it has every
// member the phases name, runs, is the replica set the URI points at, and
// is healthy.
func checkCluster(ctx context.Context, o *Options, client *mongo.Client) error {
	c := o.Cluster
	if c == nil && o.ClusterDir == "" {
		return nil
	}
	if c == nil {
		var err error
		if c, err = cluster.Open(o.ClusterDir); err != nil {
			return fmt.Errorf("%w: --cluster-dir: %w; fault actions need a cluster started by `decongestant cluster up --dir DIR`", ErrBadOptions, err)
		}
	}
	if err := faults.CheckMembers(steps(o.Phases), cluster.Names(c.Members())); err != nil {
		return fmt.Errorf("%w: %w", ErrBadPhases, err)
	}
	if err := checkRunning(ctx, c); err != nil {
		return err
	}
	var hello helloSet
	if err := client.Database("admin").RunCommand(ctx, bson.D{{Key: "hello", Value: 1}}).Decode(&hello); err != nil {
		return fmt.Errorf("hello on %s: %w", redact.URI(o.URI), err)
	}
	if err := matchSet(hello, c.ReplSet(), c.Members(), c.Dir()); err != nil {
		return err
	}
	hctx, cancel := context.WithTimeout(ctx, healthyTimeout)
	defer cancel()
	if err := c.WaitHealthy(hctx); err != nil {
		return fmt.Errorf("%w: the cluster in %s is not healthy before the run: %w", ErrBadOptions, c.Dir(), err)
	}
	o.target = c
	return nil
}

// checkRunning fails when none of c's members runs.
func checkRunning(ctx context.Context, c *cluster.Cluster) error {
	st, err := c.Status(ctx)
	if err != nil {
		return fmt.Errorf("status of the cluster in %s: %w", c.Dir(), err)
	}
	var states []string
	for _, s := range st {
		if s.Alive {
			return nil
		}
		states = append(states, s.Name+" "+s.State)
	}
	return fmt.Errorf("%w: --cluster-dir %s holds no running cluster (%s): %w; start one with `decongestant cluster up --dir %s`",
		ErrBadOptions, c.Dir(), strings.Join(states, ", "), cluster.ErrNotRunning, c.Dir())
}

// helloSet is the replica set a server says it belongs to.
type helloSet struct {
	SetName  string   `bson:"setName"`
	Hosts    []string `bson:"hosts"`
	Passives []string `bson:"passives"`
	Arbiters []string `bson:"arbiters"`
}

// matchSet checks that the set the URI's server belongs to is the cluster
// in dir: the same name and the same members' hosts.
func matchSet(h helloSet, replSet string, members []cluster.Member, dir string) error {
	theirs := slices.Sorted(slices.Values(slices.Concat(h.Hosts, h.Passives, h.Arbiters)))
	var ours []string
	for _, m := range members {
		ours = append(ours, m.Host)
	}
	slices.Sort(ours)
	if h.SetName == replSet && slices.Equal(theirs, ours) {
		return nil
	}
	return fmt.Errorf("%w: --uri points at replica set %q (%s), but the cluster in %s is %q (%s): fault actions would hit another set",
		ErrBadOptions, h.SetName, strings.Join(theirs, ","), dir, replSet, strings.Join(ours, ","))
}
