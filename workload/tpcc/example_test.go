package tpcc_test

import (
	"errors"
	"fmt"

	"github.com/decongestant/decongestant/workload"
	"github.com/decongestant/decongestant/workload/tpcc"
)

func ExampleParseMix() {
	for _, s := range []string{"standard", "readwrite", "no=40,pay=40,os=5,del=5,sl=10", "no=50,pay=40"} {
		w, err := tpcc.ParseMix(s)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(w, [5]int(w))
	}
	// Output:
	// standard [45 43 4 4 4]
	// readwrite [22 20 4 4 50]
	// no=40,pay=40,os=5,del=5,sl=10 [40 40 5 5 10]
	// tpcc: mix weights "no=50,pay=40" sum to 90, not 100
}

// A configuration is validated once, by NewGenerator; a zero
// StockLevelReadConcern takes the mix's default.
func ExampleNewGenerator() {
	cfg := tpcc.DefaultConfig()
	cfg.Warehouses = 4
	cfg.Scale = tpcc.SmallScale()
	cfg.Mix = tpcc.ReadWriteMix
	g, err := tpcc.NewGenerator(cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(g.Name(), g.Mix(), g.Config().StockLevelReadConcern)

	cfg.Warehouses = 0
	_, err = tpcc.NewGenerator(cfg)
	fmt.Println(errors.Is(err, tpcc.ErrConfig), err)
	// Output:
	// tpcc readwrite local
	// true tpcc: warehouses 0 must be at least 1
}

// The registered workload declares its settings as flags, the same ones
// `decongestant bench tpcc` takes.
func ExampleFlags() {
	g, err := workload.Configure(tpcc.Name, workload.Shared{Seed: 1, WriteConcern: "majority"},
		"--warehouses", "2", "--mix", "readwrite", "--schema", "normalized")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(g.Name(), g.Mix(), g.(*tpcc.Generator).Config().Schema)

	_, err = workload.Configure(tpcc.Name, workload.Shared{Seed: 1}, "--warehouses", "0")
	fmt.Println(err)
	// Output:
	// tpcc readwrite normalized
	// tpcc: --warehouses 0 must be at least 1
}
