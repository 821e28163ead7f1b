package tpcc

import (
	"bytes"
	"context"
	"slices"
	"testing"
	"time"

	"github.com/decongestant/decongestant/internal/testutil"
)

// TestStockLevelReadConcernSent captures the commands a Stock-Level sends
// and checks, for each choice of StockLevelReadConcern, their read concern
// level, whether they wait for the terminal's cluster time
// (afterClusterTime) and which session they run in.
func TestStockLevelReadConcernSent(t *testing.T) {
	rs := testutil.ReplicaSet(t)
	client, log := monitoredClient(t, rs.URI())
	ctx := context.Background()
	for _, schema := range []Schema{Denormalized, Normalized} {
		t.Run(schema.String(), func(t *testing.T) {
			cfg := smallConfig(schema)
			cfg.Warehouses = 1
			db := loadedDB(t, client, "tpcc_slrc_"+schema.String(), cfg)
			for _, tt := range []struct {
				rc     StockLevelReadConcern
				causal bool // afterClusterTime, in the terminal's session
			}{
				{StockLevelLocal, false},
				{StockLevelMajority, true},
			} {
				t.Run(tt.rc.String(), func(t *testing.T) {
					cfg.StockLevelReadConcern = tt.rc
					w := testWorker(t, db, cfg, 0)
					// A transaction first, so the terminal's session has an
					// operation time for a causally consistent read to wait for.
					if _, _, err := w.newOrderTxn(ctx, newOrderInput{WID: 1, DID: 1, CID: 1, EntryD: time.Now().UTC(),
						Lines: []newOrderLine{{IID: 1, SupplyWID: 1, Quantity: 1}}}); err != nil {
						t.Fatal(err)
					}
					log.take()
					if _, err := w.stockLevel(ctx, stockLevelInput{WID: 1, DID: 1, Threshold: 20}); err != nil {
						t.Fatal(err)
					}
					sess := w.sess.ID().Lookup("id")
					var colls []string
					for _, c := range log.take() {
						if c.Name != "find" && c.Name != "aggregate" {
							continue
						}
						colls = append(colls, c.Command.Lookup(c.Name).StringValue())
						rc, ok := c.Command.Lookup("readConcern").DocumentOK()
						if !ok {
							t.Errorf("%s %s: no readConcern", c.Name, colls[len(colls)-1])
							continue
						}
						if level := rc.Lookup("level").StringValue(); level != tt.rc.String() {
							t.Errorf("%s %s: readConcern.level %q, want %q", c.Name, colls[len(colls)-1], level, tt.rc.String())
						}
						if _, err := rc.LookupErr("afterClusterTime"); (err == nil) != tt.causal {
							t.Errorf("%s %s: afterClusterTime present %v, want %v (%v)", c.Name, colls[len(colls)-1], err == nil, tt.causal, rc)
						}
						inSession := bytes.Equal(c.Command.Lookup("lsid", "id").Value, sess.Value)
						if inSession != tt.causal {
							t.Errorf("%s %s: in the terminal's session %v, want %v", c.Name, colls[len(colls)-1], inSession, tt.causal)
						}
					}
					lines := collOrders
					if schema == Normalized {
						lines = collOrderLine
					}
					if want := []string{collDistrict, lines, collStock}; !slices.Equal(colls, want) {
						t.Errorf("Stock-Level read %v, want %v", colls, want)
					}
				})
			}
		})
	}
}
