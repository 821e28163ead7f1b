package main

import (
	"flag"
	"io"
	"testing"

	"github.com/decongestant/decongestant/workload/tpcc"
)

// TestTPCCStockLevelReadConcernFlag checks the flag and its default per
// mix, down to the generator a run uses.
func TestTPCCStockLevelReadConcernFlag(t *testing.T) {
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
		fs := flag.NewFlagSet("bench tpcc", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		var f tpccFlags
		f.register(fs)
		if err := fs.Parse(tt.args); err != nil {
			t.Fatal(err)
		}
		cfg, err := f.config(1, "majority")
		if err != nil {
			t.Fatalf("%v: %v", tt.args, err)
		}
		g, err := tpcc.NewGenerator(cfg)
		if err != nil {
			t.Fatalf("%v: %v", tt.args, err)
		}
		if got := g.Config().StockLevelReadConcern; got != tt.want {
			t.Errorf("%v: Stock-Level read concern %v, want %v", tt.args, got, tt.want)
		}
	}
}
