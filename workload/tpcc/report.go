package tpcc

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/decongestant/decongestant/metrics"
	"github.com/decongestant/decongestant/workload"
)

// RunReport is the "tpcc" object of a run's results, in the spirit of the
// TPC-C-on-MongoDB paper, appendix D.
type RunReport struct {
	// TpmC is New-Order transactions per minute over the measured
	// interval, rolled-back ones included (TPC-C counts them).
	TpmC      float64 `json:"tpmC"`
	Total     int64   `json:"total"`
	Aborts    int64   `json:"aborts"` // New-Order rollbacks (TPC-C's 1%)
	Retries   int64   `json:"retries"`
	Errors    int64   `json:"errors"`
	MeasuredS float64 `json:"measured_s"`
	// ClientCPUMSPerTxn is the benchmark process's CPU time per
	// transaction: it shows whether the client could be the bottleneck.
	ClientCPUMSPerTxn float64              `json:"client_cpu_ms_per_txn"`
	Transactions      map[string]TxnReport `json:"transactions"`
	Settings          map[string]any       `json:"settings"`
	// Server is the delta of the primary's serverStatus counters over the
	// measured interval (the TPC-C-on-MongoDB paper, §4.4: compare client and
	// server counts).
	Server      *ServerDelta `json:"server,omitempty"`
	ServerError string       `json:"server_error,omitempty"`
	// Check holds the consistency checks run after the run (CheckAfterRun).
	Check      []CheckResult `json:"check,omitempty"`
	CheckError string        `json:"check_error,omitempty"`
}

// TxnReport is one transaction type's counts and latencies.
type TxnReport struct {
	Total     int64         `json:"total"`
	Retries   int64         `json:"retries"`
	Errors    int64         `json:"errors"`
	Rollbacks int64         `json:"rollbacks,omitempty"`
	LatencyMS LatencyReport `json:"latency_ms"`
}

// LatencyReport holds the percentiles the TPC-C-on-MongoDB paper reports, in
// milliseconds.
type LatencyReport struct {
	Min float64 `json:"min"`
	P50 float64 `json:"p50"`
	P75 float64 `json:"p75"`
	P90 float64 `json:"p90"`
	P95 float64 `json:"p95"`
	P99 float64 `json:"p99"`
	Max float64 `json:"max"`
}

// ServerDelta is the change of the primary's counters over a run. Member
// names the primary; when it changed (an election), the delta spans two
// servers and is omitted.
type ServerDelta struct {
	Member   string `json:"member"`
	Inserted int64  `json:"inserted"`
	Updated  int64  `json:"updated"`
	Deleted  int64  `json:"deleted"`
	Returned int64  `json:"returned"`
	Commit   int64  `json:"commit"`
	Abort    int64  `json:"abort"`
}

type serverCounters struct {
	ok  bool
	err error
	ServerDelta
}

func readServerCounters(ctx context.Context, client *mongo.Client) (serverCounters, error) {
	var st struct {
		Host    string `bson:"host"`
		Metrics struct {
			Document struct {
				Deleted  int64 `bson:"deleted"`
				Inserted int64 `bson:"inserted"`
				Returned int64 `bson:"returned"`
				Updated  int64 `bson:"updated"`
			} `bson:"document"`
		} `bson:"metrics"`
		Transactions struct {
			Committed int64 `bson:"totalCommitted"`
			Aborted   int64 `bson:"totalAborted"`
		} `bson:"transactions"`
	}
	err := client.Database("admin").RunCommand(ctx, bson.D{{Key: "serverStatus", Value: 1}}).Decode(&st)
	if err != nil {
		return serverCounters{}, fmt.Errorf("serverStatus: %w", err)
	}
	d := st.Metrics.Document
	return serverCounters{ok: true, ServerDelta: ServerDelta{Member: st.Host, Inserted: d.Inserted, Updated: d.Updated,
		Deleted: d.Deleted, Returned: d.Returned, Commit: st.Transactions.Committed, Abort: st.Transactions.Aborted}}, nil
}

