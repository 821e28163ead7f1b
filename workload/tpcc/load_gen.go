package tpcc

import (
	"fmt"
	"time"
)

// loadEmit receives the generated documents of a load unit, by collection.
type loadEmit func(coll string, doc any) error

// generate emits the documents of u; it is pure but for out.
func (l *loader) generate(u loadUnit, out loadEmit) error {
	sc := l.cfg.Scale
	switch u.kind {
	case itemUnit:
		lo := u.i*loadChunk + 1
		return genItems(l.rand(u.kind, u.w, u.i), lo, min(lo+loadChunk-1, sc.Items), out)
	case warehouseUnit:
		return genWarehouse(l.rand(u.kind, u.w, u.i), sc, u.w, out)
	case stockUnit:
		lo := u.i*loadChunk + 1
		return genStock(l.rand(u.kind, u.w, u.i), u.w, lo, min(lo+loadChunk-1, sc.Items), out)
	case districtUnit:
		return genDistrict(l.rand(u.kind, u.w, u.i), l.olCounts(u.w, u.i), sc, l.cfg.Schema, u.w, u.i, l.now, out)
	}
	return fmt.Errorf("unknown load unit kind %d", u.kind)
}

// genItems emits ITEM rows lo..hi (clause 4.3.3.1), with I_W_ID 0 as
// py-tpcc's unsharded loader writes them.
func genItems(r *random, lo, hi int, out loadEmit) error {
	for id := lo; id <= hi; id++ {
		it := itemDoc{
			ID:    id,
			ImID:  r.Int(1, 10000),
			Name:  r.AString(14, 24),
			Price: r.Float(1, 100, 2),
			Data:  r.Data(),
			WID:   0,
		}
		if err := out(collItem, it); err != nil {
			return err
		}
	}
	return nil
}

// genWarehouse emits WAREHOUSE row w. W_YTD is what its districts' D_YTD
// sum to (300,000.00 at standard scale), so consistency condition 1 holds
// at any scale.
func genWarehouse(r *random, sc Scale, w int, out loadEmit) error {
	return out(collWarehouse, warehouseDoc{
		ID:      w,
		Name:    r.AString(6, 10),
		Street1: r.AString(10, 20),
		Street2: r.AString(10, 20),
		City:    r.AString(10, 20),
		State:   r.AString(2, 2),
		Zip:     r.Zip(),
		Tax:     r.Float(0, 0.2, 4),
		YTD:     float64(sc.Districts*sc.Customers) * 10,
	})
}

// genStock emits the STOCK rows of items lo..hi of warehouse w.
func genStock(r *random, w, lo, hi int, out loadEmit) error {
	for id := lo; id <= hi; id++ {
		s := stockDoc{IID: id, WID: w, Quantity: r.Int(10, 100)}
		for _, f := range []*string{&s.Dist01, &s.Dist02, &s.Dist03, &s.Dist04, &s.Dist05,
			&s.Dist06, &s.Dist07, &s.Dist08, &s.Dist09, &s.Dist10} {
			*f = r.AString(24, 24)
		}
		s.Data = r.Data()
		if err := out(collStock, s); err != nil {
			return err
		}
	}
	return nil
}

// genDistrict emits DISTRICT d of warehouse w and what belongs to it: its
// customers with one HISTORY row each, its orders (O_OL_CNT from olCnt)
// with their lines (embedded or ORDER_LINE documents, per schema), and the
// NEW_ORDER rows of its last sc.NewOrders orders. Dates are now. The steps
// draw from r in this order, which is part of the data's definition.
func genDistrict(r *random, olCnt []int, sc Scale, schema Schema, w, d int, now time.Time, out loadEmit) error {
	g := districtGen{r: r, sc: sc, schema: schema, w: w, d: d, now: now, out: out}
	if err := out(collDistrict, g.district()); err != nil {
		return err
	}
	if err := g.customers(); err != nil {
		return err
	}
	return g.orders(olCnt)
}

// districtGen generates the documents of one district unit.
type districtGen struct {
	r      *random
	sc     Scale
	schema Schema
	w, d   int
	now    time.Time
	out    loadEmit
}

