package proxysoak

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/decongestant/decongestant/faults"
)

// ErrBadOptions is wrapped by every option error, before anything runs.
var ErrBadOptions = errors.New("invalid soak options")

// Options are one soak.
type Options struct {
	// ProxyCommand starts the proxy: the program and its first arguments
	// ("/path/decongestant", "proxy"); the soak adds --uri, --listen,
	// --users, --policy spillway, --max-staleness, --metrics-addr and
	// --pprof, then ProxyArgs.
	ProxyCommand []string
	ProxyArgs    []string
	// ProxyURI soaks a proxy already running instead (ProxyCommand unused):
	// its URI with a proxy user's credentials, in front of ClusterDir's set
	// (required then), with the bound Bound. ProxyPID, when not 0, is its
	// process, whose RSS and descriptors are sampled; ProxyMetrics, when
	// set, the host:port of its --metrics-addr with --pprof, whose heap
	// profile gives the live heap.
	ProxyURI     string
	ProxyPID     int
	ProxyMetrics string
	// ClusterDir is a running cluster ("decongestant cluster up --dir") to
	// soak; "" starts a 3-member set in a temporary directory (with Mongod,
	// "" to find one) and tears it down after.
	ClusterDir string
	Mongod     string
	// Duration is how long the clients run (1h).
	Duration time.Duration
	// Connections are the authenticated client connections (1000), a
	// PythonShare of them from pymongo subprocesses (in processes of at most
	// 100 threads), the rest from the Go driver in this process.
	Connections int
	PythonShare float64
	// Python runs the pymongo clients ("python3").
	Python string
	// OpInterval is each connection's mean pause between operations (2s).
	OpInterval time.Duration
	// TxnEvery makes every TxnEvery-th operation of a connection a
	// transaction (10); ReadShare is the share of the others that are reads
	// (0.5).
	TxnEvery  int
	ReadShare float64
	// OpTimeout bounds one Go driver operation (60s).
	OpTimeout time.Duration
	// Bound is the proxy's staleness bound (2s).
	Bound time.Duration
	// Schedule is the fault plan; nil takes DefaultSchedule(Duration), an
	// empty non-nil slice none.
	Schedule []FaultStep
	// NoHostile leaves out the hostile connections: the baseline run.
	NoHostile bool
	// Hostile tunes them; zero values take the defaults.
	Hostile HostileConfig
	// BaselineP99MS is the overall P99 of a --no-hostile run to judge
	// against (0: not judged).
	BaselineP99MS float64
	// SampleInterval is how often the proxy process is read (5s).
	SampleInterval time.Duration
	// Dir keeps the proxy's log, the users file and the pymongo records;
	// "" a temporary directory removed after.
	Dir string
	// Progress gets progress lines (io.Discard if nil).
	Progress io.Writer
	// AfterClients, when set, runs after the clients stopped and before
	// the checks, on the soak's database reached on the replica set itself
	// (not through the proxy), with the ids of the acknowledged inserts: the
	// integration test plants violations with it.
	AfterClients func(ctx context.Context, direct *mongo.Database, acked []string) error
}

func (o *Options) defaults() {
	if o.Duration == 0 {
		o.Duration = time.Hour
	}
	if o.Connections == 0 {
		o.Connections = 1000
	}
	if o.Python == "" {
		o.Python = "python3"
	}
	if o.OpInterval == 0 {
		o.OpInterval = 2 * time.Second
	}
	if o.TxnEvery == 0 {
		o.TxnEvery = 10
	}
	if o.OpTimeout == 0 {
		o.OpTimeout = time.Minute
	}
	if o.Bound == 0 {
		o.Bound = 2 * time.Second
	}
	if o.SampleInterval == 0 {
		o.SampleInterval = 5 * time.Second
	}
	if o.Schedule == nil {
		o.Schedule = DefaultSchedule(o.Duration)
	}
	if o.Progress == nil {
		o.Progress = io.Discard
	}
	o.Hostile.defaults()
}

// Validate checks the options before anything starts.
func (o *Options) Validate() error {
	o.defaults()
	switch {
	case len(o.ProxyCommand) == 0 && o.ProxyURI == "":
		return fmt.Errorf("%w: no command starts the proxy", ErrBadOptions)
	case o.ProxyURI != "" && o.ClusterDir == "":
		return fmt.Errorf("%w: a running proxy is soaked with the running set behind it: give its cluster directory", ErrBadOptions)
	case o.ProxyURI == "" && (o.ProxyPID != 0 || o.ProxyMetrics != ""):
		return fmt.Errorf("%w: a proxy's process id and metrics address are for a running proxy: give its URI", ErrBadOptions)
	case o.Duration < 10*time.Second:
		return fmt.Errorf("%w: duration %v: at least 10s", ErrBadOptions, o.Duration)
	case o.Connections < 2:
		return fmt.Errorf("%w: %d connections: at least 2", ErrBadOptions, o.Connections)
	case o.PythonShare < 0 || o.PythonShare > 1:
		return fmt.Errorf("%w: python share %v: want 0 to 1", ErrBadOptions, o.PythonShare)
	case o.OpInterval < time.Millisecond:
		return fmt.Errorf("%w: operation interval %v: at least 1ms", ErrBadOptions, o.OpInterval)
	case o.TxnEvery < 0:
		return fmt.Errorf("%w: a transaction every %d operations: want 0 (none) or more", ErrBadOptions, o.TxnEvery)
	case o.ReadShare < 0 || o.ReadShare > 1:
		return fmt.Errorf("%w: read share %v: want 0 to 1", ErrBadOptions, o.ReadShare)
	case o.Bound < time.Second:
		return fmt.Errorf("%w: staleness bound %v: at least 1s", ErrBadOptions, o.Bound)
	}
	for i, s := range o.Schedule {
		if s.At <= 0 || s.At >= o.Duration || (i > 0 && s.At <= o.Schedule[i-1].At) {
			return fmt.Errorf("%w: fault step %q at %v: times must increase within the duration %v", ErrBadOptions, s.Name, s.At, o.Duration)
		}
	}
	return nil
}

