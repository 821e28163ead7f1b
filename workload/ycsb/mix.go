package ycsb

import (
	"fmt"
	"strings"

	"github.com/decongestant/decongestant/workload"
)

// Mix is one of YCSB's core workloads A to F. The zero value is invalid.
type Mix uint8

// The core workloads, as YCSB's workloads/workloada..workloadf define them.
const (
	MixA Mix = iota + 1 // update heavy: 50% read, 50% update, zipfian
	MixB                // read mostly: 95% read, 5% update, zipfian
	MixC                // read only: 100% read, zipfian
	MixD                // read latest: 95% read, 5% insert, latest
	MixE                // short ranges: 95% scan, 5% insert, zipfian
	MixF                // read-modify-write: 50% read, 50% RMW, zipfian
)

// String returns the lower-case letter, e.g. "b".
func (m Mix) String() string {
	if m < MixA || m > MixF {
		return fmt.Sprintf("mix(%d)", uint8(m))
	}
	return string(rune('a' + m - MixA))
}

// ParseMix accepts a letter a..f or YCSB's file name workloada..workloadf,
// in any case.
func ParseMix(s string) (Mix, error) {
	t := strings.TrimPrefix(strings.ToLower(strings.TrimSpace(s)), "workload")
	if len(t) == 1 && t[0] >= 'a' && t[0] <= 'f' {
		return MixA + Mix(t[0]-'a'), nil
	}
	return 0, fmt.Errorf("unknown ycsb workload %q (want a..f or workloada..workloadf)", s)
}

// Distribution is YCSB's requestdistribution: how the key of a read,
// update, scan or read-modify-write is chosen. The zero value means "the
// mix's own distribution".
type Distribution uint8

const (
	// Zipfian is YCSB's scrambled zipfian (constant 0.99) over the loaded
	// records.
	Zipfian Distribution = iota + 1
	// Uniform picks any loaded record with equal probability.
	Uniform
	// Latest is YCSB's skewed-latest: a zipfian favouring the most recently
	// acknowledged inserts.
	Latest
)

// String returns "zipfian", "uniform", "latest" or "" for the zero value.
func (d Distribution) String() string {
	switch d {
	case 0:
		return ""
	case Zipfian:
		return "zipfian"
	case Uniform:
		return "uniform"
	case Latest:
		return "latest"
	}
	return fmt.Sprintf("distribution(%d)", uint8(d))
}

// ParseDistribution accepts zipfian, uniform or latest.
func ParseDistribution(s string) (Distribution, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "zipfian":
		return Zipfian, nil
	case "uniform":
		return Uniform, nil
	case "latest":
		return Latest, nil
	}
	return 0, fmt.Errorf("unknown request distribution %q (want zipfian, uniform or latest)", s)
}

// operation is one kind of YCSB transaction.
type operation uint8

const (
	opRead operation = iota + 1
	opUpdate
	opInsert
	opScan
	opReadModifyWrite
)

// ops maps an operation to the workload.Op the worker reports. The names are
// YCSB's measurement names; a read-modify-write counts as a write.
var ops = [...]workload.Op{
	opRead:            {Name: "READ", Class: workload.Read},
	opUpdate:          {Name: "UPDATE", Class: workload.Write},
	opInsert:          {Name: "INSERT", Class: workload.Write},
	opScan:            {Name: "SCAN", Class: workload.Read},
	opReadModifyWrite: {Name: "READ-MODIFY-WRITE", Class: workload.Write},
}

func (o operation) op() workload.Op { return ops[o] }

// share is one entry of YCSB's DiscreteGenerator: an operation and its
// proportion.
type share struct {
	op         operation
	proportion float64
}

// mixes holds the proportions of workloads/workloada..f, in YCSB's order
// (read, update, insert, scan, read-modify-write), and the request
// distribution of each.
var mixes = [...]struct {
	shares []share
	dist   Distribution
}{
	MixA: {[]share{{opRead, 0.5}, {opUpdate, 0.5}}, Zipfian},
	MixB: {[]share{{opRead, 0.95}, {opUpdate, 0.05}}, Zipfian},
	MixC: {[]share{{opRead, 1}}, Zipfian},
	MixD: {[]share{{opRead, 0.95}, {opInsert, 0.05}}, Latest},
	MixE: {[]share{{opInsert, 0.05}, {opScan, 0.95}}, Zipfian},
	MixF: {[]share{{opRead, 0.5}, {opReadModifyWrite, 0.5}}, Zipfian},
}

// distribution is the mix's requestdistribution.
func (m Mix) distribution() Distribution { return mixes[m].dist }

// chooseOp is YCSB's DiscreteGenerator for the mix: u, uniform in [0, 1),
// scaled by the sum of the proportions, falls into one operation's share.
// It is pure so the proportions can be checked without a database.
func chooseOp(m Mix, u float64) operation {
	shares := mixes[m].shares
	var sum float64
	for _, s := range shares {
		sum += s.proportion
	}
	v := u * sum
	for _, s := range shares {
		if v < s.proportion {
			return s.op
		}
		v -= s.proportion
	}
	return shares[len(shares)-1].op // rounding at u close to 1
}
