package consistency_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/decongestant/decongestant/balancer"
	"github.com/decongestant/decongestant/consistency"
	"github.com/decongestant/decongestant/faults"
	"github.com/decongestant/decongestant/history"
	"github.com/decongestant/decongestant/internal/testutil"
	"github.com/decongestant/decongestant/workload/registers"
)

func TestMain(m *testing.M) { os.Exit(testutil.Main(m)) }

// checkOptions is a short check on the shared set: 2 writers and 3
// readers on 2 registers for d.
func checkOptions(t *testing.T, c consistency.Concerns, d time.Duration) consistency.CheckOptions {
	rs := testutil.ReplicaSet(t)
	r := registers.Defaults()
	r.Keys, r.Writers, r.Readers, r.Duration = 2, 2, 3, d
	r.Database = "consistency_test"
	return consistency.CheckOptions{URI: rs.URI(), Cluster: rs, Registers: r, Concerns: c,
		Settings: balancer.DefaultSettings(), Out: t.TempDir()}
}

// TestCheckLinearizableOnThePrimary: majority writes and linearizable reads
// on the primary make a linearizable history with no stale read, no
// session guarantee broken and no write lost; the history on disk checks
// the same.
func TestCheckLinearizableOnThePrimary(t *testing.T) {
	o := checkOptions(t, consistency.Concerns{W: "majority", RC: "linearizable", Read: "primary"}, 4*time.Second)
	v, err := consistency.Check(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if v.Ops < 50 || v.Linearizable.Result != history.LinOK {
		t.Fatalf("%d ops, linearizable %s (%+v)", v.Ops, v.Linearizable.Result, v.Linearizable.Failure)
	}
	if v.Stale.Stale != 0 || v.Sessions.Violations != 0 || v.Lost.Lost != 0 || v.Lost.Acknowledged == 0 {
		t.Fatalf("stale %d, session violations %d, lost %d of %d", v.Stale.Stale, v.Sessions.Violations, v.Lost.Lost, v.Lost.Acknowledged)
	}
	h, err := history.ReadPath(filepath.Join(o.Out, consistency.HistoryFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Ops) != v.Ops || len(h.Final) != 2 {
		t.Fatalf("history file: %d ops and %d finals, want %d and 2", len(h.Ops), len(h.Final), v.Ops)
	}
	for _, op := range h.Ops {
		if op.Outcome == history.OutcomeOK && op.Member == "" {
			t.Fatalf("no member recorded for %v", op)
		}
	}
	if _, err := os.Stat(filepath.Join(o.Out, consistency.VisualizationFile)); !os.IsNotExist(err) {
		t.Fatalf("a linearizable history got a visualisation (%v)", err)
	}
}

// TestCheckFindsStaleSecondaryReads plants stale reads: replication paused
// on every secondary while w:1 writes go on and rc:local reads go to the
// secondaries. Both checkers must find them, the visualisation must be
// written, and the set must be restored after the run.
func TestCheckFindsStaleSecondaryReads(t *testing.T) {
	o := checkOptions(t, consistency.Concerns{W: "1", RC: "local", Read: "secondary"}, 5*time.Second)
	o.Faults = []faults.Step{{At: time.Second, Actions: []faults.Action{{Kind: faults.Pause, Member: faults.AllMembers}}}}
	v, err := consistency.Check(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if v.Stale.Stale == 0 || v.Linearizable.Result != history.LinIllegal {
		t.Fatalf("stale %d of %d reads, linearizable %s: the paused secondaries' reads went unnoticed", v.Stale.Stale, v.Stale.Reads, v.Linearizable.Result)
	}
	if _, err := os.Stat(filepath.Join(o.Out, consistency.VisualizationFile)); err != nil {
		t.Fatalf("no visualisation of the violation: %v", err)
	}
	if len(v.Events) == 0 {
		t.Fatal("the pause is not among the events")
	}
}

// TestCheckHoldsRoutedReadsToTheBound: spillway's reads, with replication
// paused on one secondary for longer than the bound, are never staler than
// the bound, though some reads are stale in real time.
func TestCheckHoldsRoutedReadsToTheBound(t *testing.T) {
	o := checkOptions(t, consistency.Concerns{W: "1", RC: "local", Read: "spillway"}, 8*time.Second)
	o.Settings.Spillway.Bound = balancer.Bound{Max: time.Second}
	o.Registers.Readers = 6
	o.Faults = []faults.Step{{At: 2 * time.Second, Actions: []faults.Action{{Kind: faults.Pause, Member: "n3"}}}}
	v, err := consistency.Check(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if v.Bounded == nil || v.Bounded.Bound != time.Second {
		t.Fatalf("bounded check %+v, want one against 1s", v.Bounded)
	}
	if v.Bounded.Stale != 0 {
		t.Fatalf("%d reads staler than the bound: %+v", v.Bounded.Stale, v.Bounded.Examples)
	}
}

// TestVerifyReportsAPlantedLostWrite: an acknowledged write taken out of
// its register's final log is reported lost.
func TestVerifyReportsAPlantedLostWrite(t *testing.T) {
	o := checkOptions(t, consistency.Concerns{W: "majority", RC: "majority", Read: "primary"}, 2*time.Second)
	if _, err := consistency.Check(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	h, err := history.ReadPath(filepath.Join(o.Out, consistency.HistoryFile))
	if err != nil {
		t.Fatal(err)
	}
	f := &h.Final[0]
	if len(f.Log) < 2 {
		t.Fatalf("register %s has %d writes", f.Key, len(f.Log))
	}
	f.Log = f.Log[1:] // the first acknowledged write of the register never survived
	v := consistency.Verify(h, consistency.VerifyOptions{})
	if v.Lost.Lost != 1 {
		t.Fatalf("lost %d, want the planted one", v.Lost.Lost)
	}
}

// TestCheckLosesNoW1WriteWithoutFaults: w:1 writes with no fault are all in
// the final state, the last ones too (the final read waits until they are
// majority-committed; it once read the majority snapshot right away and
// called the last few writes lost).
func TestCheckLosesNoW1WriteWithoutFaults(t *testing.T) {
	o := checkOptions(t, consistency.Concerns{W: "1", RC: "local", Read: "primary"}, 3*time.Second)
	o.Registers.WriteInterval = 0 // writes up to the last moment
	v, err := consistency.Check(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if v.Lost.Acknowledged == 0 || v.Lost.Lost != 0 {
		t.Fatalf("lost %d of %d acknowledged w:1 writes without a fault: %v", v.Lost.Lost, v.Lost.Acknowledged, v.Lost.Examples)
	}
}
