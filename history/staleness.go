package history

import (
	"cmp"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/decongestant/decongestant/metrics"
)

// RealTime is the bound under which CheckStaleness reports every read that
// missed a write acknowledged before the read was sent: a violation of
// real-time order, the "stale read" of the consistency matrix.
const RealTime time.Duration = 0

// maxExamples is how many examples a report keeps of each finding.
const maxExamples = 5

// StaleRead is a read that returned a version older than the bound allows.
type StaleRead struct {
	Op Op `json:"op"`
	// Newest is the highest version acknowledged at or before Invoke-bound.
	Newest int64 `json:"newest"`
	// AgeVersions is Newest - Op.Version: how many acknowledged versions the
	// read missed.
	AgeVersions int64 `json:"age_versions"`
	// AgeMs is Invoke minus the first acknowledgement of a version above the
	// one read (that of version Op.Version+1 when acknowledgements come in
	// version order): how long the read's answer had been out of date.
	AgeMs float64 `json:"age_ms"`
}

// VersionAges summarises the ages in versions of the stale reads.
type VersionAges struct {
	Max int64 `json:"max"`
	P50 int64 `json:"p50"`
	P99 int64 `json:"p99"`
}

// MsAges summarises the ages in milliseconds of the stale reads.
type MsAges struct {
	Max float64 `json:"max"`
	P50 float64 `json:"p50"`
	P99 float64 `json:"p99"`
}

// StaleReport is the result of CheckStaleness under one bound.
type StaleReport struct {
	Bound   time.Duration `json:"bound_ns"`
	BoundMs float64       `json:"bound_ms"`
	Reads   int           `json:"reads"` // reads that returned, all checked
	Stale   int           `json:"stale"`
	// AgeVersions and AgeMs summarise the stale reads (nearest-rank
	// percentiles); zero when none is stale.
	AgeVersions VersionAges `json:"age_versions"`
	AgeMs       MsAges      `json:"age_ms"`
	// Examples are the stalest reads (by age in ms, then in versions).
	Examples []StaleRead `json:"examples,omitempty"`
	// Unacknowledged counts reads that returned a write not yet acknowledged
	// when the read was sent (acknowledged later, or never): legal under any
	// bound, reported to show how often reads overtake acknowledgements.
	Unacknowledged         int  `json:"saw_unacknowledged"`
	UnacknowledgedExamples []Op `json:"saw_unacknowledged_examples,omitempty"`
	// Phantom counts reads of a (version, value) pair no write of the
	// history produced: a value never written (or whose write failed), or
	// an acknowledged write's value under another version.
	Phantom         int  `json:"phantom"`
	PhantomExamples []Op `json:"phantom_examples,omitempty"`
}

// CheckStaleness checks every read that returned against real time, per key,
// by version. newest(t) is the highest version whose write or cas was
// acknowledged at or before t (0 for the initial state); a read sent at
// Invoke that returned version r is stale under bound when
// r < newest(Invoke - bound). With RealTime (0) a stale read is a violation
// of real-time order, the matrix's definition; with a bound > 0 it is a
// violation of bounded staleness: the read is older than the bound allows.
// Writes with an unknown outcome never count as acknowledged.
func CheckStaleness(h History, bound time.Duration) StaleReport {
	rep := StaleReport{Bound: bound, BoundMs: metrics.Round3(metrics.MS(bound))}
	var stale []StaleRead
	var ages []time.Duration // of the stale reads, unrounded
	keys, groups := byKey(h.Ops)
	for _, k := range keys {
		kw := newKeyWrites(groups[k])
		for _, op := range groups[k] {
			if op.Kind != KindRead || op.Outcome != OutcomeOK {
				continue
			}
			rep.Reads++
			if newest := kw.newest(op.Invoke - int64(bound)); op.Version < newest {
				age := time.Duration(op.Invoke - kw.firstAckAbove(op.Version))
				ages = append(ages, age)
				stale = append(stale, StaleRead{
					Op:          op,
					Newest:      newest,
					AgeVersions: newest - op.Version,
					AgeMs:       metrics.Round3(metrics.MS(age)),
				})
			}
			switch w, ok := kw.byValue[op.Value]; {
			case op.Version == 0 && op.Value == 0: // the initial state
			case op.Version == 0, !ok, w.Outcome == OutcomeFail, w.Outcome == OutcomeOK && w.Version != op.Version:
				rep.Phantom++
				rep.PhantomExamples = appendExample(rep.PhantomExamples, op)
			case w.Outcome == OutcomeUnknown || w.Complete > op.Invoke:
				rep.Unacknowledged++
				rep.UnacknowledgedExamples = appendExample(rep.UnacknowledgedExamples, op)
			}
		}
	}
	rep.Stale = len(stale)
	if len(stale) == 0 {
		return rep
	}
	versions := make([]int64, len(stale))
	for i, s := range stale {
		versions[i] = s.AgeVersions
	}
	rep.AgeVersions = VersionAges{Max: slices.Max(versions), P50: metrics.Quantile(versions, 0.5), P99: metrics.Quantile(versions, 0.99)}
	ms := func(q float64) float64 { return metrics.Round3(metrics.MS(metrics.Quantile(ages, q))) }
	rep.AgeMs = MsAges{Max: ms(1), P50: ms(0.5), P99: ms(0.99)}
	slices.SortStableFunc(stale, func(a, b StaleRead) int {
		return cmp.Or(cmp.Compare(b.AgeMs, a.AgeMs), cmp.Compare(b.AgeVersions, a.AgeVersions))
	})
	rep.Examples = stale[:min(len(stale), maxExamples)]
	return rep
}

