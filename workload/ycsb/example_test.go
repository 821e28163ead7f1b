package ycsb_test

import (
	"fmt"

	"github.com/decongestant/decongestant/workload"
	"github.com/decongestant/decongestant/workload/ycsb"
)

func ExampleKey() {
	for keynum := range int64(3) {
		fmt.Println(ycsb.Key(keynum))
	}
	// Output:
	// user6284781860667377211
	// user8517097267634966620
	// user1820151046732198393
}

func ExampleFlags() {
	g, err := workload.Configure("ycsb", workload.Shared{Seed: 1}, "--workload", "workloadd", "--records", "1000")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(g.Name(), g.Mix())
	if err := g.SetMix("b"); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(g.Mix())

	_, err = workload.Configure("ycsb", workload.Shared{Seed: 1}, "--fieldlength", "0")
	fmt.Println(err)
	// Output:
	// ycsb d
	// b
	// ycsb: fieldlength must be at least 1, got 0
}