// district returns the DISTRICT row (clause 4.3.3.1). D_YTD is what its
// customers' HISTORY rows sum to (30,000.00 at standard scale), so
// consistency condition 3.3.2.9 holds at any scale.
func (g *districtGen) district() districtDoc {
	r := g.r
	return districtDoc{
		ID:      g.d,
		WID:     g.w,
		Name:    r.AString(6, 10),
		Street1: r.AString(10, 20),
		Street2: r.AString(10, 20),
		City:    r.AString(10, 20),
		State:   r.AString(2, 2),
		Zip:     r.Zip(),
		Tax:     r.Float(0, 0.2, 4),
		YTD:     float64(g.sc.Customers) * 10,
		NextOID: g.sc.Customers + 1,
	}
}

// customers emits the district's CUSTOMER rows, each followed by its
// HISTORY row.
func (g *districtGen) customers() error {
	for c := 1; c <= g.sc.Customers; c++ {
		if err := g.out(collCustomer, g.customer(c)); err != nil {
			return err
		}
		h := historyDoc{CID: c, CDID: g.d, CWID: g.w, DID: g.d, WID: g.w, Date: g.now, Amount: 10, Data: g.r.AString(12, 24)}
		if err := g.out(collHistory, h); err != nil {
			return err
		}
	}
	return nil
}

// customer returns CUSTOMER row c (clause 4.3.3.1): C_LAST by the load's
// rule, 10% bad credit.
func (g *districtGen) customer(c int) customerDoc {
	r := g.r
	cu := customerDoc{
		ID:      c,
		DID:     g.d,
		WID:     g.w,
		Last:    r.LoadLastName(c, g.sc.Customers),
		Middle:  "OE",
		First:   r.AString(8, 16),
		Street1: r.AString(10, 20),
		Street2: r.AString(10, 20),
		City:    r.AString(10, 20),
		State:   r.AString(2, 2),
		Zip:     r.Zip(),
		Phone:   r.NString(16, 16),
		Since:   g.now,
		Credit:  "GC",
		// C_CREDIT_LIM, C_BALANCE, C_YTD_PAYMENT, C_PAYMENT_CNT and
		// C_DELIVERY_CNT are fixed by clause 4.3.3.1.
		CreditLim:   50000,
		Balance:     -10,
		YTDPayment:  10,
		PaymentCnt:  1,
		DeliveryCnt: 0,
	}
	if r.Percent(10) {
		cu.Credit = "BC"
	}
	cu.Discount = r.Float(0, 0.5, 4)
	cu.Data = r.AString(300, 500)
	return cu
}

// orders emits the district's ORDERS rows, for a random permutation of its
// customers, with their lines (embedded or ORDER_LINE documents), and a
// NEW_ORDER row for each undelivered one.
func (g *districtGen) orders(olCnt []int) error {
	cids := g.r.Perm(g.sc.Customers)
	for o := 1; o <= g.sc.Customers; o++ {
		ord, lines := g.order(o, cids[o-1], olCnt[o-1])
		if g.schema == Denormalized {
			ord.Lines = lines
		}
		if err := g.out(collOrders, ord); err != nil {
			return err
		}
		if g.schema == Normalized {
			for _, ol := range lines {
				ol.OID, ol.DID, ol.WID = o, g.d, g.w
				if err := g.out(collOrderLine, ol); err != nil {
					return err
				}
			}
		}
		if o >= g.sc.firstNewOrder() { // undelivered
			if err := g.out(collNewOrder, newOrderDoc{OID: o, DID: g.d, WID: g.w}); err != nil {
				return err
			}
		}
	}
	return nil
}

// order returns ORDERS row o of customer cid with its n lines (clause
// 4.3.3.1). The orders before the first undelivered one are delivered: a
// carrier, and lines with OL_DELIVERY_D set and OL_AMOUNT 0.00; the others
// have neither and an OL_AMOUNT in 0.01..9999.99.
func (g *districtGen) order(o, cid, n int) (orderDoc, []orderLineDoc) {
	r := g.r
	delivered := o < g.sc.firstNewOrder()
	ord := orderDoc{ID: o, CID: cid, DID: g.d, WID: g.w, EntryD: g.now, OLCnt: n, AllLocal: 1}
	if delivered {
		ord.CarrierID = r.Int(1, 10)
	}
	lines := make([]orderLineDoc, n)
	for i := range lines {
		ol := orderLineDoc{Number: i + 1, IID: r.Int(1, g.sc.Items), SupplyWID: g.w, Quantity: 5}
		if delivered {
			ol.DeliveryD = &g.now
		} else {
			ol.Amount = r.Float(0.01, 9999.99, 2)
		}
		ol.DistInfo = r.AString(24, 24)
		lines[i] = ol
	}
	return ord, lines
}