// CheckStalenessBounds runs CheckStaleness once per bound.
func CheckStalenessBounds(h History, bounds []time.Duration) []StaleReport {
	reps := make([]StaleReport, len(bounds))
	for i, b := range bounds {
		reps[i] = CheckStaleness(h, b)
	}
	return reps
}

// keyWrites indexes the writes of one key.
type keyWrites struct {
	acked   []ackedVersion // ok writes by acknowledgement time
	prefix  []int64        // prefix[i]: the highest version among acked[:i+1]
	byValue map[int64]Op   // every write and cas, by the value it wrote (the first, if a value repeats)
	// versions sorted, with suffixMin[i] the first acknowledgement of any
	// version >= versions[i].
	versions  []int64
	suffixMin []int64
}

type ackedVersion struct{ version, at int64 }

func newKeyWrites(ops []Op) *keyWrites {
	kw := &keyWrites{byValue: make(map[int64]Op)}
	firstAck := make(map[int64]int64) // version -> first acknowledgement
	for _, op := range ops {
		if !op.Kind.writes() {
			continue
		}
		if _, dup := kw.byValue[op.Value]; !dup {
			kw.byValue[op.Value] = op
		}
		if op.Outcome != OutcomeOK {
			continue
		}
		kw.acked = append(kw.acked, ackedVersion{op.Version, op.Complete})
		if at, ok := firstAck[op.Version]; !ok || op.Complete < at {
			firstAck[op.Version] = op.Complete
		}
	}
	slices.SortStableFunc(kw.acked, func(a, b ackedVersion) int { return cmp.Compare(a.at, b.at) })
	kw.prefix = make([]int64, len(kw.acked))
	var hi int64
	for i, a := range kw.acked {
		hi = max(hi, a.version)
		kw.prefix[i] = hi
	}
	for v := range firstAck {
		kw.versions = append(kw.versions, v)
	}
	slices.Sort(kw.versions)
	kw.suffixMin = make([]int64, len(kw.versions))
	lo := int64(math.MaxInt64)
	for i := len(kw.versions) - 1; i >= 0; i-- {
		lo = min(lo, firstAck[kw.versions[i]])
		kw.suffixMin[i] = lo
	}
	return kw
}

// newest is the highest version acknowledged at or before t, 0 if none.
func (kw *keyWrites) newest(t int64) int64 {
	n := sort.Search(len(kw.acked), func(i int) bool { return kw.acked[i].at > t })
	if n == 0 {
		return 0
	}
	return kw.prefix[n-1]
}

// firstAckAbove is the first acknowledgement of a version above v; only
// called when one exists (v is below an acknowledged version).
func (kw *keyWrites) firstAckAbove(v int64) int64 {
	i := sort.Search(len(kw.versions), func(i int) bool { return kw.versions[i] > v })
	return kw.suffixMin[i]
}

func appendExample(ex []Op, op Op) []Op {
	if len(ex) < maxExamples {
		ex = append(ex, op)
	}
	return ex
}
