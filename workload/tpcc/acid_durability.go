package tpcc

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readconcern"
)

// The durability test of TPC-C clause 3.5.4 as the TPC-C-on-MongoDB paper
// ran it (§4.6.5): New-Orders commit with write concern majority from a few
// clients while the primary crashes (SIGKILL) and another member is
// elected; every New-Order a client saw acknowledged must then be in the
// database, whole. The paper compared the count of records with its
// clients' output; this test compares order by order. The killed member is
// restarted and the set is healthy again before the test ends, failure or
// not.

// ackedOrder is a New-Order a client saw committed: its key, and its
// customer and entry date, which tell it from an order that took the same
// number after a rollback.
type ackedOrder struct {
	W, D, O int
	C       int
	Entry   time.Time
}

func (a ackedOrder) String() string { return fmt.Sprintf("W_ID=%d D_ID=%d O_ID=%d", a.W, a.D, a.O) }

// storedOrder is an ORDERS row as read after the crash: its customer,
// entry date, O_OL_CNT, its lines and whether its NEW_ORDER row exists.
type storedOrder struct {
	C        int
	Entry    time.Time
	OLCnt    int
	Lines    int
	NewOrder bool
}

// ackedKey is (W_ID, D_ID, O_ID).
type ackedKey [3]int

// checkDurable is the check of clause 3.5.4: every acknowledged order is
// stored once, with its O_OL_CNT lines and its NEW_ORDER row (no Delivery
// runs during the test). It returns the number of acknowledged orders lost
// or damaged and a line per problem.
func checkDurable(acked []ackedOrder, stored map[ackedKey][]storedOrder) (bad int, problems []string) {
	for _, a := range acked {
		var match []storedOrder
		for _, s := range stored[ackedKey{a.W, a.D, a.O}] {
			if s.C == a.C && s.Entry.Equal(a.Entry) {
				match = append(match, s)
			}
		}
		var p string
		switch {
		case len(match) == 0:
			p = a.String() + " missing"
		case len(match) > 1:
			p = fmt.Sprintf("%s stored %d times", a, len(match))
		case match[0].Lines != match[0].OLCnt || match[0].Lines == 0:
			p = fmt.Sprintf("%s has %d of its %d lines", a, match[0].Lines, match[0].OLCnt)
		case !match[0].NewOrder:
			p = a.String() + " has no NEW_ORDER row"
		}
		if p != "" {
			bad++
			problems = append(problems, p)
		}
	}
	return bad, problems
}

// testDurability is clause 3.5.4. Planted: the New-Orders commit with w:1
// (the tests' failover also cuts the secondaries off before the kill, so
// the last acknowledged orders exist on the killed primary alone).
func testDurability(ctx context.Context, e *acidEnv) (f acidFinding) {
	o := e.o.Durability
	o.Clients = cmp.Or(o.Clients, 4)
	o.BeforeKill = cmp.Or(o.BeforeKill, 20)
	o.AfterKill = cmp.Or(o.AfterKill, 20)
	fo := e.o.Failover
	if fo == nil || fo.KillPrimary == nil || fo.Restart == nil {
		f.skip = "no way to kill the primary was given"
		return f
	}
	wc := "majority"
	if e.planted {
		wc = "1"
	}
	ws, err := e.workersN(o.Clients, func(c *Config) { c.WriteConcern = wc })
	if err != nil {
		return failed(f, "workers", err)
	}

	var (
		mu         sync.Mutex
		acked      []ackedOrder
		ackedAfter int
		killed     bool
		errs       int
	)
	count := func() (int, int) {
		mu.Lock()
		defer mu.Unlock()
		return len(acked), ackedAfter
	}
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	var wg sync.WaitGroup
	for _, w := range ws {
		wg.Go(func() {
			for runCtx.Err() == nil {
				in := w.drawNewOrder()
				in.EntryD = in.EntryD.Truncate(time.Millisecond) // as stored
				res, _, err := w.newOrderTxn(runCtx, in)
				mu.Lock()
				switch {
				case err != nil:
					errs++
				case !res.RolledBack:
					acked = append(acked, ackedOrder{W: in.WID, D: in.DID, O: res.OID, C: in.CID, Entry: in.EntryD})
					if killed {
						ackedAfter++
					}
				}
				mu.Unlock()
				if err != nil { // no primary yet: try again shortly
					select {
					case <-runCtx.Done():
					case <-time.After(20 * time.Millisecond):
					}
				}
			}
		})
	}
	halt := func() { stop(); wg.Wait() }
	if err := until(ctx, func() bool { n, _ := count(); return n >= o.BeforeKill }); err != nil {
		halt()
		n, _ := count()
		return failed(f, fmt.Sprintf("waiting for %d acknowledged New-Orders (have %d)", o.BeforeKill, n), err)
	}
	member, err := fo.KillPrimary(ctx)
	if err != nil {
		halt()
		return failed(f, "kill the primary", err)
	}
	restarted := false
	restart := func() error {
		restarted = true
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Minute)
		defer cancel()
		return fo.Restart(rctx, member)
	}
	defer func() {
		if !restarted {
			if err := restart(); err != nil {
				f.violate("restart %s: %v", member, err)
			}
		}
	}()
	mu.Lock()
	killed = true
	beforeKill := len(acked)
	mu.Unlock()
	if err := until(ctx, func() bool { _, n := count(); return n >= o.AfterKill }); err != nil {
		halt()
		_, n := count()
		return failed(f, fmt.Sprintf("waiting for %d New-Orders acknowledged by a new primary after %s was killed (have %d)", o.AfterKill, member, n), err)
	}
	halt()
	if err := restart(); err != nil {
		return failed(f, "restart "+member, err)
	}
	stored, err := readStoredOrders(ctx, e.db, e.cfg.Schema, acked)
	if err != nil {
		return failed(f, "read the acknowledged orders", err)
	}
	bad, problems := checkDurable(acked, stored)
	if bad > 0 {
		const show = 10
		list := strings.Join(problems[:min(len(problems), show)], ", ")
		if len(problems) > show {
			list += fmt.Sprintf(", and %d more", len(problems)-show)
		}
		f.violate("%d of %d acknowledged New-Orders (write concern %s) not stored whole after %s was killed: %s", bad, len(acked), wc, member, list)
	}
	f.note("%s killed after %d acknowledged New-Orders; %d acknowledged in all (write concern %s, %d clients, %d attempts failed during the failover), every one stored with its lines and NEW_ORDER row; %s restarted",
		member, beforeKill, len(acked), wc, o.Clients, errs, member)
	return f
}

