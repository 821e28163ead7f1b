package results

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/decongestant/decongestant/internal/atomicfile"
)

// Results is one bench invocation: the workload, the settings and one Run per
// (policy, repetition). The JSON field names are a contract with the report
// writer and with users' scripts; do not rename them.
type Results struct {
	Workload string `json:"workload"`
	Config   Config `json:"config"`
	Runs     []Run  `json:"runs"`
	// Interrupted is true when the run was cut short (Ctrl-C); the periods
	// completed before the interruption are still present.
	Interrupted bool `json:"interrupted,omitempty"`
}

// Config records the settings of the invocation. The URI is stored redacted.
type Config struct {
	URI      string `json:"uri"`
	Workload string `json:"workload"`
	Mix      string `json:"mix"`
	Records  int64  `json:"records,omitempty"`
	Clients  int    `json:"clients"`
	// ClientsSweep lists the counts of a client-count sweep (--clients
	// 20,60,...), in the order they ran; each run records its own
	// (Run.Clients) and Clients holds the first. Absent when the
	// invocation had one count.
	ClientsSweep   []int          `json:"clients_sweep,omitempty"`
	DurationS      float64        `json:"duration_s"`
	PeriodS        float64        `json:"period_s"`
	WarmupS        float64        `json:"warmup_s"`
	Repeat         int            `json:"repeat"`
	Policies       []string       `json:"policies"`
	MaxStalenessMS *float64       `json:"max_staleness_ms"`
	SProbe         bool           `json:"sprobe"`
	WriteConcern   string         `json:"write_concern"`
	Phases         []PhaseSpec    `json:"phases,omitempty"`
	Balancer       map[string]any `json:"balancer,omitempty"`
	// WorkloadSettings are the workload's own settings beyond the mix and
	// the size (e.g. YCSB's causal sessions).
	WorkloadSettings map[string]string `json:"workload_settings,omitempty"`
	Extra            map[string]string `json:"extra,omitempty"`
	StartedAt        string            `json:"started_at"`
	Host             map[string]any    `json:"host,omitempty"`
}

// PhaseSpec is one phase of a dynamic run as recorded in results.
type PhaseSpec struct {
	AtS      float64 `json:"at_s"`
	Workload string  `json:"workload,omitempty"`
	Clients  int     `json:"clients,omitempty"`
	// Actions are the phase's fault actions as given, in order ("pause=n3",
	// "stepdown", "kill=primary"); each run records when each started and
	// ended as "fault" events.
	Actions []string `json:"actions,omitempty"`
}

// Run is one policy's run.
type Run struct {
	Policy     string `json:"policy"`
	Repetition int    `json:"repetition"`
	// Clients is the run's client count in a client-count sweep
	// (--clients 20,60,...); 0 when the invocation had one count.
	Clients int      `json:"clients,omitempty"`
	Periods []Period `json:"periods"`
	Summary Summary  `json:"summary"`
	// Minutes are the periods aggregated per minute.
	Minutes []Minute `json:"minutes,omitempty"`
	// Events are notable moments: phase switches, lag crossing the bound,
	// balancer fraction drops to 0 and restores, fault actions ("fault":
	// started, then done or failed) and the cluster restored after them at
	// the run's end ("fault-restore").
	Events []Event `json:"events,omitempty"`
	// Extra holds workload-specific results (e.g. the TPC-C report).
	Extra map[string]any `json:"extra,omitempty"`
}

// Period is one reporting period of a run.
type Period struct {
	TS                   float64  `json:"t_s"`
	ReadOps              int64    `json:"read_ops"`
	WriteOps             int64    `json:"write_ops"`
	ReadErrors           int64    `json:"read_errors"`
	WriteErrors          int64    `json:"write_errors"`
	ReadTput             float64  `json:"read_tput"`
	WriteTput            float64  `json:"write_tput"`
	ReadP50MS            float64  `json:"read_p50_ms"`
	ReadP80MS            float64  `json:"read_p80_ms"`
	ReadP99MS            float64  `json:"read_p99_ms"`
	SecondaryPct         float64  `json:"secondary_pct"`
	BalanceFraction      float64  `json:"balance_fraction"`
	Ratio                *float64 `json:"ratio"`
	MaxLagMS             float64  `json:"max_lag_ms"`
	SProbeStalenessP80MS float64  `json:"sprobe_staleness_p80_ms"`
	SProbeStalenessMaxMS float64  `json:"sprobe_staleness_max_ms"`
	// SProbeValueGapMaxMS is seed 000's measure of the probes' staleness
	// (primary value minus second value), which counts pauses in the
	// writes (an election) as staleness.
	SProbeValueGapMaxMS float64 `json:"sprobe_value_gap_max_ms,omitempty"`
	SProbeProbes        int64   `json:"sprobe_probes"`
	// SProbeSecondaryProbes counts the probes whose second read was sent
	// to a secondary (the others read the primary twice).
	SProbeSecondaryProbes int64            `json:"sprobe_secondary_probes"`
	Clients               int              `json:"clients"`
	Mix                   string           `json:"mix"`
	ServedBy              map[string]int64 `json:"served_by,omitempty"`
	// ConnsOpened counts the connections the routed client opened to each
	// member in the period, and CheckoutP99MS is the P99 wait to check a
	// pooled connection out: client-side queues the wire time leaves out.
	ConnsOpened   map[string]int64 `json:"conns_opened,omitempty"`
	CheckoutP99MS float64          `json:"checkout_wait_p99_ms"`
	// Ops counts the period's successful operations by name (YCSB's READ,
	// UPDATE…; TPC-C's NEW_ORDER, STOCK_LEVEL…).
	Ops map[string]int64 `json:"ops,omitempty"`
	// Members are the period's routed reads per replica-set member, by
	// host, for every policy (the driver-selected ones too).
	Members []Member `json:"members,omitempty"`
}

