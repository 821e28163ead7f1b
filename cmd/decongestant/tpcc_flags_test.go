package main

import (
	"io"
	"testing"

	"github.com/decongestant/decongestant/workload/tpcc"
	"github.com/decongestant/decongestant/workload/ycsb"
)

// TestBenchFlagsReachTheGenerator: `bench <workload>` is built from the
// registry; the workload's own flags and the runner's shared ones (seed,
// write concern) reach the generator a run uses, and each workload has its
// own defaults of the runner's flags.
func TestBenchFlagsReachTheGenerator(t *testing.T) {
	uri := []string{"--uri", "mongodb://127.0.0.1:1/?replicaSet=rs0"}
	for _, tt := range []struct {
		args []string
		want tpcc.StockLevelReadConcern
	}{
		{nil, tpcc.StockLevelMajority},
		{[]string{"--mix", "readwrite"}, tpcc.StockLevelLocal},
		{[]string{"--mix", "no=40,pay=40,os=5,del=5,sl=10"}, tpcc.StockLevelMajority},
		{[]string{"--mix", "readwrite", "--stock-level-read-concern", "majority"}, tpcc.StockLevelMajority},
		{[]string{"--mix", "standard", "--stock-level-read-concern", "local"}, tpcc.StockLevelLocal},
	} {
		o, _, err := benchOptions(append(append([]string{"tpcc"}, uri...), append(tt.args, "--seed", "7")...), io.Discard)
		if err != nil {
			t.Fatalf("%v: %v", tt.args, err)
		}
		cfg := o.Generator.(*tpcc.Generator).Config()
		if cfg.StockLevelReadConcern != tt.want || cfg.Seed != 7 || cfg.WriteConcern != "majority" {
			t.Errorf("%v: Stock-Level %v seed %d write concern %q, want %v, 7, majority", tt.args, cfg.StockLevelReadConcern, cfg.Seed, cfg.WriteConcern, tt.want)
		}
		if o.Clients != 16 || o.Database != "tpcc" {
			t.Errorf("tpcc defaults: %d clients, database %q; want 16 and tpcc", o.Clients, o.Database)
		}
	}
	o, _, err := benchOptions(append(append([]string{"ycsb"}, uri...), "--workload", "e", "--records", "500", "--maxscanlength", "9"), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	c := o.Generator.(*ycsb.Generator).Config()
	if o.Generator.Mix() != "e" || c.Records != 500 || c.MaxScanLength != 9 || o.Clients != 64 || o.Database != "ycsb" {
		t.Errorf("ycsb: mix %s records %d maxscanlength %d clients %d db %q", o.Generator.Mix(), c.Records, c.MaxScanLength, o.Clients, o.Database)
	}
}