// until polls cond every 20 ms until it holds or ctx ends.
func until(ctx context.Context, cond func() bool) error {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
	return nil
}

// readStoredOrders reads, with read concern majority, the ORDERS rows
// (with their line counts) and NEW_ORDER rows of the acknowledged orders'
// keys.
func readStoredOrders(ctx context.Context, db *mongo.Database, schema Schema, acked []ackedOrder) (map[ackedKey][]storedOrder, error) {
	rc := options.Collection().SetReadConcern(readconcern.Majority())
	orders, lines, newOrders := db.Collection(collOrders, rc), db.Collection(collOrderLine, rc), db.Collection(collNewOrder, rc)
	byDistrict := map[[2]int][]int{}
	for _, a := range acked {
		k := [2]int{a.W, a.D}
		byDistrict[k] = append(byDistrict[k], a.O)
	}
	keys := make([][2]int, 0, len(byDistrict))
	for k := range byDistrict {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b [2]int) int { return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1])) })
	stored := map[ackedKey][]storedOrder{}
	for _, k := range keys {
		oids := byDistrict[k]
		cur, err := orders.Find(ctx, bson.D{{Key: "O_W_ID", Value: k[0]}, {Key: "O_D_ID", Value: k[1]}, {Key: "O_ID", Value: bson.D{{Key: "$in", Value: oids}}}})
		if err != nil {
			return nil, err
		}
		var os []orderDoc
		if err := cur.All(ctx, &os); err != nil {
			return nil, err
		}
		nLines := map[int]int{}
		if schema == Normalized {
			cur, err := lines.Find(ctx, bson.D{{Key: "OL_W_ID", Value: k[0]}, {Key: "OL_D_ID", Value: k[1]}, {Key: "OL_O_ID", Value: bson.D{{Key: "$in", Value: oids}}}},
				options.Find().SetProjection(bson.D{{Key: "_id", Value: 0}, {Key: "OL_O_ID", Value: 1}}))
			if err != nil {
				return nil, err
			}
			var ls []orderLineDoc
			if err := cur.All(ctx, &ls); err != nil {
				return nil, err
			}
			for _, l := range ls {
				nLines[l.OID]++
			}
		}
		cur, err = newOrders.Find(ctx, bson.D{{Key: "NO_W_ID", Value: k[0]}, {Key: "NO_D_ID", Value: k[1]}, {Key: "NO_O_ID", Value: bson.D{{Key: "$in", Value: oids}}}})
		if err != nil {
			return nil, err
		}
		var nos []newOrderDoc
		if err := cur.All(ctx, &nos); err != nil {
			return nil, err
		}
		hasNO := map[int]bool{}
		for _, no := range nos {
			hasNO[no.OID] = true
		}
		for _, o := range os {
			n := len(o.Lines)
			if schema == Normalized {
				n = nLines[o.ID]
			}
			key := ackedKey{o.WID, o.DID, o.ID}
			stored[key] = append(stored[key], storedOrder{C: o.CID, Entry: o.EntryD, OLCnt: o.OLCnt, Lines: n, NewOrder: hasNO[o.ID]})
		}
	}
	return stored, nil
}
