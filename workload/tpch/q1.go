package tpch

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/decongestant/decongestant/workload"
)

// Q1 is TPC-H's Pricing Summary Report Query (clause 2.4.1), the query of
// the read-hints paper's TPC-H experiment (§4.11.2): it reports the
// amount of business billed, shipped and returned, scanning nearly all of
// LINEITEM.
//
//	select l_returnflag, l_linestatus, sum(l_quantity) as sum_qty,
//	       sum(l_extendedprice) as sum_base_price,
//	       sum(l_extendedprice*(1-l_discount)) as sum_disc_price,
//	       sum(l_extendedprice*(1-l_discount)*(1+l_tax)) as sum_charge,
//	       avg(l_quantity) as avg_qty, avg(l_extendedprice) as avg_price,
//	       avg(l_discount) as avg_disc, count(*) as count_order
//	from lineitem
//	where l_shipdate <= date '1998-12-01' - interval '[DELTA]' day (3)
//	group by l_returnflag, l_linestatus
//	order by l_returnflag, l_linestatus;
type Q1 struct {
	coll workload.ReadCollection
	opts *options.AggregateOptionsBuilder
}

// NewQ1 returns Q1 on coll (a routed collection, or a plain one) read with
// plan.
func NewQ1(coll workload.ReadCollection, plan Plan) *Q1 {
	q := &Q1{coll: coll, opts: options.Aggregate()}
	if h := plan.hint(); h != nil {
		q.opts.SetHint(h)
	}
	return q
}

// hint is the aggregation's hint for p: none, the l_shipdate index's name
// or {$natural: 1}.
func (p Plan) hint() any {
	switch p {
	case PlanIndex:
		return ShipDateIndex
	case PlanCollScan:
		return bson.D{{Key: "$natural", Value: 1}}
	}
	return nil
}

// Q1Row is one row of Q1's answer.
type Q1Row struct {
	ReturnFlag   string  `bson:"l_returnflag"`
	LineStatus   string  `bson:"l_linestatus"`
	SumQty       int64   `bson:"sum_qty"`
	SumBasePrice float64 `bson:"sum_base_price"`
	SumDiscPrice float64 `bson:"sum_disc_price"`
	SumCharge    float64 `bson:"sum_charge"`
	AvgQty       float64 `bson:"avg_qty"`
	AvgPrice     float64 `bson:"avg_price"`
	AvgDisc      float64 `bson:"avg_disc"`
	CountOrder   int64   `bson:"count_order"`
}

// Q1Pipeline returns Q1 as an aggregation pipeline for delta.
func Q1Pipeline(delta int) bson.A {
	price := "$" + FieldExtendedPrice
	discPrice := bson.D{{Key: "$multiply", Value: bson.A{price, bson.D{{Key: "$subtract", Value: bson.A{1, "$" + FieldDiscount}}}}}}
	charge := bson.D{{Key: "$multiply", Value: bson.A{discPrice, bson.D{{Key: "$add", Value: bson.A{1, "$" + FieldTax}}}}}}
	sum := func(x any) bson.D { return bson.D{{Key: "$sum", Value: x}} }
	avg := func(x any) bson.D { return bson.D{{Key: "$avg", Value: x}} }
	return bson.A{
		bson.D{{Key: "$match", Value: bson.D{{Key: FieldShipDate, Value: bson.D{
			{Key: "$lte", Value: bson.NewDateTimeFromTime(Q1Cutoff(delta).Time())}}}}}},
		bson.D{{Key: "$group", Value: bson.D{
			{Key: "_id", Value: bson.D{{Key: "f", Value: "$" + FieldReturnFlag}, {Key: "s", Value: "$" + FieldLineStatus}}},
			{Key: "sum_qty", Value: sum("$" + FieldQuantity)},
			{Key: "sum_base_price", Value: sum(price)},
			{Key: "sum_disc_price", Value: sum(discPrice)},
			{Key: "sum_charge", Value: sum(charge)},
			{Key: "avg_qty", Value: avg("$" + FieldQuantity)},
			{Key: "avg_price", Value: avg(price)},
			{Key: "avg_disc", Value: avg("$" + FieldDiscount)},
			{Key: "count_order", Value: sum(1)},
		}}},
		bson.D{{Key: "$project", Value: bson.D{
			{Key: "_id", Value: 0},
			{Key: FieldReturnFlag, Value: "$_id.f"},
			{Key: FieldLineStatus, Value: "$_id.s"},
			{Key: "sum_qty", Value: 1}, {Key: "sum_base_price", Value: 1}, {Key: "sum_disc_price", Value: 1},
			{Key: "sum_charge", Value: 1}, {Key: "avg_qty", Value: 1}, {Key: "avg_price", Value: 1},
			{Key: "avg_disc", Value: 1}, {Key: "count_order", Value: 1},
		}}},
		bson.D{{Key: "$sort", Value: bson.D{{Key: FieldReturnFlag, Value: 1}, {Key: FieldLineStatus, Value: 1}}}},
	}
}

