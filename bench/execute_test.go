package bench

import (
	"bytes"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/decongestant/decongestant/balancer"
	"github.com/decongestant/decongestant/faults"
	"github.com/decongestant/decongestant/reconfig"
	"github.com/decongestant/decongestant/workload"
	_ "github.com/decongestant/decongestant/workload/ycsb"
)

// TestNewResultsRecordsTheInvocation: the config holds the redacted URI,
// the policies as given, the bound, and the workload's size when the
// generator knows it.
func TestNewResultsRecordsTheInvocation(t *testing.T) {
	gen, err := workload.Configure("ycsb", workload.Shared{Seed: 1}, "--records", "500", "--workload", "c")
	if err != nil {
		t.Fatal(err)
	}
	s := balancer.DefaultSettings()
	specs, err := balancer.ParseSpecs("primary, fixed:0.5", s)
	if err != nil {
		t.Fatal(err)
	}
	o := Options{URI: "mongodb://alice:s3cret@h1/?replicaSet=rs0&proxyPassword=s3cret&authMechanismProperties=AWS_SESSION_TOKEN:tok3n", Generator: gen, Clients: 4,
		Duration: time.Minute, Period: 10 * time.Second, Policies: specs, Settings: s}
	if err := o.validate(); err != nil {
		t.Fatal(err)
	}
	res := newResults(&o)
	c := res.Config
	if c.Records != 500 || c.Mix != "c" || c.URI != "mongodb://REDACTED@h1/?replicaSet=rs0&proxyPassword=REDACTED&authMechanismProperties=REDACTED" {
		t.Errorf("config records %d mix %q uri %q", c.Records, c.Mix, c.URI)
	}
	var js bytes.Buffer
	if err := res.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"alice", "s3cret", "tok3n"} {
		if strings.Contains(js.String(), secret) {
			t.Errorf("the results JSON holds %q", secret)
		}
	}
	if len(c.Policies) != 2 || c.Policies[1] != "fixed:0.5" || c.MaxStalenessMS == nil || *c.MaxStalenessMS != 10000 {
		t.Errorf("config policies %v bound %v", c.Policies, c.MaxStalenessMS)
	}
	if c.Balancer["lag_interval_s"] != 1.0 || c.Balancer["headroom_s"] != "auto" || c.Balancer["latency_source"] != "command" {
		t.Errorf("balancer config %v", c.Balancer)
	}
}

// TestReconfigTimes: the config records the times given, every run
// measures them and the fault-action phases, and a time outside the run is
// refused.
func TestReconfigTimes(t *testing.T) {
	o := sweepOptions(t)
	o.Sweep, o.Clients = nil, 4
	o.ClusterDir = "/nonexistent" // fault actions need a cluster; validate does not open it
	o.Phases = []Phase{{At: 10 * time.Second, Mix: "a"}, {At: 20 * time.Second, Actions: []faults.Action{{Kind: faults.StepDown}}}}
	o.ReconfigAt = []time.Duration{40 * time.Second}
	if err := o.validate(); err != nil {
		t.Fatal(err)
	}
	if c := newResults(&o).Config; !slices.Equal(c.ReconfigAtS, []float64{40}) {
		t.Errorf("config reconfig_at_s %v, want [40]", c.ReconfigAtS)
	}
	want := []reconfig.Time{{AtS: 20, Cause: "stepdown"}, {AtS: 40, Cause: reconfig.Given}}
	if got := o.reconfigTimes(); !slices.Equal(got, want) {
		t.Errorf("times %v, want %v", got, want)
	}
	for _, at := range []time.Duration{0, time.Minute, 2 * time.Minute} {
		o := sweepOptions(t)
		o.Sweep, o.Clients, o.ReconfigAt = nil, 4, []time.Duration{at}
		if err := o.validate(); err == nil || !strings.Contains(err.Error(), "not inside the run") {
			t.Errorf("reconfiguration at %v in a 1m run: err %v", at, err)
		}
	}
}

// TestRateRecordedAndChecked: the config records the rate the clients were
// held to and the phases' rates; a negative or infinite rate is refused.
func TestRateRecordedAndChecked(t *testing.T) {
	o := sweepOptions(t)
	o.Sweep, o.Clients, o.Rate = nil, 4, 250
	o.Phases = []Phase{{At: 10 * time.Second, Rate: rate(50)}}
	if err := o.validate(); err != nil {
		t.Fatal(err)
	}
	c := newResults(&o).Config
	if c.RatePerS != 250 || len(c.Phases) != 1 || c.Phases[0].Rate == nil || *c.Phases[0].Rate != 50 {
		t.Errorf("config rate %v, phases %+v: want 250 and a phase at 50", c.RatePerS, c.Phases)
	}
	for _, r := range []float64{-1, math.Inf(1), math.NaN()} {
		o.Rate = r
		if err := o.validate(); !errors.Is(err, ErrBadOptions) || !strings.Contains(err.Error(), "operations a second") {
			t.Errorf("rate %v: err %v, want a bad rate", r, err)
		}
	}
}

// TestSProbeIntervalsRecorded: the config records the S probe's pauses
// (its defaults when none were given), and nothing without the probe.
func TestSProbeIntervalsRecorded(t *testing.T) {
	o := sweepOptions(t)
	o.Sweep, o.Clients, o.SProbe = nil, 4, true
	o.Probe.WriteInterval = 50 * time.Millisecond
	if err := o.validate(); err != nil {
		t.Fatal(err)
	}
	if c := newResults(&o).Config; c.SProbeWriteMS != 50 || c.SProbeIntervalMS != 100 {
		t.Errorf("S probe intervals %v / %v ms, want 50 / 100", c.SProbeWriteMS, c.SProbeIntervalMS)
	}
	o.SProbe = false
	if c := newResults(&o).Config; c.SProbeWriteMS != 0 || c.SProbeIntervalMS != 0 {
		t.Errorf("without the probe: intervals %v / %v ms, want none", c.SProbeWriteMS, c.SProbeIntervalMS)
	}
}
