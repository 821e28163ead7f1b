package consistency

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo/readconcern"
	"go.mongodb.org/mongo-driver/v2/mongo/readpref"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"

	"github.com/decongestant/decongestant/balancer"
	"github.com/decongestant/decongestant/cluster"
	"github.com/decongestant/decongestant/faults"
	"github.com/decongestant/decongestant/workload/registers"
)

// ErrBadOptions is wrapped by every option error, before anything runs.
var ErrBadOptions = errors.New("invalid consistency options")

// The read concerns a run may use.
var readConcerns = []string{"local", "majority", "linearizable", "available"}

// The driver's read preferences a run may read with; anything else is a
// policy spec routed by a router.
var readPrefs = []string{"primary", "primarypreferred", "secondary", "secondarypreferred", "nearest"}

// Concerns are a run's write and read settings.
type Concerns struct {
	// W is the write concern: "majority" or a number of members ("1").
	W string
	// RC is the read concern: local, majority, linearizable or available.
	RC string
	// Read is where reads go: a driver read preference (primary,
	// secondary, nearest, ...) or a policy (spillway, decongestant, ...)
	// routed by the router under Settings' bound.
	Read string
}

// String is the setting as the results name it: "w:majority rc:local read:secondary".
func (c Concerns) String() string {
	return "w:" + c.W + " rc:" + c.RC + " read:" + c.Read
}

// IsPolicy reports whether reads are routed by a policy rather than a
// driver read preference.
func (c Concerns) IsPolicy() bool { return !slices.Contains(readPrefs, strings.ToLower(c.Read)) }

// Validate checks the concerns as MongoDB would, and before it would:
// linearizable reads only from the primary.
func (c Concerns) Validate(s balancer.Settings) error {
	if _, err := c.writeConcern(); err != nil {
		return err
	}
	if !slices.Contains(readConcerns, c.RC) {
		return fmt.Errorf("%w: read concern %q: want one of %s", ErrBadOptions, c.RC, strings.Join(readConcerns, ", "))
	}
	read := strings.ToLower(c.Read)
	if c.IsPolicy() {
		if _, err := balancer.ParseSpec(c.Read, s); err != nil {
			return fmt.Errorf("%w: read %q is neither a read preference (%s) nor a policy: %w",
				ErrBadOptions, c.Read, strings.Join(readPrefs, ", "), err)
		}
	}
	if c.RC == "linearizable" && read != "primary" {
		return fmt.Errorf("%w: read concern linearizable with read %q: MongoDB serves linearizable reads only on the primary (it rejects them with any other read preference); use read primary",
			ErrBadOptions, c.Read)
	}
	return nil
}

func (c Concerns) writeConcern() (*writeconcern.WriteConcern, error) {
	if c.W == "majority" {
		return writeconcern.Majority(), nil
	}
	n, err := strconv.Atoi(c.W)
	if err != nil || n < 0 || n > 50 {
		return nil, fmt.Errorf("%w: write concern %q: want majority or a number of members such as 1", ErrBadOptions, c.W)
	}
	return &writeconcern.WriteConcern{W: n}, nil
}

func (c Concerns) readConcern() *readconcern.ReadConcern {
	return &readconcern.ReadConcern{Level: c.RC}
}

func (c Concerns) readPref() (*readpref.ReadPref, error) {
	mode, err := readpref.ModeFromString(strings.ToLower(c.Read))
	if err != nil {
		return nil, err
	}
	return readpref.New(mode)
}

// CheckOptions is one recorded and checked run.
type CheckOptions struct {
	// URI is the replica set.
	URI string
	// Cluster is the local cluster fault actions act on; nil allows none.
	Cluster *cluster.Cluster
	// Registers is the workload.
	Registers registers.Config
	// Concerns are the run's write concern, read concern and reads.
	Concerns Concerns
	// Settings hold the policies' constants and the staleness bound the
	// bounded-staleness checker holds routed reads to.
	Settings balancer.Settings
	// Faults are the fault actions by time since the start.
	Faults []faults.Step
	// Out is the directory the history, the verdict and (on a violation)
	// Porcupine's visualisation are written to.
	Out string
	// CheckTimeout bounds the linearizability check (1 min); a key not
	// decided by then is reported as unknown.
	CheckTimeout time.Duration
	// Progress receives progress lines (io.Discard if nil).
	Progress io.Writer
}

// Bound is the staleness bound a routed run is held to: the policy's, 0
// when reads are not routed by a bounded policy.
func (o *CheckOptions) Bound() (balancer.Bound, bool) {
	if !o.Concerns.IsPolicy() {
		return balancer.Bound{}, false
	}
	sp, err := balancer.ParseSpec(o.Concerns.Read, o.Settings)
	if err != nil {
		return balancer.Bound{}, false
	}
	if b, ok := sp.New().(balancer.Bounded); ok {
		return b.Bound(), true
	}
	return balancer.Bound{}, false
}

func (o *CheckOptions) validate() error {
	if o.URI == "" {
		return fmt.Errorf("%w: a URI is required", ErrBadOptions)
	}
	if o.Out == "" {
		return fmt.Errorf("%w: an output directory is required", ErrBadOptions)
	}
	if err := o.Registers.Validate(); err != nil {
		return fmt.Errorf("%w: %w", ErrBadOptions, err)
	}
	if err := o.Concerns.Validate(o.Settings); err != nil {
		return err
	}
	if len(o.Faults) > 0 && o.Cluster == nil {
		return fmt.Errorf("%w: fault actions need a local cluster (start one with `decongestant cluster up`, or give no --uri to start one)", ErrBadOptions)
	}
	if o.Cluster != nil {
		if err := faults.CheckMembers(o.Faults, cluster.Names(o.Cluster.Members())); err != nil {
			return fmt.Errorf("%w: %w", ErrBadOptions, err)
		}
	}
	if o.CheckTimeout <= 0 {
		o.CheckTimeout = time.Minute
	}
	if o.Progress == nil {
		o.Progress = io.Discard
	}
	return nil
}
