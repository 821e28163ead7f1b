package results

import (
	"encoding/json"
	"fmt"
	"io"

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
	ClientsSweep []int `json:"clients_sweep,omitempty"`
	// RatePerS is the operations a second all clients were held to
	// (bench --rate); absent: closed loops.
	RatePerS       float64  `json:"rate_per_s,omitempty"`
	DurationS      float64  `json:"duration_s"`
	PeriodS        float64  `json:"period_s"`
	WarmupS        float64  `json:"warmup_s"`
	Repeat         int      `json:"repeat"`
	Policies       []string `json:"policies"`
	MaxStalenessMS *float64 `json:"max_staleness_ms"`
	SProbe         bool     `json:"sprobe"`
	// SProbeWriteMS and SProbeIntervalMS are the S probe's pauses between
	// its writer's writes and between its probes, when it ran.
	SProbeWriteMS    float64 `json:"sprobe_write_interval_ms,omitempty"`
	SProbeIntervalMS float64 `json:"sprobe_interval_ms,omitempty"`
	// ReadYourWrites: read-your-writes routing was on (bench --read-your-writes).
	ReadYourWrites bool        `json:"read_your_writes,omitempty"`
	WriteConcern   string      `json:"write_concern"`
	Phases         []PhaseSpec `json:"phases,omitempty"`
	// ReconfigAtS are reconfiguration times given explicitly (bench
	// --reconfig-at), in seconds from each run's start, for
	// reconfigurations that are not a phase's fault actions; each run's
	// summary measures them as it does the fault actions.
	ReconfigAtS []float64      `json:"reconfig_at_s,omitempty"`
	Balancer    map[string]any `json:"balancer,omitempty"`
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
	// Rate is the operations a second the clients were held to from this
	// phase on (0: no limit), when the phase changed it.
	Rate *float64 `json:"rate_per_s,omitempty"`
	// Actions are the phase's fault actions as given, in order ("pause=n3",
	// "stepdown", "kill=primary"); each run records when each started and
	// ended as "fault" events.
	Actions []string `json:"actions,omitempty"`
	// Reads is the member every read moved to ("n2", "primary"): the
	// read-hints paper's workload migration.
	Reads string `json:"reads,omitempty"`
	// ReadOffset is where the reads' key window moved to (the read-hints
	// paper's changed working set, fig. 16), when the phase moved it.
	ReadOffset *int64 `json:"read_offset,omitempty"`
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

// ReadYourWrites are a run's read-your-writes counters (Summary).
type ReadYourWrites struct {
	Reads   int64   `json:"reads"`
	Held    int64   `json:"held_on_primary"`
	HeldPct float64 `json:"held_pct"`
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
	ReadP999MS           float64  `json:"read_p999_ms"` // P99.9; 0 in results written before it was recorded
	SecondaryPct         float64  `json:"secondary_pct"`
	BalanceFraction      float64  `json:"balance_fraction"`
	Ratio                *float64 `json:"ratio"`
	MaxLagMS             float64  `json:"max_lag_ms"`
	SProbeStalenessP80MS float64  `json:"sprobe_staleness_p80_ms"`
	SProbeStalenessMaxMS float64  `json:"sprobe_staleness_max_ms"`
	// SProbeValueGapMaxMS is the Decongestant paper's measure of the probes'
	// staleness (primary value minus second value), which counts pauses in the
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
	// HeapMB, HeapLiveMB and Goroutines are the benchmark process's own
	// figures at the period end (runtime/metrics, read without stopping the
	// world): the heap's objects, live or not yet swept
	// (/memory/classes/heap/objects:bytes, MemStats.HeapAlloc's figure), and
	// the heap still live at the last garbage collection
	// (/gc/heap/live:bytes), in MiB, and the goroutines. Summary.Soak judges
	// them. Absent in results written before they were recorded.
	HeapMB     float64 `json:"heap_mb,omitempty"`
	HeapLiveMB float64 `json:"heap_live_mb,omitempty"`
	Goroutines int     `json:"goroutines,omitempty"`
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
	// HintReplays are the read-hint queries replayed on the member in the
	// period and HintKeys the captured reads they stood for (hints on
	// only; never counted in Served); HintErrors the replays that failed
	// (a timeout included). HintsOff is true while the overload
	// switch holds the member's hints off.
	HintReplays int64 `json:"hint_replays,omitempty"`
	HintKeys    int64 `json:"hint_keys,omitempty"`
	HintErrors  int64 `json:"hint_errors,omitempty"`
	HintsOff    bool  `json:"hints_off,omitempty"`

	// The member's own counters over the period, from serverStatus over a
	// direct connection at the start of the run and at every period end
	// (bench --member-stats; a member that only serverStatus lists, not the
	// router, gets a record of its own). Each is null when not measured:
	// member stats off, the member did not answer at either end, or it
	// restarted in the period (its counters went back).
	//
	// CachePagesRequested and CachePagesRead are the differences of
	// WiredTiger's "pages requested from the cache" and "pages read into
	// cache"; CacheMissPct is read / requested x 100 (null when nothing
	// was requested); CacheReadMB the difference of "bytes read into
	// cache" in MiB.
	CachePagesRequested *int64   `json:"cache_pages_requested"`
	CachePagesRead      *int64   `json:"cache_pages_read"`
	CacheMissPct        *float64 `json:"cache_miss_pct"`
	CacheReadMB         *float64 `json:"cache_read_mb"`
	// CacheWrittenMB is the difference of "bytes written from cache" in
	// MiB (dirty pages written out by eviction and checkpoints), and
	// CheckpointMS that of "transaction checkpoint total time (msecs)":
	// the time of the checkpoints that completed in the period. What a
	// member spends on writing out, beside what it serves.
	CacheWrittenMB *float64 `json:"cache_written_mb,omitempty"`
	CheckpointMS   *float64 `json:"checkpoint_ms,omitempty"`
	// CPUPct is the member process's CPU time (user + system) over the
	// period's length by the server's clock, x 100: % of one core.
	CPUPct *float64 `json:"cpu_pct"`
	// RSSMB is the process's resident set at the period end (mem.resident,
	// MiB), also after a restart.
	RSSMB *float64 `json:"rss_mb"`
	// MemCgroupMB is the memory charged to the member's own memory cgroup
	// at the period end (memory.current, or memory.usage_in_bytes in cgroup
	// v1; page cache included), MiB: only for a local cluster (bench
	// --cluster-dir) whose member runs in a cgroup of its own.
	MemCgroupMB *float64 `json:"mem_cgroup_mb"`
}

// Minute aggregates the periods of one wall-clock minute of a run (the
// Decongestant paper reports TPC-C per minute): throughput and an exact P80
// from the merged histograms of its periods.
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
	ReadP999MS      float64 `json:"read_p999_ms"` // P99.9; 0 in results written before it was recorded
	SecondaryPct    float64 `json:"secondary_pct"`
	StalenessP80MS  float64 `json:"staleness_p80_ms"`
	StalenessMaxMS  float64 `json:"staleness_max_ms"`
	BoundViolations int64   `json:"bound_violations"`
	MaxLagMS        float64 `json:"max_lag_ms"`
	ReadOps         int64   `json:"read_ops"`
	WriteOps        int64   `json:"write_ops"`
	Errors          int64   `json:"errors"`
	// ReadErrors and WriteErrors split Errors by class.
	ReadErrors  int64   `json:"read_errors"`
	WriteErrors int64   `json:"write_errors"`
	Probes      int64   `json:"probes"`
	MeasuredS   float64 `json:"measured_s"`
	// ClientCPUS is the CPU time (user+system) the benchmark process used
	// over the measured periods, and ClientCPUPerOpMS that divided by the
	// operations, so one can see whether the client was the bottleneck.
	ClientCPUS       float64 `json:"client_cpu_s"`
	ClientCPUPerOpMS float64 `json:"client_cpu_per_op_ms"`
	// ReadYourWrites counts, over the whole run, the routed reads that had
	// an operation time to find applied (a proxied connection's fence after
	// its write, a causal session's) and how many of them went to the
	// primary because no secondary with a share was known to have applied
	// it; nil when there were none.
	ReadYourWrites *ReadYourWrites `json:"read_your_writes,omitempty"`
	// LagSource is the lag source in force during the run
	// ("replsetgetstatus", "heartbeat" or "hello": under "auto", the one
	// preferred among those the user may use, though a poll it did not
	// answer in time was taken by the next; the config's
	// balancer.lag_source is the one asked for, which may be "auto").
	LagSource string `json:"lag_source,omitempty"`
	// Reconfigurations measure the reads around each reconfiguration of the
	// run (a phase with fault actions, or a time given with
	// Config.ReconfigAtS), over all its periods, warm-up included; package
	// reconfig computes them. Absent without a reconfiguration.
	Reconfigurations []Reconfiguration `json:"reconfigurations,omitempty"`
	// Soak judges whether the benchmark process's heap and goroutines
	// stayed flat after the warm-up; absent when the periods carry no
	// runtime figures.
	Soak *Soak `json:"soak,omitempty"`
	// ReadsCheck compares the routed reads the clients made with the ones
	// the router counted.
	ReadsCheck *ReadsCheck `json:"reads_check,omitempty"`
	// Decisions is how punctually a policy with a balancing period decided
	// over the measured interval; absent for policies without one.
	Decisions *Decisions `json:"decisions,omitempty"`
}

