package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/decongestant/decongestant/internal/testutil"
	"github.com/decongestant/decongestant/results"
)

// TestTPCCEndToEnd runs `bench tpcc` with the read-write mix under two
// policies on a small database, then `tpcc check`, and the TPC-C bad-input
// cases that need a server.
func TestTPCCEndToEnd(t *testing.T) {
	uri := testutil.ReplicaSet(t).URI()
	client := testutil.Connect(t, uri)
	t.Cleanup(func() {
		client.Database("tpcc_cli").Drop(t.Context())
		client.Database("tpcc_cli_empty").Drop(t.Context())
	})

	if _, _, err := runCLI(t, "tpcc", "check", "--uri", uri, "--db", "tpcc_cli_empty"); err == nil ||
		!strings.Contains(err.Error(), "holds no TPC-C") {
		t.Fatalf("check on an empty database: %v", err)
	}

	out := filepath.Join(t.TempDir(), "tpcc.json")
	stdout, stderr, err := runCLI(t, "bench", "tpcc", "--uri", uri, "--db", "tpcc_cli", "--scale", "small",
		"--warehouses", "2", "--clients", "8", "--duration", "12s", "--period", "3s", "--balancer-period", "3s",
		"--policies", "primary,decongestant", "--mix", "readwrite", "--max-staleness", "10s", "--sprobe", "--out", out)
	if err != nil {
		t.Fatalf("bench tpcc: %v\n%s", err, stderr)
	}
	if !strings.Contains(stderr, "load:") {
		t.Errorf("no load progress on stderr:\n%s", stderr)
	}
	if !strings.Contains(stdout, "tpmC") {
		t.Errorf("text report has no TPC-C section:\n%s", stdout)
	}
	res, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if res.Workload != "tpcc" || res.Config.Mix != "readwrite" || len(res.Runs) != 2 {
		t.Fatalf("results: workload %q mix %q, %d runs", res.Workload, res.Config.Mix, len(res.Runs))
	}
	for _, run := range res.Runs {
		var rep struct {
			TpmC         float64 `json:"tpmC"`
			Total        int64   `json:"total"`
			Aborts       int64   `json:"aborts"`
			Transactions map[string]struct {
				Total     int64              `json:"total"`
				LatencyMS map[string]float64 `json:"latency_ms"`
			} `json:"transactions"`
			Settings map[string]any `json:"settings"`
			Server   *struct {
				Commit int64 `json:"commit"`
			} `json:"server"`
			Check []struct {
				Clause string `json:"clause"`
				Status string `json:"status"`
				Detail string `json:"detail"`
			} `json:"check"`
		}
		b, _ := json.Marshal(run.Extra["tpcc"])
		if err := json.Unmarshal(b, &rep); err != nil {
			t.Fatal(err)
		}
		// The readwrite mix's default (the Decongestant paper's): read concern local.
		if got := rep.Settings["stock_level_read_concern"]; got != "local" {
			t.Errorf("%s: settings record Stock-Level read concern %v, want local", run.Policy, got)
		}
		if rep.TpmC <= 0 || rep.Total == 0 {
			t.Errorf("%s: tpmC %v total %d", run.Policy, rep.TpmC, rep.Total)
		}
		for _, name := range []string{"NEW_ORDER", "PAYMENT", "ORDER_STATUS", "DELIVERY", "STOCK_LEVEL"} {
			tr, ok := rep.Transactions[name]
			if !ok || tr.Total == 0 || tr.LatencyMS["p95"] <= 0 {
				t.Errorf("%s: %s: %+v", run.Policy, name, tr)
			}
		}
		// Stock-Level is the routed read series (no warm-up: every period
		// is measured).
		// The two counts come from two snapshots taken one after the
		// other at each period boundary; allow the operations that
		// completed in between.
		if sl := rep.Transactions["STOCK_LEVEL"].Total; sl == 0 || run.Summary.ReadOps < sl-2 || run.Summary.ReadOps > sl+2 {
			t.Errorf("%s: %d reads in the summary, %d Stock-Levels", run.Policy, run.Summary.ReadOps, sl)
		}
		// Read-write mix: Stock-Level is about half the transactions.
		if f := float64(rep.Transactions["STOCK_LEVEL"].Total) / float64(rep.Total); f < 0.35 || f > 0.65 {
			t.Errorf("%s: Stock-Level share %.2f, want ~0.5", run.Policy, f)
		}
		// The server's interval contains the client's: every transaction
		// the client counted, except the New-Order rollbacks, committed.
		if want := rep.Total - rep.Transactions["STOCK_LEVEL"].Total - rep.Aborts; rep.Server == nil || rep.Server.Commit < want {
			t.Errorf("%s: server commits %+v, want at least the %d committed transactions the client counted", run.Policy, rep.Server, want)
		}
		if len(rep.Check) != 12 {
			t.Errorf("%s: %d checks after the run, want 12", run.Policy, len(rep.Check))
		}
		for _, c := range rep.Check {
			if c.Status == "fail" {
				t.Errorf("%s: consistency condition %s failed after the run: %s", run.Policy, c.Clause, c.Detail)
			}
		}
		if run.Summary.BoundViolations != 0 {
			t.Errorf("%s: %d staleness violations", run.Policy, run.Summary.BoundViolations)
		}
		if len(run.Periods) == 0 || run.Periods[0].Ops["NEW_ORDER"] == 0 {
			t.Errorf("%s: periods without per-transaction counts", run.Policy)
		}
	}

	stdout, _, err = runCLI(t, "tpcc", "check", "--uri", uri, "--db", "tpcc_cli")
	if err != nil {
		t.Fatalf("tpcc check after the runs: %v\n%s", err, stdout)
	}
	for _, c := range []string{"3.3.2.1 ", "3.3.2.12"} {
		if !strings.Contains(stdout, c) {
			t.Errorf("check output lacks %s:\n%s", c, stdout)
		}
	}

	_, _, err = runCLI(t, "bench", "tpcc", "--uri", uri, "--db", "tpcc_cli", "--scale", "small",
		"--warehouses", "3", "--duration", "2s", "--period", "1s", "--out", filepath.Join(t.TempDir(), "x.json"))
	if err == nil || !strings.Contains(err.Error(), "--reset") || !strings.Contains(err.Error(), "2 warehouses") {
		t.Fatalf("warehouse mismatch: %v, want an error naming 2 warehouses and suggesting --reset", err)
	}
}

