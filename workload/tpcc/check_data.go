package tpcc

import (
	"cmp"
	"iter"
	"maps"
	"slices"
)

// checkData is what one warehouse's snapshot holds for the checks.
type checkData struct {
	w         int
	withLines bool // orders carry their line summaries
	wYTD      float64
	districts []districtRow
	customers []customerRow
	orders    []orderRow // sorted by (D, O)
	newOrders []newOrderRow
	history   []historyGroup
	// orphanLines counts, per district, ORDER_LINE documents whose order
	// does not exist (normalized schema only).
	orphanLines map[int]int64
}

type districtRow struct {
	D       int     `bson:"D_ID"`
	YTD     float64 `bson:"D_YTD"`
	NextOID int     `bson:"D_NEXT_O_ID"`
}

type customerRow struct {
	D          int     `bson:"C_D_ID"`
	C          int     `bson:"C_ID"`
	Balance    float64 `bson:"C_BALANCE"`
	YTDPayment float64 `bson:"C_YTD_PAYMENT"`
}

type orderRow struct {
	D     int `bson:"O_D_ID"`
	O     int `bson:"O_ID"`
	C     int `bson:"O_C_ID"`
	OLCnt int `bson:"O_OL_CNT"`
	// Carrier is 0 (or null, decoded as 0) while undelivered.
	Carrier int `bson:"O_CARRIER_ID"`
	// The order's lines (read only when a check needs them).
	Lines       int64 `bson:"lines"`
	Undelivered int64 `bson:"undelivered"` // OL_DELIVERY_D null
	// DeliveredAmount is sum(OL_AMOUNT) of the lines with OL_DELIVERY_D set.
	DeliveredAmount float64 `bson:"delivered_amount"`
}

type newOrderRow struct {
	D int `bson:"NO_D_ID"`
	O int `bson:"NO_O_ID"`
}

type historyGroup struct {
	ID struct {
		W  int `bson:"w"`
		D  int `bson:"d"`
		CW int `bson:"cw"`
		CD int `bson:"cd"`
		C  int `bson:"c"`
	} `bson:"_id"`
	Amount float64 `bson:"amount"`
}

// Per-district and per-customer aggregates of one warehouse.

func (d *checkData) districtMap() map[int]districtRow {
	m := make(map[int]districtRow, len(d.districts))
	for _, r := range d.districts {
		m[r.D] = r
	}
	return m
}

// customerMap returns the customers by key.
func (d *checkData) customerMap() map[custKey]customerRow {
	m := make(map[custKey]customerRow, len(d.customers))
	for _, c := range d.customers {
		m[custKey{c.D, c.C}] = c
	}
	return m
}

type custKey struct{ D, C int }

type orderKey struct{ D, O int }

// newOrderSet returns the NEW_ORDER rows as a set.
func (d *checkData) newOrderSet() map[orderKey]bool {
	m := make(map[orderKey]bool, len(d.newOrders))
	for _, r := range d.newOrders {
		m[orderKey{r.D, r.O}] = true
	}
	return m
}

// noStats is NEW_ORDER's min, max and count of one district.
type noStats struct{ min, max, n int }

func (d *checkData) newOrderStats() map[int]noStats {
	m := map[int]noStats{}
	for _, r := range d.newOrders {
		s, ok := m[r.D]
		if !ok {
			s = noStats{min: r.O, max: r.O}
		}
		s.min, s.max, s.n = min(s.min, r.O), max(s.max, r.O), s.n+1
		m[r.D] = s
	}
	return m
}

// deliveredByCustomer sums the delivered lines' OL_AMOUNT by customer.
func (d *checkData) deliveredByCustomer() map[custKey]float64 {
	m := map[custKey]float64{}
	for _, o := range d.orders {
		if o.DeliveredAmount != 0 {
			m[custKey{o.D, o.C}] += o.DeliveredAmount
		}
	}
	return m
}

// historyByDistrict sums H_AMOUNT by the district of the payment, for the
// payments made in the warehouse.
func (d *checkData) historyByDistrict() map[int]float64 {
	m := map[int]float64{}
	for _, h := range d.history {
		if h.ID.W == d.w {
			m[h.ID.D] += h.Amount
		}
	}
	return m
}

// historyByCustomer sums H_AMOUNT by customer, for the warehouse's customers.
func (d *checkData) historyByCustomer() map[custKey]float64 {
	m := map[custKey]float64{}
	for _, h := range d.history {
		if h.ID.CW == d.w {
			m[custKey{h.ID.CD, h.ID.C}] += h.Amount
		}
	}
	return m
}

// unionKeys returns the union of the key sequences (maps.Keys of maps with
// different values), ascending.
func unionKeys(seqs ...iter.Seq[int]) []int {
	seen := map[int]bool{}
	for _, seq := range seqs {
		for k := range seq {
			seen[k] = true
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

func sortedCustKeys(ms ...map[custKey]float64) []custKey {
	seen := map[custKey]bool{}
	for _, m := range ms {
		for k := range m {
			seen[k] = true
		}
	}
	keys := slices.Collect(maps.Keys(seen))
	slices.SortFunc(keys, func(a, b custKey) int { return cmp.Or(cmp.Compare(a.D, b.D), cmp.Compare(a.C, b.C)) })
	return keys
}
