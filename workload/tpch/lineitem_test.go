package tpch

import (
	"math"
	"slices"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

func TestSparseKey(t *testing.T) {
	for _, tt := range []struct{ i, key int64 }{
		{1, 1}, {7, 7}, {8, 32}, {15, 39}, {16, 64}, {23, 71}, {24, 96},
	} {
		if got := SparseKey(tt.i); got != tt.key {
			t.Errorf("SparseKey(%d) = %d, want %d", tt.i, got, tt.key)
		}
	}
	// Only the first 8 keys of every 32 are used, the keys increase, and
	// all lie within [1, 4 x orders] (clause 4.2.3).
	prev := int64(0)
	for i := int64(1); i <= 100_000; i++ {
		k := SparseKey(i)
		if k%32 >= 8 || k <= prev || k > 4*i {
			t.Fatalf("SparseKey(%d) = %d after %d: want increasing keys k%%32 < 8 within [1, 4i]", i, k, prev)
		}
		prev = k
	}
}

func TestRetailPriceAndSuppKey(t *testing.T) {
	// P_RETAILPRICE of dbgen's first parts: 901.00, 902.00, ..., part 10
	// 910.01 (clause 4.2.3's formula).
	for _, tt := range []struct{ partkey, cents int64 }{
		{1, 90100}, {2, 90200}, {10, 91001}, {999, 189999}, {1000, 90100}, {200_000, 90000 + 20000%20001},
	} {
		if got := RetailPriceCents(tt.partkey); got != tt.cents {
			t.Errorf("RetailPriceCents(%d) = %d, want %d", tt.partkey, got, tt.cents)
		}
	}
	// PARTSUPP's suppliers of part 1 at SF 1: 2, 2502, 5002, 7502.
	for i, want := range []int64{2, 2502, 5002, 7502} {
		if got := SuppKey(1, i, 10_000); got != want {
			t.Errorf("SuppKey(1, %d, 10000) = %d, want %d", i, got, want)
		}
	}
}

func TestScaleOf(t *testing.T) {
	for _, tt := range []struct {
		sf   float64
		want Scale
		err  bool
	}{
		{1, Scale{1_500_000, 200_000, 10_000}, false},
		{0.1, Scale{150_000, 20_000, 1000}, false},
		{0.3, Scale{450_000, 60_000, 3000}, false}, // 0.3 x 1.5e6 is 449999.99...
		{MinSF, Scale{150, 20, 1}, false},
		{0.00004, Scale{}, true},
		{0, Scale{}, true},
		{-1, Scale{}, true},
		{math.NaN(), Scale{}, true},
		{MaxSF + 1, Scale{}, true},
	} {
		got, err := ScaleOf(tt.sf)
		if (err != nil) != tt.err || got != tt.want {
			t.Errorf("ScaleOf(%v) = %+v, %v; want %+v, error %v", tt.sf, got, err, tt.want, tt.err)
		}
	}
}

// sample returns all line items of scale factor sf, batch by batch.
func sample(t *testing.T, sf float64, seed int64) (Data, []LineItem) {
	t.Helper()
	d, err := NewData(sf, seed)
	if err != nil {
		t.Fatal(err)
	}
	var lines []LineItem
	for b := range d.Batches() {
		lines = d.Batch(b, lines)
	}
	return d, lines
}

// span tracks the least and greatest of a column.
type span struct{ lo, hi int64 }

func newSpan() span { return span{math.MaxInt64, math.MinInt64} }

func (s *span) add(x int64) { s.lo, s.hi = min(s.lo, x), max(s.hi, x) }

// TestLineItemRules checks every generated line item of SF 0.01 against
// clause 4.2.3's ranges and rules, and that each range is reached at both
// ends (so a range shrunk by one shows too).
func TestLineItemRules(t *testing.T) {
	d, lines := sample(t, 0.01, 1)
	s := d.Scale()
	spans := map[string]*span{}
	want := map[string]span{
		"lines per order":       {1, MaxLines},
		"partkey":               {1, s.Parts},
		"quantity":              {1, MaxQuantity},
		"discount":              {0, MaxDiscountPct},
		"tax":                   {0, MaxTaxPct},
		"orderdate":             {int64(StartDate), int64(LastOrderDate)},
		"shipdate-orderdate":    {MinShipDays, MaxShipDays},
		"commitdate-orderdate":  {MinCommitDays, MaxCommitDays},
		"receiptdate-shipdate":  {MinReceiptDays, MaxReceiptDays},
		"comment length":        {MinCommentLen, MaxCommentLen},
		"supplier choice (0-3)": {0, 3},
	}
	for k := range want {
		sp := newSpan()
		spans[k] = &sp
	}
	ids := make(map[int64]bool, len(lines))
	flags := map[string]int{}
	var orders, qty int64
	for i, l := range lines {
		if l.LineNumber == 1 {
			orders++
			if l.OrderKey != SparseKey(orders) {
				t.Fatalf("order %d has key %d, want SparseKey = %d", orders, l.OrderKey, SparseKey(orders))
			}
		} else if p := lines[i-1]; l.OrderKey != p.OrderKey || l.LineNumber != p.LineNumber+1 || l.OrderDate != p.OrderDate {
			t.Fatalf("line %+v follows %+v: want the next line number of the same order", l, p)
		}
		if i+1 == len(lines) || lines[i+1].LineNumber == 1 {
			spans["lines per order"].add(int64(l.LineNumber))
		}
		if ids[l.ID()] {
			t.Fatalf("duplicate _id %d", l.ID())
		}
		ids[l.ID()] = true
		spans["partkey"].add(l.PartKey)
		choice := int64(-1)
		for c := range 4 {
			if SuppKey(l.PartKey, c, s.Suppliers) == l.SuppKey {
				choice = int64(c)
				break
			}
		}
		if choice < 0 || l.SuppKey < 1 || l.SuppKey > s.Suppliers {
			t.Fatalf("line %+v: suppkey %d is none of part %d's 4 suppliers", l, l.SuppKey, l.PartKey)
		}
		spans["supplier choice (0-3)"].add(choice)
		spans["quantity"].add(int64(l.Quantity))
		qty += int64(l.Quantity)
		if want := int64(l.Quantity) * RetailPriceCents(l.PartKey); l.ExtendedPriceCents != want {
			t.Fatalf("line %+v: extendedprice %d cents, want quantity x P_RETAILPRICE = %d", l, l.ExtendedPriceCents, want)
		}
		spans["discount"].add(int64(l.DiscountPct))
		spans["tax"].add(int64(l.TaxPct))
		spans["orderdate"].add(int64(l.OrderDate))
		spans["shipdate-orderdate"].add(int64(l.ShipDate - l.OrderDate))
		spans["commitdate-orderdate"].add(int64(l.CommitDate - l.OrderDate))
		spans["receiptdate-shipdate"].add(int64(l.ReceiptDate - l.ShipDate))
		spans["comment length"].add(int64(len(l.Comment)))

		// L_RETURNFLAG: R or A if received by CURRENTDATE, else N.
		// L_LINESTATUS: O if shipped after CURRENTDATE, else F.
		wantFlag := "N"
		if l.ReceiptDate <= CurrentDate {
			wantFlag = "RA"
		}
		wantStatus := byte('F')
		if l.ShipDate > CurrentDate {
			wantStatus = 'O'
		}
		if !strings.ContainsRune(wantFlag, rune(l.ReturnFlag)) || l.LineStatus != wantStatus {
			t.Fatalf("line shipped %v, received %v (CURRENTDATE %v): returnflag %c, linestatus %c; want one of %s and %c",
				l.ShipDate, l.ReceiptDate, CurrentDate, l.ReturnFlag, l.LineStatus, wantFlag, wantStatus)
		}
		flags[string([]byte{l.ReturnFlag, l.LineStatus})]++
		if !slices.Contains(ShipInstructions, l.ShipInstruct) || !slices.Contains(ShipModes, l.ShipMode) {
			t.Fatalf("line %+v: shipinstruct %q or shipmode %q not in clause 4.2.2.13's lists", l, l.ShipInstruct, l.ShipMode)
		}
		for _, c := range []byte(l.Comment) {
			if c < ' ' || c > '~' {
				t.Fatalf("comment %q has a byte %#x outside printable ASCII", l.Comment, c)
			}
		}
	}
	if orders != s.Orders {
		t.Errorf("%d orders, want %d", orders, s.Orders)
	}
	for k, w := range want {
		if got := *spans[k]; got != w {
			t.Errorf("%s spans [%d, %d], want [%d, %d]", k, got.lo, got.hi, w.lo, w.hi)
		}
	}
	// Lines per order are uniform in [1, 7]: mean 4.
	if m := float64(len(lines)) / float64(orders); math.Abs(m-4) > 0.05 {
		t.Errorf("%.3f lines per order, want about 4", m)
	}
	if m := float64(qty) / float64(len(lines)); math.Abs(m-25.5) > 0.3 {
		t.Errorf("mean quantity %.2f, want about 25.5", m)
	}
	// The four (returnflag, linestatus) groups of Q1's answer, and no
	// other: a returned or accepted line was received by CURRENTDATE, so
	// shipped before it (F); N lines are either.
	if len(flags) != 4 || flags["AF"] == 0 || flags["RF"] == 0 || flags["NF"] == 0 || flags["NO"] == 0 {
		t.Errorf("groups %v, want AF, NF, NO and RF", flags)
	}
	if r := float64(flags["RF"]) / float64(flags["RF"]+flags["AF"]); math.Abs(r-0.5) > 0.02 {
		t.Errorf("R is %.3f of the received lines, want about a half", r)
	}
}

// TestDeterminism checks that every batch regenerates identically from
// (seed, batch), alone, order by order, and that Lines counts them.
func TestDeterminism(t *testing.T) {
	d, lines := sample(t, 0.002, 7)
	if n := d.Lines(); n != int64(len(lines)) {
		t.Errorf("Lines() = %d, batches hold %d", n, len(lines))
	}
	var byOrder []LineItem
	for i := int64(1); i <= d.Scale().Orders; i++ {
		byOrder = d.Order(i, byOrder)
	}
	if !slices.Equal(lines, byOrder) {
		t.Error("the batches differ from the orders generated one by one")
	}
	d2, err := NewData(0.002, 7)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range []int64{d.Batches() - 1, 3, 0} { // out of order
		lo, _ := d.BatchOrders(b)
		first := slices.IndexFunc(lines, func(l LineItem) bool { return l.OrderKey == SparseKey(lo) })
		got := d2.Batch(b, nil)
		if !slices.Equal(got, lines[first:first+len(got)]) {
			t.Errorf("batch %d regenerated differs", b)
		}
	}
	_, other := sample(t, 0.002, 8)
	if slices.Equal(lines[:100], other[:100]) {
		t.Error("seeds 7 and 8 generate the same line items")
	}
}

// TestDocument checks the stored document's fields, types and values.
func TestDocument(t *testing.T) {
	d, err := NewData(0.01, 1)
	if err != nil {
		t.Fatal(err)
	}
	l := d.Order(9, nil)[0]
	raw, err := bson.Marshal(l.Document())
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		ID           int64         `bson:"_id"`
		OrderKey     int64         `bson:"l_orderkey"`
		LineNumber   int32         `bson:"l_linenumber"`
		Quantity     int32         `bson:"l_quantity"`
		Price        float64       `bson:"l_extendedprice"`
		Discount     float64       `bson:"l_discount"`
		Tax          float64       `bson:"l_tax"`
		ReturnFlag   string        `bson:"l_returnflag"`
		LineStatus   string        `bson:"l_linestatus"`
		ShipDate     bson.DateTime `bson:"l_shipdate"`
		ReceiptDate  bson.DateTime `bson:"l_receiptdate"`
		ShipInstruct string        `bson:"l_shipinstruct"`
		Comment      string        `bson:"l_comment"`
	}
	if err := bson.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	if got.ID != SparseKey(9)*8+1 || got.OrderKey != SparseKey(9) || got.LineNumber != 1 || got.Quantity != l.Quantity ||
		got.Price != float64(l.ExtendedPriceCents)/100 || got.Discount != float64(l.DiscountPct)/100 ||
		got.Tax != float64(l.TaxPct)/100 || got.ReturnFlag != string(l.ReturnFlag) || got.LineStatus != string(l.LineStatus) ||
		DateOf(got.ShipDate.Time()) != l.ShipDate || DateOf(got.ReceiptDate.Time()) != l.ReceiptDate ||
		got.ShipInstruct != l.ShipInstruct || got.Comment != l.Comment {
		t.Errorf("document %+v does not hold line %+v", got, l)
	}
	if n := len(l.Document()); n != 17 {
		t.Errorf("document has %d fields, want _id and LINEITEM's 16 columns", n)
	}
}

// TestDocBytes keeps docBytes, the size estimate's mean document, within
// 2% of the generated documents' BSON.
func TestDocBytes(t *testing.T) {
	_, lines := sample(t, 0.002, 1)
	var total int
	for _, l := range lines {
		raw, err := bson.Marshal(l.Document())
		if err != nil {
			t.Fatal(err)
		}
		total += len(raw)
	}
	mean := float64(total) / float64(len(lines))
	if math.Abs(mean-docBytes) > 0.02*docBytes {
		t.Errorf("documents average %.1f bytes of BSON, docBytes says %d", mean, docBytes)
	}
}

func TestDates(t *testing.T) {
	for _, tt := range []struct {
		d    Date
		want string
	}{
		{StartDate, "1992-01-01"}, {CurrentDate, "1995-06-17"}, {EndDate, "1998-12-31"},
		{LastOrderDate, "1998-08-02"}, {Q1Cutoff(90), "1998-09-02"}, {Q1Cutoff(60), "1998-10-02"},
	} {
		if got := tt.d.String(); got != tt.want {
			t.Errorf("date %d = %s, want %s", tt.d, got, tt.want)
		}
	}
}
