package tpch

import (
	"math/rand/v2"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// LineItem is one LINEITEM row as generated (clause 4.2.3), with its
// decimals kept exact: prices in cents, discount and tax in hundredths.
// OrderDate is its order's O_ORDERDATE, which the shipping dates derive
// from; it is not a LINEITEM column and is not stored.
type LineItem struct {
	OrderKey           int64
	PartKey            int64
	SuppKey            int64
	LineNumber         int32
	Quantity           int32
	ExtendedPriceCents int64
	DiscountPct        int32
	TaxPct             int32
	ReturnFlag         byte
	LineStatus         byte
	OrderDate          Date
	ShipDate           Date
	CommitDate         Date
	ReceiptDate        Date
	ShipInstruct       string
	ShipMode           string
	Comment            string
}

// The documents' field names: TPC-H's column names in lower case.
const (
	FieldOrderKey      = "l_orderkey"
	FieldPartKey       = "l_partkey"
	FieldSuppKey       = "l_suppkey"
	FieldLineNumber    = "l_linenumber"
	FieldQuantity      = "l_quantity"
	FieldExtendedPrice = "l_extendedprice"
	FieldDiscount      = "l_discount"
	FieldTax           = "l_tax"
	FieldReturnFlag    = "l_returnflag"
	FieldLineStatus    = "l_linestatus"
	FieldShipDate      = "l_shipdate"
	FieldCommitDate    = "l_commitdate"
	FieldReceiptDate   = "l_receiptdate"
	FieldShipInstruct  = "l_shipinstruct"
	FieldShipMode      = "l_shipmode"
	FieldComment       = "l_comment"
)

// ID returns the line's _id, unique per (order key, line number):
// L_ORDERKEY * 8 + L_LINENUMBER.
func (l LineItem) ID() int64 { return l.OrderKey*8 + int64(l.LineNumber) }

// Document returns the line as stored: _id (ID), then the columns in
// TPC-H's order. Quantity is an integer, the prices, discount and tax are
// doubles (two decimals, as dbgen prints them) and the dates BSON dates at
// midnight UTC.
func (l LineItem) Document() bson.D {
	return bson.D{
		{Key: "_id", Value: l.ID()},
		{Key: FieldOrderKey, Value: l.OrderKey},
		{Key: FieldPartKey, Value: l.PartKey},
		{Key: FieldSuppKey, Value: l.SuppKey},
		{Key: FieldLineNumber, Value: l.LineNumber},
		{Key: FieldQuantity, Value: l.Quantity},
		{Key: FieldExtendedPrice, Value: l.ExtendedPrice()},
		{Key: FieldDiscount, Value: l.Discount()},
		{Key: FieldTax, Value: l.Tax()},
		{Key: FieldReturnFlag, Value: string(l.ReturnFlag)},
		{Key: FieldLineStatus, Value: string(l.LineStatus)},
		{Key: FieldShipDate, Value: bson.NewDateTimeFromTime(l.ShipDate.Time())},
		{Key: FieldCommitDate, Value: bson.NewDateTimeFromTime(l.CommitDate.Time())},
		{Key: FieldReceiptDate, Value: bson.NewDateTimeFromTime(l.ReceiptDate.Time())},
		{Key: FieldShipInstruct, Value: l.ShipInstruct},
		{Key: FieldShipMode, Value: l.ShipMode},
		{Key: FieldComment, Value: l.Comment},
	}
}

// ExtendedPrice is L_EXTENDEDPRICE as stored.
func (l LineItem) ExtendedPrice() float64 { return float64(l.ExtendedPriceCents) / 100 }

// Discount is L_DISCOUNT as stored.
func (l LineItem) Discount() float64 { return float64(l.DiscountPct) / 100 }

// Tax is L_TAX as stored.
func (l LineItem) Tax() float64 { return float64(l.TaxPct) / 100 }

// Data is the LINEITEM table of one scale factor and seed. Line items are
// generated per order, each order from its own random stream seeded from
// (seed, order number), so any order, and any load batch of
// OrdersPerBatch orders, can be regenerated alone and in any order
// (batches are loaded in parallel and regenerated to check a load).
//
// The distributions and rules are dbgen's (clause 4.2.3); the values are
// not dbgen's, whose random streams are not reproduced.
type Data struct {
	scale Scale
	seed  uint64 // the streams' seed, mixed from the user's
}

// OrdersPerBatch is the orders of one load batch, about 1000 line items.
const OrdersPerBatch = 250

// NewData returns the table of scale factor sf and seed.
func NewData(sf float64, seed int64) (Data, error) {
	s, err := ScaleOf(sf)
	if err != nil {
		return Data{}, err
	}
	x := uint64(seed) ^ 0x7470636868 // "tpchh": the data's streams differ from the workers'
	return Data{scale: s, seed: splitmix64(&x)}, nil
}

// Scale returns the table's cardinalities.
func (d Data) Scale() Scale { return d.scale }

// Batches returns the number of load batches.
func (d Data) Batches() int64 { return (d.scale.Orders + OrdersPerBatch - 1) / OrdersPerBatch }

// BatchOrders returns batch b's orders, [lo, hi) counted from 1.
func (d Data) BatchOrders(b int64) (lo, hi int64) {
	lo = 1 + b*OrdersPerBatch
	return lo, min(lo+OrdersPerBatch, d.scale.Orders+1)
}

// Batch appends the line items of batch b's orders to dst.
func (d Data) Batch(b int64, dst []LineItem) []LineItem {
	lo, hi := d.BatchOrders(b)
	g := d.newGen()
	for i := lo; i < hi; i++ {
		dst = g.order(i, dst)
	}
	return dst
}

// Order appends the line items of order i (counted from 1) to dst.
func (d Data) Order(i int64, dst []LineItem) []LineItem { return d.newGen().order(i, dst) }

// Lines counts the line items of all orders (about 4 per order): the
// document count of a load. It draws each order's line count only.
func (d Data) Lines() int64 {
	g := d.newGen()
	var n int64
	for i := int64(1); i <= d.scale.Orders; i++ {
		n += int64(g.start(i))
	}
	return n
}

// gen draws orders; its rand.Rand reads pcg, which start reseeds per
// order.
type gen struct {
	d   Data
	pcg rand.PCG
	r   *rand.Rand
}

func (d Data) newGen() *gen {
	g := &gen{d: d}
	g.r = rand.New(&g.pcg)
	return g
}

// start seeds order i's stream and draws its line count, the stream's first
// draw so that Lines need not draw more.
func (g *gen) start(i int64) int {
	g.pcg.Seed(g.d.seed, uint64(i))
	return 1 + g.r.IntN(MaxLines)
}

// order appends order i's line items, following clause 4.2.3 (dbgen's
// mk_order).
func (g *gen) order(i int64, dst []LineItem) []LineItem {
	n := g.start(i)
	r, s := g.r, g.d.scale
	key := SparseKey(i)
	// O_ORDERDATE uniform in [STARTDATE, ENDDATE - 151 days].
	orderDate := StartDate + Date(r.IntN(int(LastOrderDate-StartDate)+1))
	pool := textPool()
	for line := 1; line <= n; line++ {
		l := LineItem{OrderKey: key, LineNumber: int32(line), OrderDate: orderDate}
		l.PartKey = 1 + r.Int64N(s.Parts)
		l.SuppKey = SuppKey(l.PartKey, r.IntN(4), s.Suppliers)
		l.Quantity = int32(1 + r.IntN(MaxQuantity))
		l.ExtendedPriceCents = int64(l.Quantity) * RetailPriceCents(l.PartKey)
		l.DiscountPct = int32(r.IntN(MaxDiscountPct + 1))
		l.TaxPct = int32(r.IntN(MaxTaxPct + 1))
		l.ShipDate = orderDate + Date(between(r, MinShipDays, MaxShipDays))
		l.CommitDate = orderDate + Date(between(r, MinCommitDays, MaxCommitDays))
		l.ReceiptDate = l.ShipDate + Date(between(r, MinReceiptDays, MaxReceiptDays))
		l.ReturnFlag = 'N'
		if l.ReceiptDate <= CurrentDate {
			l.ReturnFlag = "RA"[r.IntN(2)]
		}
		l.LineStatus = 'F'
		if l.ShipDate > CurrentDate {
			l.LineStatus = 'O'
		}
		l.ShipInstruct = ShipInstructions[r.IntN(len(ShipInstructions))]
		l.ShipMode = ShipModes[r.IntN(len(ShipModes))]
		n := between(r, MinCommentLen, MaxCommentLen)
		off := r.IntN(len(pool) - n + 1)
		l.Comment = pool[off : off+n]
		dst = append(dst, l)
	}
	return dst
}

// between is uniform in [lo, hi].
func between(r *rand.Rand, lo, hi int) int { return lo + r.IntN(hi-lo+1) }

// splitmix64 is one step of SplitMix64: it advances *s and returns the next
// well-mixed 64 bits.
func splitmix64(s *uint64) uint64 {
	*s += 0x9E3779B97F4A7C15
	z := *s
	z = (z ^ z>>30) * 0xBF58476D1CE4E5B9
	z = (z ^ z>>27) * 0x94D049BB133111EB
	return z ^ z>>31
}