// split returns how many connections each driver opens.
func (o *Options) split() (goConns, pyConns int) {
	py := int(float64(o.Connections)*o.PythonShare + 0.5)
	return o.Connections - py, py
}

// FaultStep is one step of the fault plan: at At, the actions Actions
// returns for the members' roles when the step is due (the primary's name
// and the secondaries'; the plan picks its secondaries then, since
// failovers move the primary).
type FaultStep struct {
	At      time.Duration
	Name    string // names the phase the step starts
	Actions func(primary string, secondaries []string) []faults.Action
}

// DefaultSchedule spreads the soak's faults over d: a stepdown, the
// primary killed and restarted, a secondary paused and resumed, a
// secondary slowed (reads held 300ms) and unslowed, and a rolling restart
// of both secondaries (each stopped cleanly and restarted, one after the
// other); the last tenth runs without faults.
func DefaultSchedule(d time.Duration) []FaultStep {
	at := func(f float64) time.Duration { return time.Duration(f * float64(d)).Round(time.Second) }
	var paused, slowed string
	first := func(secs []string) string {
		if len(secs) == 0 {
			return "n3"
		}
		return secs[0]
	}
	return []FaultStep{
		{At: at(0.10), Name: "stepdown", Actions: func(string, []string) []faults.Action {
			return []faults.Action{{Kind: faults.StepDown}}
		}},
		{At: at(0.20), Name: "primary killed", Actions: func(string, []string) []faults.Action {
			return []faults.Action{{Kind: faults.Kill, Member: faults.PrimaryMember}}
		}},
		{At: at(0.28), Name: "primary restarted", Actions: func(string, []string) []faults.Action {
			return []faults.Action{{Kind: faults.Restart, Member: faults.PrimaryMember}}
		}},
		{At: at(0.38), Name: "secondary paused", Actions: func(_ string, secs []string) []faults.Action {
			paused = first(secs)
			return []faults.Action{{Kind: faults.Pause, Member: paused}}
		}},
		{At: at(0.48), Name: "secondary resumed", Actions: func(string, []string) []faults.Action {
			return []faults.Action{{Kind: faults.Resume, Member: paused}}
		}},
		{At: at(0.56), Name: "secondary slowed", Actions: func(_ string, secs []string) []faults.Action {
			slowed = first(secs)
			return []faults.Action{{Kind: faults.Slow, Member: slowed, Delay: 300 * time.Millisecond}}
		}},
		{At: at(0.66), Name: "secondary unslowed", Actions: func(string, []string) []faults.Action {
			return []faults.Action{{Kind: faults.Unslow, Member: slowed}}
		}},
		{At: at(0.74), Name: "rolling restart", Actions: func(_ string, secs []string) []faults.Action {
			var out []faults.Action
			for _, s := range secs {
				out = append(out, faults.Action{Kind: faults.Stop, Member: s}, faults.Action{Kind: faults.Restart, Member: s})
			}
			return out
		}},
		{At: at(0.90), Name: "settled", Actions: func(string, []string) []faults.Action { return nil }},
	}
}

// StepDownSchedule is one stepdown at a third of d: the integration test's.
func StepDownSchedule(d time.Duration) []FaultStep {
	return []FaultStep{{At: (d / 3).Round(time.Second), Name: "stepdown", Actions: func(string, []string) []faults.Action {
		return []faults.Action{{Kind: faults.StepDown}}
	}}}
}

// phaseBounds returns the phases' starts and names: the first phase from 0
// ("before faults"), then one from each step.
func phaseBounds(steps []FaultStep) ([]time.Duration, []string) {
	bounds, names := []time.Duration{0}, []string{"before faults"}
	for _, s := range steps {
		bounds, names = append(bounds, s.At), append(names, s.Name)
	}
	return bounds, names
}

// shape is what a run and its baseline must share: the load, the bound
// and the fault plan, as the results' settings name them.
func (o *Options) shape() map[string]string {
	var plan []string
	for _, st := range o.Schedule {
		plan = append(plan, fmt.Sprintf("%v:%s", st.At, st.Name))
	}
	return map[string]string{
		"duration": o.Duration.String(), "connections": fmt.Sprint(o.Connections), "python_share": fmt.Sprint(o.PythonShare),
		"op_interval": o.OpInterval.String(), "txn_every": fmt.Sprint(o.TxnEvery), "read_share": fmt.Sprint(o.ReadShare),
		"bound": o.Bound.String(), "policy": "spillway", "faults": strings.Join(plan, ";")}
}

// CheckBaseline checks that b can be o's baseline: a run without hostile
// connections, of the same shape (duration, connections, drivers' shares,
// operations, bound and fault plan), else the P99s do not compare.
func (o *Options) CheckBaseline(b *Result) error {
	if b.Hostile != nil {
		return fmt.Errorf("%w: the baseline is a run with hostile connections: give a run without", ErrBadOptions)
	}
	o.defaults()
	want := o.shape()
	for _, k := range slices.Sorted(maps.Keys(want)) {
		if b.Settings[k] != want[k] {
			return fmt.Errorf("%w: the baseline's %s is %q, this run's %q: give a baseline of the same shape", ErrBadOptions, k, b.Settings[k], want[k])
		}
	}
	return nil
}
