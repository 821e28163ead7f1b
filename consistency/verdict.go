package consistency

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/decongestant/decongestant/balancer"
	"github.com/decongestant/decongestant/history"
	"github.com/decongestant/decongestant/internal/atomicfile"
)

// VerifyOptions say which bound a history's routed reads are held to.
type VerifyOptions struct {
	// Bound is the routed reads' staleness bound; checked when Bounded.
	Bound   balancer.Bound
	Bounded bool
	// Timeout bounds the linearizability check per key (1 min).
	Timeout time.Duration
}

// Verdict is every checker's report on one history.
type Verdict struct {
	Settings map[string]string `json:"settings,omitempty"`
	Ops      int               `json:"ops"`
	// Linearizable is Porcupine's check against a register per key.
	Linearizable history.LinReport `json:"linearizable"`
	// Stale is real-time staleness (bound 0): reads older than a write
	// acknowledged before they were sent.
	Stale history.StaleReport `json:"stale"`
	// Bounded is the same against the routed reads' bound, when they have
	// one (nil otherwise).
	Bounded *history.StaleReport `json:"bounded,omitempty"`
	// Sessions are the four session guarantees per client.
	Sessions history.SessionReport `json:"sessions"`
	// Lost are acknowledged writes missing from the registers' final logs.
	Lost history.LostReport `json:"lost"`
	// Events are the fault actions applied during the run.
	Events []Event `json:"events,omitempty"`
}

// Verify runs every checker on h.
func Verify(h history.History, o VerifyOptions) *Verdict {
	if o.Timeout <= 0 {
		o.Timeout = time.Minute
	}
	v := &Verdict{Settings: h.Header.Settings, Ops: len(h.Ops),
		Linearizable: history.CheckLinearizable(h, o.Timeout),
		Stale:        history.CheckStaleness(h, 0),
		Sessions:     history.CheckSessions(h),
		Lost:         history.LostWrites(h)}
	if o.Bounded && !o.Bound.Unbounded {
		b := history.CheckStaleness(h, o.Bound.Max)
		v.Bounded = &b
	}
	return v
}

// WriteFiles writes the verdict JSON into dir, and Porcupine's visualisation of
// the smallest failing key when the history is not linearizable.
func (v *Verdict) WriteFiles(dir string) error {
	if v.Linearizable.Failure != nil {
		if err := v.Linearizable.WriteVisualizationPath(filepath.Join(dir, VisualizationFile)); err != nil {
			return err
		}
	}
	return atomicfile.Write(filepath.Join(dir, VerdictFile), func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	})
}

// WriteSummary prints the verdict for people.
func (v *Verdict) WriteSummary(w io.Writer) {
	fmt.Fprintf(w, "operations: %d", v.Ops)
	if s := v.Settings; s != nil {
		fmt.Fprintf(w, " (w:%s rc:%s read:%s)", s["w"], s["rc"], s["read"])
	}
	fmt.Fprintln(w)
	lin := v.Linearizable
	fmt.Fprintf(w, "linearizable: %s (%d keys illegal, %d undecided, %d ops checked in %v)\n",
		lin.Result, lin.Illegal, lin.Unknown, lin.Checked, lin.Duration.Round(time.Millisecond))
	if f := lin.Failure; f != nil {
		from, to := failureWindow(len(f.Ops), f.Linearized)
		fmt.Fprintf(w, "  smallest failing key %s: %d ops, Porcupine linearized at most %d; ops %d-%d of them:\n",
			f.Key, len(f.Ops), f.Linearized, from+1, to)
		for _, op := range f.Ops[from:to] {
			fmt.Fprintf(w, "    %s\n", op)
		}
	}
	stale := func(name string, r history.StaleReport) {
		fmt.Fprintf(w, "%s: %d of %d reads stale", name, r.Stale, r.Reads)
		if r.Stale > 0 {
			fmt.Fprintf(w, " (by up to %d versions, %.1f ms)", r.AgeVersions.Max, r.AgeMs.Max)
		}
		fmt.Fprintf(w, "; %d saw an unacknowledged write; %d phantom\n", r.Unacknowledged, r.Phantom)
	}
	stale("stale (real time)", v.Stale)
	if v.Bounded != nil {
		stale(fmt.Sprintf("stale beyond the %v bound", time.Duration(v.Bounded.Bound)), *v.Bounded)
	}
	ss := v.Sessions
	fmt.Fprintf(w, "session guarantee violations: read-your-writes %d, monotonic reads %d, monotonic writes %d, writes-follow-reads %d\n",
		ss.ReadYourWrites.Violations, ss.MonotonicReads.Violations, ss.MonotonicWrites.Violations, ss.WritesFollowReads.Violations)
	fmt.Fprintf(w, "lost acknowledged writes: %d", v.Lost.Lost)
	if len(v.Lost.Unchecked) > 0 {
		fmt.Fprintf(w, " (keys %s unchecked: no final state)", strings.Join(v.Lost.Unchecked, ", "))
	}
	fmt.Fprintln(w)
}

// failureWindow is the part of a failing key's n ops (in invoke order)
// printed: a few before the longest partial linearization ends and the
// ones after it, where the violation is, at most 25.
func failureWindow(n, linearized int) (from, to int) {
	from = max(0, min(linearized-5, n-25))
	return from, min(n, from+25)
}
