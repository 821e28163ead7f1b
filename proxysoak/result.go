package proxysoak

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/decongestant/decongestant/internal/atomicfile"
)

// FormatVersion is the version of the results file's format.
const FormatVersion = 1

// Result is one soak's results file: what ran, what was measured, and the
// verdict on each target.
type Result struct {
	Version   int               `json:"version"`
	Started   time.Time         `json:"started"`
	DurationS float64           `json:"duration_s"`
	Settings  map[string]string `json:"settings"`
	// Phases are the authenticated operations' latencies between fault
	// actions (the first phase runs before any); Overall over the run.
	Phases  []Phase `json:"phases"`
	Overall Phase   `json:"overall"`
	// Errors are the authenticated operations' errors by kind.
	Errors       map[string]int64 `json:"errors"`
	Writes       Writes           `json:"writes"`
	Transactions Transactions     `json:"transactions"`
	Reads        Reads            `json:"reads"`
	ChangeStream ChangeStream     `json:"change_stream"`
	Proxy        ProxyUsage       `json:"proxy"`
	Hostile      *HostileStats    `json:"hostile"` // null in a --no-hostile run
	// ProxyExited says how the proxy died during the soak ("": it did not).
	ProxyExited string `json:"proxy_exited,omitempty"`
	// Faults are the fault actions' events: "t=...s stepdown: done in ...".
	Faults []string `json:"faults"`
	// BaselineP99MS is the overall P99 of the --no-hostile run this one
	// is judged against (0: none given).
	BaselineP99MS float64   `json:"baseline_p99_ms"`
	Verdicts      []Verdict `json:"verdicts"`
	Pass          bool      `json:"pass"`
}

// Phase is the latency of the authenticated operations (inserts, reads,
// transactions, from both drivers) that started in a span of the run.
type Phase struct {
	Name   string  `json:"name"`
	FromS  float64 `json:"from_s"`
	ToS    float64 `json:"to_s"`
	Ops    int64   `json:"ops"`
	Errors int64   `json:"errors"`
	P50MS  float64 `json:"p50_ms"`
	P99MS  float64 `json:"p99_ms"`
	MaxMS  float64 `json:"max_ms"`
}

// Writes are the acknowledged w:majority inserts and those missing from
// the collection at the end (read from the replica set directly).
type Writes struct {
	Acked    int64    `json:"acked"`
	Lost     int64    `json:"lost"`
	LostIDs  []string `json:"lost_ids,omitempty"` // the first few
	Attempts int64    `json:"attempts"`
}

// Transactions are the per-transaction counter documents: each transaction
// increments its own counter once; at the end every counter must be 0 or 1,
// and 1 for every commit acknowledged to the client.
type Transactions struct {
	Attempted int64 `json:"attempted"`
	Committed int64 `json:"committed"` // acknowledged to the client
	// Twice are counters above 1: a transaction applied more than once.
	Twice    int64    `json:"applied_twice"`
	TwiceIDs []string `json:"applied_twice_ids,omitempty"`
	// CommitLost are acknowledged commits whose counter is 0 (or missing).
	CommitLost int64 `json:"commit_lost"`
	// Unknown are commits that failed but were applied (counter 1): an
	// outcome the client could not know, allowed.
	Unknown int64 `json:"failed_but_applied"`
}

// Reads are the S probe's reads through the proxy with a secondary read
// preference, judged against the staleness bound.
type Reads struct {
	BoundMS       float64 `json:"bound_ms"`
	Probes        int64   `json:"probes"`
	BeyondBound   int64   `json:"beyond_bound"`
	MaxStaleMS    float64 `json:"max_staleness_ms"`
	ProbeErrors   int64   `json:"probe_errors"`
	LastProbeErr  string  `json:"last_probe_error,omitempty"`
	RoutedReadOps int64   `json:"routed_read_ops"` // the clients' own reads
}

// ChangeStream is one change stream through the proxy on the inserts'
// collection: it must report every acknowledged insert.
type ChangeStream struct {
	Expected int64    `json:"expected"`
	Seen     int64    `json:"seen"`
	Missed   int64    `json:"missed"`
	MissedID []string `json:"missed_ids,omitempty"`
	// Resumes are the times the stream failed with an error the driver did
	// not resume from and the soak opened it again after its last token.
	Resumes   int64  `json:"app_resumes"`
	LastError string `json:"last_error,omitempty"`
}

// ProxyUsage is the proxy process's memory, sampled every few seconds.
type ProxyUsage struct {
	PID int `json:"pid"`
	// PeakRSSMB is the kernel's high-water mark (VmHWM); RSSMaxMB the
	// largest sample of VmRSS.
	PeakRSSMB float64 `json:"peak_rss_mb"`
	RSSMaxMB  float64 `json:"rss_max_mb"`
	// HeapQ1MB and HeapQ4MB are the floors (least samples) of the live
	// heap (after a forced collection) over the first and last quarter of
	// the samples after the warm-up (a tenth of the run, at most a minute);
	// null growth when not measured.
	HeapQ1MB      float64  `json:"heap_q1_mb"`
	HeapQ4MB      float64  `json:"heap_q4_mb"`
	HeapGrowthPct *float64 `json:"heap_growth_pct"`
	FDsMax        int      `json:"fds_max"`
	GoroutinesMax int      `json:"goroutines_max"`
	Samples       []Sample `json:"samples"`
}

// Sample is one reading of the proxy process.
type Sample struct {
	TS     float64 `json:"ts"`
	RSSMB  float64 `json:"rss_mb"`
	HeapMB float64 `json:"heap_live_mb"` // 0: not read
	FDs    int     `json:"fds"`
	// Goroutines are the proxy's goroutines (0: not read): one or two per
	// connection, so they fall back when connections close.
	Goroutines int `json:"goroutines"`
}

// HostileStats count the unauthenticated hostile connections and how the
// proxy ended them.
type HostileStats struct {
	Oversized HostileKind `json:"oversized"`
	Slow      HostileKind `json:"slow"`
	Flood     HostileKind `json:"flood"`
	Garbage   HostileKind `json:"garbage"`
}

// HostileKind is one kind of hostile connection: how many were opened,
// refused at connect, and closed by the proxy (rather than by the soak).
type HostileKind struct {
	Opened       int64 `json:"opened"`
	Refused      int64 `json:"refused"`
	ClosedByPeer int64 `json:"closed_by_proxy"`
	BytesSent    int64 `json:"bytes_sent"`
}

// Verdict is one target: what was measured against what was wanted; Pass
// is null when the target could not be judged (no baseline, too few
// samples).
type Verdict struct {
	Target string `json:"target"`
	Want   string `json:"want"`
	Got    string `json:"got"`
	Pass   *bool  `json:"pass"`
}

// WriteJSON writes r as indented JSON.
func (r *Result) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteFile writes r to path atomically (temporary file and rename).
func (r *Result) WriteFile(path string) error {
	if err := atomicfile.Write(path, r.WriteJSON); err != nil {
		return fmt.Errorf("write results: %w", err)
	}
	return nil
}

// ReadFile reads a results file (a --baseline).
func ReadFile(path string) (*Result, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read soak results: %w", err)
	}
	var r Result
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("read soak results %s: %w", path, err)
	}
	if r.Version != FormatVersion {
		return nil, fmt.Errorf("read soak results %s: format version %d, want %d", path, r.Version, FormatVersion)
	}
	return &r, nil
}