// Member is one replica-set member's routed reads in a period.
type Member struct {
	Host string `json:"host"`
	// Name is the member's name in a cluster decongestant started (n1,
	// n2...), "" otherwise.
	Name string `json:"name,omitempty"`
	// Role is the member's role at the period end: primary, secondary or
	// other (down, recovering, removed).
	Role string `json:"role"`
	// Served counts the routed read commands the member answered.
	Served int64 `json:"served"`
	// ClientP50MS and ClientP80MS are the client-observed latency of the
	// units it served; WireP50MS the time their commands spent on the wire
	// (send to reply); RTTMinMS the period's minimum ping; ServerMS is
	// WireP50MS - RTTMinMS, floored at 0 (the server-side latency).
	ClientP50MS float64 `json:"client_p50_ms"`
	ClientP80MS float64 `json:"client_p80_ms"`
	WireP50MS   float64 `json:"wire_p50_ms"`
	RTTMinMS    float64 `json:"rtt_min_ms"`
	ServerMS    float64 `json:"server_ms"`
	// LagMS is the member's staleness in the last lag poll of the period
	// (0 for the primary); null when unknown (not SECONDARY, not polled).
	LagMS *float64 `json:"lag_ms"`
	// Weight is the share of reads the policy gave the member at the period
	// end; null for policies that let the driver pick the secondary.
	Weight *float64 `json:"weight"`
}

// Minute aggregates the periods of one wall-clock minute of a run (seed 000
// reports TPC-C per minute): throughput and an exact P80 from the merged
// histograms of its periods.
type Minute struct {
	// TS is the end of the minute in seconds from the start of the run;
	// LengthS is its length (the last minute may be shorter).
	TS           float64          `json:"t_s"`
	LengthS      float64          `json:"length_s"`
	ReadOps      int64            `json:"read_ops"`
	WriteOps     int64            `json:"write_ops"`
	ReadTput     float64          `json:"read_tput"`
	WriteTput    float64          `json:"write_tput"`
	ReadP80MS    float64          `json:"read_p80_ms"`
	SecondaryPct float64          `json:"secondary_pct"`
	Ops          map[string]int64 `json:"ops,omitempty"`
}

// Summary aggregates the periods after warm-up.
type Summary struct {
	ReadTput        float64 `json:"read_tput"`
	WriteTput       float64 `json:"write_tput"`
	ReadP80MS       float64 `json:"read_p80_ms"`
	ReadP99MS       float64 `json:"read_p99_ms"`
	SecondaryPct    float64 `json:"secondary_pct"`
	StalenessP80MS  float64 `json:"staleness_p80_ms"`
	StalenessMaxMS  float64 `json:"staleness_max_ms"`
	BoundViolations int64   `json:"bound_violations"`
	MaxLagMS        float64 `json:"max_lag_ms"`
	ReadOps         int64   `json:"read_ops"`
	WriteOps        int64   `json:"write_ops"`
	Errors          int64   `json:"errors"`
	Probes          int64   `json:"probes"`
	MeasuredS       float64 `json:"measured_s"`
	// ClientCPUS is the CPU time (user+system) the benchmark process used
	// over the measured periods, and ClientCPUPerOpMS that divided by the
	// operations, so one can see whether the client was the bottleneck.
	ClientCPUS       float64 `json:"client_cpu_s"`
	ClientCPUPerOpMS float64 `json:"client_cpu_per_op_ms"`
	// LagSource is the lag source in force during the run ("replsetgetstatus"
	// or "hello"; the config's balancer.lag_source is the one asked for,
	// which may be "auto").
	LagSource string `json:"lag_source,omitempty"`
}

// Event is a notable moment in a run, at t_s seconds from its start.
type Event struct {
	TS     float64 `json:"t_s"`
	Kind   string  `json:"kind"`
	Detail string  `json:"detail,omitempty"`
}

// WriteJSON writes the results as indented JSON.
func (r *Results) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteJSONPath writes the results atomically: to a temporary file in the
// same directory, then renamed over path.
func (r *Results) WriteJSONPath(path string) error {
	return atomicfile.Write(path, r.WriteJSON)
}

// Read decodes a results file.
func Read(path string) (*Results, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r Results
	dec := json.NewDecoder(f)
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("%s: not a results file: %w", path, err)
	}
	if len(r.Runs) == 0 && r.Workload == "" {
		return nil, fmt.Errorf("%s: not a results file: no workload and no runs", path)
	}
	return &r, nil
}