// Run runs Q1 for delta and returns its rows.
func (q *Q1) Run(ctx context.Context, delta int) ([]Q1Row, error) {
	cur, err := q.coll.Aggregate(ctx, Q1Pipeline(delta), q.opts)
	if err != nil {
		return nil, err
	}
	var rows []Q1Row
	if err := cur.All(ctx, &rows); err != nil {
		return nil, err
	}
	return rows, nil
}

// ComputeQ1 computes Q1's answer for delta over lines, as a reference for
// the aggregation's: the sums and averages are over the stored doubles,
// so they agree with the server's up to the order of the additions.
func ComputeQ1(lines []LineItem, delta int) []Q1Row {
	cutoff := Q1Cutoff(delta)
	type acc struct {
		row     Q1Row
		sumDisc float64
	}
	groups := map[[2]byte]*acc{}
	for _, l := range lines {
		if l.ShipDate > cutoff {
			continue
		}
		k := [2]byte{l.ReturnFlag, l.LineStatus}
		a := groups[k]
		if a == nil {
			a = &acc{row: Q1Row{ReturnFlag: string(l.ReturnFlag), LineStatus: string(l.LineStatus)}}
			groups[k] = a
		}
		price, disc := l.ExtendedPrice(), l.Discount()
		a.row.SumQty += int64(l.Quantity)
		a.row.SumBasePrice += price
		a.row.SumDiscPrice += price * (1 - disc)
		a.row.SumCharge += price * (1 - disc) * (1 + l.Tax())
		a.sumDisc += disc
		a.row.CountOrder++
	}
	rows := make([]Q1Row, 0, len(groups))
	for _, a := range groups {
		r := a.row
		n := float64(r.CountOrder)
		r.AvgQty, r.AvgPrice, r.AvgDisc = float64(r.SumQty)/n, r.SumBasePrice/n, a.sumDisc/n
		rows = append(rows, r)
	}
	sort.Slice(rows, func(i, j int) bool {
		if rows[i].ReturnFlag != rows[j].ReturnFlag {
			return rows[i].ReturnFlag < rows[j].ReturnFlag
		}
		return rows[i].LineStatus < rows[j].LineStatus
	})
	return rows
}

// ErrNoRows reports a Q1 that found no line items: the collection is
// empty or missing on the member that answered.
var ErrNoRows = errors.New("tpch: Q1 returned no rows (is LINEITEM loaded?)")

// opQ1 is the worker's only operation.
var opQ1 = workload.Op{Name: "Q1", Class: workload.Read}

// worker is one closed-loop client running Q1 with a random DELTA.
type worker struct {
	q1  *Q1
	rng *rand.Rand
}

var _ workload.Worker = (*worker)(nil)

// Do runs Q1 once, with DELTA uniform in [60, 120] (clause 2.4.1.3), and
// reads its whole answer.
func (w *worker) Do(ctx context.Context) (workload.Op, error) {
	delta := between(w.rng, MinQ1Delta, MaxQ1Delta)
	rows, err := w.q1.Run(ctx, delta)
	if err != nil {
		return opQ1, fmt.Errorf("tpch: Q1 (delta %d): %w", delta, err)
	}
	if len(rows) == 0 {
		return opQ1, fmt.Errorf("%w: delta %d", ErrNoRows, delta)
	}
	return opQ1, nil
}
