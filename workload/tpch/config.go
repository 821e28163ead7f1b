package tpch

import (
	"errors"
	"fmt"
	"math"
	"strings"
)

// ErrConfig reports an invalid setting.
var ErrConfig = errors.New("tpch: invalid setting")

// Plan is how Q1 reads LINEITEM. The zero Plan is invalid.
type Plan uint8

const (
	// PlanAuto lets the query planner choose. With the index on
	// l_shipdate it is the only candidate (MongoDB's classic planner
	// considers a collection scan only when no index can serve the
	// filter), so Q1 scans the index and fetches every matching document,
	// 95-98% of them for DELTA in [60, 120]: random reads of the whole
	// collection, in the index's order.
	PlanAuto Plan = iota + 1
	// PlanIndex hints the l_shipdate index (the same plan as PlanAuto,
	// fixed).
	PlanIndex
	// PlanCollScan hints a collection scan ({$natural: 1}): every
	// document, in storage order.
	PlanCollScan
)

var planNames = [...]string{PlanAuto: "auto", PlanIndex: "index", PlanCollScan: "collscan"}

// String returns "auto", "index" or "collscan".
func (p Plan) String() string {
	if p >= PlanAuto && p <= PlanCollScan {
		return planNames[p]
	}
	return fmt.Sprintf("plan(%d)", uint8(p))
}

// ParsePlan parses "auto", "index" or "collscan".
func ParsePlan(s string) (Plan, error) {
	for p := PlanAuto; p <= PlanCollScan; p++ {
		if strings.EqualFold(strings.TrimSpace(s), planNames[p]) {
			return p, nil
		}
	}
	return 0, fmt.Errorf("%w: Q1 plan %q: want auto, index or collscan", ErrConfig, s)
}

// Config configures a TPC-H generator. Start from DefaultConfig; the zero
// Config is invalid.
type Config struct {
	// SF is the scale factor: about 6,000,000 x SF line items.
	SF float64
	// Seed makes the data and the workers' Q1 parameters reproducible.
	Seed int64
	// Collection is the LINEITEM table.
	Collection string
	// Plan is how Q1 reads the collection.
	Plan Plan
}

// Defaults: scale factor 0.1 (about 600,000 line items, some 220 MB of
// BSON), collection lineitem, the planner's choice.
const (
	DefaultSF         = 0.1
	DefaultCollection = "lineitem"
)

// DefaultConfig returns scale factor 0.1, seed 1, collection lineitem and
// the planner's plan.
func DefaultConfig() Config {
	return Config{SF: DefaultSF, Seed: 1, Collection: DefaultCollection, Plan: PlanAuto}
}

// Validate reports the first invalid setting.
func (c Config) Validate() error {
	switch {
	case math.IsNaN(c.SF) || c.SF <= 0:
		return fmt.Errorf("%w: sf %v must be above 0 (e.g. 0.05 for about 300,000 line items)", ErrConfig, c.SF)
	case c.SF < MinSF:
		return fmt.Errorf("%w: sf %v is below %v, the smallest scale factor with one supplier (SF x %d suppliers)",
			ErrConfig, c.SF, MinSF, SuppliersPerSF)
	case c.SF > MaxSF:
		return fmt.Errorf("%w: sf %v is above %d (that would be about %.0f billion line items)",
			ErrConfig, c.SF, MaxSF, c.SF*linesPerSF/1e9)
	case c.Plan < PlanAuto || c.Plan > PlanCollScan:
		return fmt.Errorf("%w: invalid Q1 plan %v", ErrConfig, c.Plan)
	case c.Collection == "":
		return fmt.Errorf("%w: collection must not be empty", ErrConfig)
	case strings.ContainsAny(c.Collection, "$\x00"):
		return fmt.Errorf("%w: collection %q must not contain '$' or NUL", ErrConfig, c.Collection)
	case strings.HasPrefix(c.Collection, "system."):
		return fmt.Errorf("%w: collection %q must not be in the system namespace", ErrConfig, c.Collection)
	}
	return nil
}

// linesPerSF is the expected line items at scale factor 1: 4 lines per
// order (uniform in [1, 7]).
const linesPerSF = 4 * OrdersPerSF

// docBytes is the mean BSON size of a line item document (measured over
// generated data; TestDocBytes keeps it honest).
const docBytes = 372

// Estimate is the expected size of a load of scale factor sf: line items
// (documents) and their BSON bytes. What the server holds on disk is less
// (compressed) and what its cache holds more (WiredTiger's in-memory
// pages); the l_shipdate index adds some 15 bytes a document.
func Estimate(sf float64) (docs, bytes int64) {
	docs = int64(sf * linesPerSF)
	return docs, docs * docBytes
}
