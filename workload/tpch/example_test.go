package tpch_test

import (
	"fmt"

	"github.com/decongestant/decongestant/workload"
	"github.com/decongestant/decongestant/workload/tpch"
)

func ExampleEstimate() {
	for _, sf := range []float64{0.05, 1, 10} {
		docs, bytes := tpch.Estimate(sf)
		fmt.Printf("SF %v: %d documents, %.0f MB of BSON\n", sf, docs, float64(bytes)/1e6)
	}
	// Output:
	// SF 0.05: 300000 documents, 112 MB of BSON
	// SF 1: 6000000 documents, 2232 MB of BSON
	// SF 10: 60000000 documents, 22320 MB of BSON
}

func ExampleData() {
	d, err := tpch.NewData(0.01, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, l := range d.Order(8, nil) {
		fmt.Println(l.OrderKey, l.LineNumber, l.ReturnFlag == 'N' || l.ReceiptDate <= tpch.CurrentDate)
	}
	_, err = workload.Configure("tpch", workload.Shared{Seed: 1}, "--sf", "0")
	fmt.Println(err)
	// Output:
	// 32 1 true
	// 32 2 true
	// 32 3 true
	// 32 4 true
	// tpch: invalid setting: sf 0 must be above 0 (e.g. 0.05 for about 300,000 line items)
}
