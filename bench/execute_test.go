package bench

import (
	"testing"
	"time"

	"github.com/decongestant/decongestant/balancer"
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
	o := Options{URI: "mongodb://alice:s3cret@h1/?replicaSet=rs0", Generator: gen, Clients: 4,
		Duration: time.Minute, Period: 10 * time.Second, Policies: specs, Settings: s}
	if err := o.validate(); err != nil {
		t.Fatal(err)
	}
	c := newResults(&o).Config
	if c.Records != 500 || c.Mix != "c" || c.URI != "mongodb://REDACTED@h1/?replicaSet=rs0" {
		t.Errorf("config records %d mix %q uri %q", c.Records, c.Mix, c.URI)
	}
	if len(c.Policies) != 2 || c.Policies[1] != "fixed:0.5" || c.MaxStalenessMS == nil || *c.MaxStalenessMS != 10000 {
		t.Errorf("config policies %v bound %v", c.Policies, c.MaxStalenessMS)
	}
	if c.Balancer["lag_interval_s"] != 1.0 || c.Balancer["headroom_s"] != "auto" || c.Balancer["latency_source"] != "command" {
		t.Errorf("balancer config %v", c.Balancer)
	}
}