// Reconfiguration is how a run's reads fared around one reconfiguration at
// AtS: the throughput before it, the deepest dip in the minute after, how
// long until throughput was back, and the cache misses of the member that
// took the reads. A period belongs to a window when its end (t_s) is in
// it. DESIGN.md has the definitions.
type Reconfiguration struct {
	AtS float64 `json:"at_s"`
	// Cause is the phase's fault actions ("stepdown", "kill=primary"), or
	// "given" for a time from Config.ReconfigAtS.
	Cause string `json:"cause"`
	// PreReadTput is the mean read throughput of the periods in the PreS
	// seconds before AtS (30, fewer when the run started less than 30 s
	// before).
	PreReadTput float64 `json:"pre_read_tput"`
	PreS        float64 `json:"pre_s"`
	// DipReadTput is the lowest read throughput of a single period in the
	// 60 s after AtS, in the period ending at DipAtS; DipPct is it as % of
	// PreReadTput and DepthPct 100 - DipPct (null when PreReadTput is 0).
	DipReadTput float64  `json:"dip_read_tput"`
	DipAtS      float64  `json:"dip_at_s"`
	DipPct      *float64 `json:"dip_pct"`
	DepthPct    *float64 `json:"depth_pct"`
	// RecoveryS is the time from AtS to the start of the first run of 3
	// consecutive periods each with at least 90% of PreReadTput, searched
	// to the run's end; null when there is none (or PreReadTput is 0).
	RecoveryS *float64 `json:"recovery_s"`
	// ServingMember is the member (name, else host) that served the most
	// routed reads in the 60 s after AtS, and ServingMaxCacheMissPct its
	// highest cache_miss_pct there (null when not measured).
	ServingMember          string   `json:"serving_member,omitempty"`
	ServingMaxCacheMissPct *float64 `json:"serving_max_cache_miss_pct"`
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

// Read decodes a results file (gzipped when its name ends in .gz).
func Read(path string) (*Results, error) {
	f, err := Open(path)
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