// TestTPCCStandardPerMember runs the standard mix, whose Stock-Level and
// routed Order-Status read with read concern majority in each terminal's
// causally consistent session, with every routed read on the secondaries'
// own pools: the sessions are carried across, so no transaction fails.
func TestTPCCStandardPerMember(t *testing.T) {
	rs := testutil.ReplicaSet(t)
	client := testutil.Connect(t, rs.URI())
	t.Cleanup(func() { client.Database("tpcc_pm").Drop(context.Background()) })
	prim, err := rs.Primary(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var secs []string
	for _, m := range rs.Members() {
		if m.Name != prim.Name {
			secs = append(secs, m.Name+"=0.5")
		}
	}
	out := filepath.Join(t.TempDir(), "tpcc.json")
	_, stderr, err := runCLI(t, "bench", "tpcc", "--uri", rs.URI(), "--db", "tpcc_pm", "--scale", "small",
		"--clients", "4", "--duration", "6s", "--period", "3s", "--mix", "standard", "--route-order-status",
		"--policies", "weights:"+strings.Join(secs, ","), "--out", out)
	if err != nil {
		t.Fatalf("bench tpcc: %v\n%s", err, stderr)
	}
	res, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	run := res.Runs[0]
	if run.Summary.Errors != 0 {
		t.Fatalf("%d errors (%v)", run.Summary.Errors, run.Extra["last_error"])
	}
	var routed, onPrimary int64
	for _, p := range run.Periods {
		routed += p.Ops["STOCK_LEVEL"] + p.Ops["ORDER_STATUS"]
		onPrimary += p.ServedBy[prim.Host]
	}
	if routed == 0 || onPrimary != 0 {
		t.Fatalf("%d Stock-Level/Order-Status, %d routed reads served by the primary %s: want some, all on the secondaries", routed, onPrimary, prim.Name)
	}
}
