package tpcc

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
)

// The consistency conditions of TPC-C clause 3.3.2, adapted to both schemas.
//
// Check reads the database warehouse by warehouse. Each warehouse is read in
// one snapshot session (read concern snapshot, one atClusterTime for all its
// reads), so the conditions hold while transactions run: every TPC-C
// transaction commits atomically, and a snapshot sees all of it or none of
// it. What one warehouse's conditions need is in that warehouse's documents,
// with one exception handled by the choice of key: a Payment to a remote
// customer writes HISTORY with H_W_ID of the paying warehouse and H_C_W_ID of
// the customer's, so the warehouse and district sums (3.3.2.8, 3.3.2.9) take
// HISTORY by H_W_ID and the customer sums (3.3.2.10) by H_C_W_ID, both read
// in the warehouse's snapshot.
//
// The aggregation runs on the server: per order it returns O_OL_CNT, the
// number of lines, the number of undelivered lines and the amount of the
// delivered ones ($size and $filter over the embedded ORDER_LINE array in the
// denormalized schema, a $group of ORDER_LINE by order in the normalized
// one), and HISTORY comes back summed by (warehouse, district, customer). The
// comparisons are pure functions of those rows (checkData), one per clause.
//
// Money is float64, so money conditions compare with a tolerance of half a
// cent per term of the condition (moneyTolerance): 0.01 for a two-term
// equality such as W_YTD = sum(D_YTD), 0.015 for the three terms of 3.3.2.10
// and 3.3.2.12. A sum counts as one term: the server adds H_AMOUNT and
// OL_AMOUNT in double precision with compensated summation, far below a cent.

// ErrEmpty reports a database without TPC-C data: its WAREHOUSE collection
// is empty or missing.
var ErrEmpty = errors.New("tpcc: database holds no TPC-C data")

// CheckStatus is the outcome of one consistency condition. The zero value is
// invalid.
type CheckStatus uint8

const (
	// Pass: the condition holds for every key.
	Pass CheckStatus = iota + 1
	// Fail: at least one key violates the condition.
	Fail
	// Skipped: the condition does not apply to the database's state.
	Skipped
)

// String returns "pass", "fail" or "skipped".
func (s CheckStatus) String() string {
	switch s {
	case Pass:
		return "pass"
	case Fail:
		return "fail"
	case Skipped:
		return "skipped"
	}
	return fmt.Sprintf("status(%d)", uint8(s))
}

// MarshalText encodes the status as its String, so JSON holds "pass".
func (s CheckStatus) MarshalText() ([]byte, error) {
	if s < Pass || s > Skipped {
		return nil, fmt.Errorf("tpcc: invalid check status %d", uint8(s))
	}
	return []byte(s.String()), nil
}

// UnmarshalText accepts what MarshalText produces.
func (s *CheckStatus) UnmarshalText(b []byte) error {
	for _, v := range []CheckStatus{Pass, Fail, Skipped} {
		if string(b) == v.String() {
			*s = v
			return nil
		}
	}
	return fmt.Errorf("tpcc: unknown check status %q (want pass, fail or skipped)", b)
}

// CheckResult is the outcome of one consistency condition over the whole
// database.
type CheckResult struct {
	// Clause is the condition's clause, e.g. "3.3.2.1".
	Clause string `json:"clause"`
	// Name is the condition, e.g. "W_YTD = sum(D_YTD)".
	Name   string      `json:"name"`
	Status CheckStatus `json:"status"`
	// Detail is, on Fail, the first offending key (warehouses ascending)
	// with its values, e.g. "W_ID=2 D_ID=7: D_NEXT_O_ID-1=3005,
	// max(O_ID)=3004"; on Skipped, why.
	Detail string `json:"detail,omitempty"`
	// Violations is the number of offending keys (warehouses, districts,
	// orders or customers, per the condition's key).
	Violations int64 `json:"violations"`
	// Duration is the time spent on the condition, summed over warehouses:
	// reading the data it needs plus comparing. Data several conditions
	// need is read once and its read time counted in each of them, so the
	// durations add up to more than Check's wall time.
	Duration time.Duration `json:"duration_ns"`
}

// CheckOptions select what Check verifies and how to read the database.
type CheckOptions struct {
	// Schema and Scale are those the database was loaded with. A zero
	// Schema or Scale is taken from the load metadata (Loaded).
	Schema Schema
	Scale  Scale
	// Only lists the clauses to check ("3.3.2.1" … "3.3.2.12"); empty
	// means all.
	Only []string
}

// CheckClauses returns the clauses Check knows, in order: "3.3.2.1" …
// "3.3.2.12".
func CheckClauses() []string {
	ids := make([]string, len(checks))
	for i, c := range checks {
		ids[i] = c.clause
	}
	return ids
}

// checkSource is a set of per-warehouse reads.
type checkSource uint8

const (
	srcWarehouse checkSource = 1 << iota // W_YTD
	srcDistrict                          // D_YTD, D_NEXT_O_ID
	srcCustomer                          // C_BALANCE, C_YTD_PAYMENT
	srcOrders                            // O_ID, O_C_ID, O_CARRIER_ID, O_OL_CNT
	srcLines                             // per order: lines, undelivered lines, delivered amount (with srcOrders)
	srcNewOrder                          // NO_D_ID, NO_O_ID
	srcHistory                           // sum(H_AMOUNT) by payment district and by customer
)

// consistencyCheck is one condition: what it reads and how it compares.
type consistencyCheck struct {
	clause, name string
	needs        checkSource
	run          func(d *checkData, sc Scale) checkFinding
}