// BeginRun checks that the database holds the configured load and takes the
// NURand constants from the seed it was loaded with, so run-time C_LAST
// keeps the relation to the loaded names that clause 2.1.6.1 requires. A
// database without decongestant's load metadata (loaded by py-tpcc, run
// with --skip-load) is taken as configured.
func (g *Generator) BeginRun(ctx context.Context, env workload.Env) error {
	info, loaded, err := Loaded(ctx, env.DB)
	if err != nil {
		return fmt.Errorf("tpcc: %w", err)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.before = serverCounters{}
	if !loaded {
		// Data loaded by another tool (py-tpcc, with --skip-load): trust
		// the configuration; the run constants come from its seed.
		return nil
	}
	if info.Warehouses != g.cfg.Warehouses || info.Schema != g.cfg.Schema || info.Scale != g.cfg.Scale {
		return fmt.Errorf("%w: database %q holds %d warehouses (%s, %s), the run asks for %d (%s, %s): run with --reset or match the load",
			ErrMismatch, env.DB.Name(), info.Warehouses, scaleName(info.Scale), info.Schema, g.cfg.Warehouses, scaleName(g.cfg.Scale), g.cfg.Schema)
	}
	g.consts = newNURandConstants(info.Seed)
	return nil
}

// StartMeasure records the primary's counters at the start of the measured
// interval, so the server delta covers the same interval as the client's
// counts. A failure is reported in EndRun.
func (g *Generator) StartMeasure(ctx context.Context, env workload.Env) {
	c, err := readServerCounters(ctx, env.DB.Client())
	if err != nil {
		c = serverCounters{err: err}
	}
	g.mu.Lock()
	g.before = c
	g.mu.Unlock()
}

// EndRun builds the run's RunReport under the key "tpcc".
func (g *Generator) EndRun(ctx context.Context, env workload.Env, st workload.RunStats) (string, any, error) {
	r := g.report(st)
	g.mu.Lock()
	before := g.before
	g.mu.Unlock()
	after, err := readServerCounters(ctx, env.DB.Client())
	switch {
	case err != nil:
		r.ServerError = err.Error()
	case before.err != nil:
		r.ServerError = "at the start of the measured interval: " + before.err.Error()
	case !before.ok:
		r.ServerError = "no counters at the start of the measured interval"
	case before.Member != after.Member:
		r.ServerError = fmt.Sprintf("the primary changed from %s to %s during the run", before.Member, after.Member)
	default:
		r.Server = &ServerDelta{Member: after.Member, Inserted: after.Inserted - before.Inserted,
			Updated: after.Updated - before.Updated, Deleted: after.Deleted - before.Deleted,
			Returned: after.Returned - before.Returned, Commit: after.Commit - before.Commit, Abort: after.Abort - before.Abort}
	}
	if g.CheckAfterRun {
		res, err := Check(ctx, env.DB, CheckOptions{Schema: g.cfg.Schema, Scale: g.cfg.Scale})
		if err != nil {
			r.CheckError = err.Error()
		}
		r.Check = res
	}
	return Name, r, nil
}

// report turns the runner's measurements into a RunReport.
func (g *Generator) report(st workload.RunStats) RunReport {
	r := RunReport{MeasuredS: st.MeasuredS, Transactions: map[string]TxnReport{}, Settings: g.settings()}
	for _, t := range txnTypes {
		o, ok := st.Ops[t.String()]
		if !ok {
			continue
		}
		tr := TxnReport{Total: o.Count, Retries: o.Retries, Errors: o.Errors, Rollbacks: o.RolledBack}
		if o.Latency != nil && o.Latency.Count() > 0 {
			tr.LatencyMS = latencyReport(o.Latency)
		}
		r.Transactions[t.String()] = tr
		r.Total += o.Count
		r.Retries += o.Retries
		r.Errors += o.Errors
		r.Aborts += o.RolledBack
	}
	if st.MeasuredS > 0 {
		r.TpmC = metrics.Round3(float64(r.Transactions[txnNewOrder.String()].Total) * 60 / st.MeasuredS)
	}
	if r.Total > 0 {
		r.ClientCPUMSPerTxn = metrics.Round3(1000 * st.ClientCPUS / float64(r.Total))
	}
	return r
}

func latencyReport(s *metrics.Snapshot) LatencyReport {
	q := func(p float64) float64 { return metrics.Round3(metrics.MS(s.Quantile(p))) }
	return LatencyReport{Min: q(0), P50: q(0.5), P75: q(0.75), P90: q(0.9), P95: q(0.95), P99: q(0.99),
		Max: metrics.Round3(metrics.MS(s.Max()))}
}

// settings records the configuration a run used.
func (g *Generator) settings() map[string]any {
	c := g.cfg
	sl := "majority in the terminal's causal session"
	if c.StockLevelReadConcern == StockLevelLocal {
		sl = "local, no causal session"
	}
	return map[string]any{"warehouses": c.Warehouses, "scale": c.Scale, "schema": c.Schema.String(),
		"mix": g.Mix(), "seed": c.Seed, "find_and_modify": c.FindAndModify, "batch_writes": c.BatchWrites,
		"route_order_status": c.RouteOrderStatus, "keying": c.Keying, "think_time": c.ThinkTime,
		"write_concern": c.WriteConcern, "read_concern": "snapshot (transactions), " + sl + " (Stock-Level)",
		"stock_level_read_concern": c.StockLevelReadConcern.String(), "causal_consistency": true,
		"max_retries": c.MaxRetries, "retry_backoff": c.RetryBackoff.String()}
}