var checks = [...]consistencyCheck{
	{"3.3.2.1", "W_YTD = sum(D_YTD)", srcWarehouse | srcDistrict, check3321},
	{"3.3.2.2", "D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID)", srcDistrict | srcOrders | srcNewOrder, check3322},
	{"3.3.2.3", "max(NO_O_ID) - min(NO_O_ID) + 1 = count(NEW_ORDER)", srcNewOrder, check3323},
	{"3.3.2.4", "sum(O_OL_CNT) = count(ORDER_LINE)", srcOrders | srcLines, check3324},
	{"3.3.2.5", "O_CARRIER_ID null iff a NEW_ORDER row exists", srcOrders | srcNewOrder, check3325},
	{"3.3.2.6", "O_OL_CNT = count(ORDER_LINE) per order", srcOrders | srcLines, check3326},
	{"3.3.2.7", "OL_DELIVERY_D null iff O_CARRIER_ID null", srcOrders | srcLines, check3327},
	{"3.3.2.8", "W_YTD = sum(H_AMOUNT)", srcWarehouse | srcHistory, check3328},
	{"3.3.2.9", "D_YTD = sum(H_AMOUNT)", srcDistrict | srcHistory, check3329},
	{"3.3.2.10", "C_BALANCE = sum(delivered OL_AMOUNT) - sum(H_AMOUNT)", srcCustomer | srcOrders | srcLines | srcHistory, check33210},
	{"3.3.2.11", "count(ORDERS) - count(NEW_ORDER) = initial orders - initial new orders", srcOrders | srcNewOrder, check33211},
	{"3.3.2.12", "C_BALANCE + C_YTD_PAYMENT = sum(delivered OL_AMOUNT)", srcCustomer | srcOrders | srcLines, check33212},
}

// Check verifies the consistency conditions of TPC-C clause 3.3.2 (or those
// in o.Only) on db, reading each warehouse in its own snapshot so it may run
// while transactions do. A condition that does not hold is a result with
// Status Fail, not an error; Check returns an error for invalid options
// (wrapping ErrConfig), a database without warehouses (wrapping ErrEmpty)
// and failed reads. A warehouse whose snapshot fails with SnapshotTooOld,
// SnapshotUnavailable or a network error is read once more in a new
// snapshot. Reads use db's read preference; a zero o.Schema or o.Scale is
// taken from the load metadata. Results are in clause order.
func Check(ctx context.Context, db *mongo.Database, o CheckOptions) ([]CheckResult, error) {
	selected, err := selectChecks(o.Only)
	if err != nil {
		return nil, err
	}
	warehouses, err := listWarehouses(ctx, db)
	if err != nil {
		return nil, err
	}
	if o.Schema == 0 || o.Scale == (Scale{}) {
		info, ok, err := Loaded(ctx, db)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, fmt.Errorf("%w: database %q has no load metadata: give the schema and scale to check", ErrConfig, db.Name())
		}
		if o.Schema == 0 {
			o.Schema = info.Schema
		}
		if o.Scale == (Scale{}) {
			o.Scale = info.Scale
		}
	}
	if o.Schema != Denormalized && o.Schema != Normalized {
		return nil, fmt.Errorf("%w: check: invalid schema %v", ErrConfig, o.Schema)
	}
	if err := o.Scale.Validate(); err != nil {
		return nil, fmt.Errorf("%w: check: %v", ErrConfig, err)
	}

	var needs checkSource
	for _, c := range selected {
		needs |= c.needs
	}
	results := make([]CheckResult, len(selected))
	merged := make([]checkFinding, len(selected))
	for i, c := range selected {
		results[i] = CheckResult{Clause: c.clause, Name: c.name}
	}
	for _, w := range warehouses {
		d, readTime, err := readWarehouseRetry(ctx, db, o.Schema, w, needs)
		if err != nil {
			return nil, err
		}
		for i, c := range selected {
			start := time.Now()
			merged[i].merge(c.run(d, o.Scale))
			results[i].Duration += time.Since(start)
			for src, t := range readTime {
				if c.needs&src != 0 {
					results[i].Duration += t
				}
			}
		}
	}
	for i := range results {
		f := merged[i]
		results[i].Violations = f.violations
		switch {
		case f.violations > 0:
			results[i].Status, results[i].Detail = Fail, f.detail
		case f.skip != "":
			results[i].Status, results[i].Detail = Skipped, f.skip
		default:
			results[i].Status = Pass
		}
	}
	return results, nil
}

// selectChecks returns the checks of only (all when empty), in clause
// order, or an error naming an unknown clause and the valid ones.
func selectChecks(only []string) ([]consistencyCheck, error) {
	if len(only) == 0 {
		return checks[:], nil
	}
	want := map[string]bool{}
	for _, id := range only {
		id = strings.TrimSpace(id)
		if !slices.ContainsFunc(checks[:], func(c consistencyCheck) bool { return c.clause == id }) {
			return nil, fmt.Errorf("%w: unknown consistency condition %q (valid: %s)", ErrConfig, id, strings.Join(CheckClauses(), ", "))
		}
		want[id] = true
	}
	var sel []consistencyCheck
	for _, c := range checks {
		if want[c.clause] {
			sel = append(sel, c)
		}
	}
	return sel, nil
}

// checkFinding is a condition's outcome on one warehouse, or merged over
// several.
type checkFinding struct {
	violations int64
	detail     string // the first violation
	skip       string // non-empty: the condition did not apply somewhere, and why
}

func (f *checkFinding) violate(format string, a ...any) {
	if f.violations == 0 {
		f.detail = fmt.Sprintf(format, a...)
	}
	f.violations++
}

func (f *checkFinding) merge(g checkFinding) {
	if f.violations == 0 {
		f.detail = g.detail
	}
	f.violations += g.violations
	if f.skip == "" {
		f.skip = g.skip
	}
}
