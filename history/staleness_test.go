package history

import (
	"slices"
	"testing"
	"time"
)

func TestCheckStaleness(t *testing.T) {
	// Two writes acknowledged at 10 and 30 ms, then a read sent at 40 ms
	// that returns the first: it missed version 2 for 10 ms.
	staleAt40 := hist(w(1, "x", 1, 1, 0, 10), w(1, "x", 2, 2, 20, 30), rd(2, "x", 1, 1, 40, 50))
	type want struct {
		reads, stale     int
		versions         int64   // max age in versions
		ageMs            float64 // max age in ms
		unacked, phantom int
	}
	for _, tc := range []struct {
		name  string
		h     History
		bound time.Duration
		want  want
	}{
		{"clean", hist(w(1, "x", 1, 1, 0, 10), rd(2, "x", 1, 1, 20, 30), rd(2, "x", 0, 0, -5, 0), w(1, "x", 2, 2, 40, 50), rd(2, "x", 2, 2, 60, 70)), RealTime, want{reads: 3}},
		{"stale at B=0", staleAt40, RealTime, want{reads: 1, stale: 1, versions: 1, ageMs: 10}},
		{"stale at B=5ms", staleAt40, 5 * time.Millisecond, want{reads: 1, stale: 1, versions: 1, ageMs: 10}},
		{"stale at B=10ms: acknowledged exactly at Invoke-B", staleAt40, 10 * time.Millisecond, want{reads: 1, stale: 1, versions: 1, ageMs: 10}},
		{"not stale at B=11ms", staleAt40, 11 * time.Millisecond, want{reads: 1}},
		{"not stale at B=1s", staleAt40, time.Second, want{reads: 1}},
		{
			name:  "two versions behind",
			h:     hist(w(1, "x", 1, 1, 0, 10), w(1, "x", 2, 2, 20, 30), w(1, "x", 3, 3, 40, 50), rd(2, "x", 1, 1, 60, 70)),
			bound: RealTime,
			want:  want{reads: 1, stale: 1, versions: 2, ageMs: 30},
		},
		{
			name:  "age from the first acknowledgement above the version read",
			h:     hist(w(1, "x", 1, 1, 0, 10), w(1, "x", 2, 2, 20, 50), w(3, "x", 3, 3, 21, 30), rd(2, "x", 1, 1, 60, 70)),
			bound: RealTime,
			want:  want{reads: 1, stale: 1, versions: 2, ageMs: 30},
		},
		{
			name:  "read overlapping the write is not stale",
			h:     hist(w(1, "x", 1, 1, 0, 10), w(1, "x", 2, 2, 20, 30), rd(2, "x", 1, 1, 25, 35)),
			bound: RealTime,
			want:  want{reads: 1},
		},
		{
			name:  "saw a write before its acknowledgement",
			h:     hist(w(1, "x", 1, 1, 0, 10), w(1, "x", 2, 2, 20, 30), rd(2, "x", 2, 2, 25, 28)),
			bound: RealTime,
			want:  want{reads: 1, unacked: 1},
		},
		{
			name:  "saw a write whose outcome is unknown",
			h:     hist(unknown(w(1, "x", 1, 0, 0, 10)), rd(2, "x", 1, 1, 20, 30)),
			bound: RealTime,
			want:  want{reads: 1, unacked: 1},
		},
		{
			name:  "unknown writes are never acknowledged",
			h:     hist(unknown(w(1, "x", 1, 0, 0, 10)), rd(2, "x", 0, 0, 20, 30)),
			bound: RealTime,
			want:  want{reads: 1},
		},
		{
			name:  "a write acknowledged exactly when the read is sent is acknowledged",
			h:     hist(w(1, "x", 1, 1, 0, 20), rd(2, "x", 1, 1, 20, 30)),
			bound: RealTime,
			want:  want{reads: 1},
		},
		{
			// A recorder that kept a version for a write that timed out: the
			// write is still not an acknowledgement.
			name: "an unknown write with a version is not acknowledged",
			h: hist(w(1, "x", 1, 1, 0, 10),
				Op{Client: 1, Key: "x", Kind: KindWrite, Value: 2, Version: 2, Outcome: OutcomeUnknown, Invoke: 20 * ms, Complete: 30 * ms},
				rd(2, "x", 1, 1, 40, 50)),
			bound: RealTime,
			want:  want{reads: 1},
		},
		{
			// The first write of a value decides what a read of it saw.
			name:  "a value written again by a failed write",
			h:     hist(w(1, "x", 1, 1, 0, 10), failed(w(1, "x", 1, 0, 20, 30), "not primary"), rd(2, "x", 1, 1, 40, 50)),
			bound: RealTime,
			want:  want{reads: 1},
		},
		{
			name:  "phantom value",
			h:     hist(w(1, "x", 1, 1, 0, 10), rd(2, "x", 99, 1, 20, 30)),
			bound: RealTime,
			want:  want{reads: 1, phantom: 1},
		},
		{
			name:  "phantom version",
			h:     hist(w(1, "x", 1, 1, 0, 10), rd(2, "x", 1, 2, 20, 30)),
			bound: RealTime,
			want:  want{reads: 1, phantom: 1},
		},
		{
			name:  "phantom initial version",
			h:     hist(rd(2, "x", 5, 0, 20, 30)),
			bound: RealTime,
			want:  want{reads: 1, phantom: 1},
		},
		{
			name:  "an unknown write's value under the initial version",
			h:     hist(unknown(w(1, "x", 1, 0, 0, 10)), rd(2, "x", 1, 0, 20, 30)),
			bound: RealTime,
			want:  want{reads: 1, phantom: 1},
		},
		{
			name:  "value of a failed write",
			h:     hist(failed(w(1, "x", 1, 0, 0, 10), "not primary"), rd(2, "x", 1, 1, 20, 30)),
			bound: RealTime,
			want:  want{reads: 1, phantom: 1},
		},
		{
			name:  "value of another key",
			h:     hist(w(1, "y", 1, 1, 0, 10), rd(2, "x", 1, 1, 20, 30)),
			bound: RealTime,
			want:  want{reads: 1, phantom: 1},
		},
		{
			name:  "unknown and failed reads are not checked",
			h:     hist(w(1, "x", 1, 1, 0, 10), w(1, "x", 2, 2, 20, 30), unknown(rd(2, "x", 1, 1, 40, 50)), failed(rd(2, "x", 1, 1, 40, 50), "not primary")),
			bound: RealTime,
			want:  want{},
		},
		{
			// A w:1 write acknowledged with version 2 and rolled back; the
			// next write gets version 2 too. Reading the survivor is not
			// phantom; reading version 1 after both is stale.
			name:  "rolled back version",
			h:     hist(w(1, "x", 1, 1, 0, 10), w(1, "x", 2, 2, 20, 30), w(3, "x", 3, 2, 40, 50), rd(2, "x", 3, 2, 60, 70), rd(2, "x", 1, 1, 80, 90)),
			bound: RealTime,
			want:  want{reads: 2, stale: 1, versions: 1, ageMs: 50},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := CheckStaleness(tc.h, tc.bound)
			got := want{rep.Reads, rep.Stale, rep.AgeVersions.Max, rep.AgeMs.Max, rep.Unacknowledged, rep.Phantom}
			if got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
			if rep.Bound != tc.bound || len(rep.Examples) != min(rep.Stale, maxExamples) ||
				len(rep.UnacknowledgedExamples) != rep.Unacknowledged || len(rep.PhantomExamples) != rep.Phantom {
				t.Errorf("bound %v, %d stale / %d unacknowledged / %d phantom examples for %d / %d / %d",
					rep.Bound, len(rep.Examples), len(rep.UnacknowledgedExamples), len(rep.PhantomExamples), rep.Stale, rep.Unacknowledged, rep.Phantom)
			}
			for _, s := range rep.Examples {
				if s.AgeMs < rep.BoundMs || s.AgeVersions != s.Newest-s.Op.Version || s.AgeVersions <= 0 {
					t.Errorf("stale read %+v: age below the bound or versions inconsistent", s)
				}
			}
		})
	}
}

// The percentiles are nearest-rank over the stale reads, and the examples
// the stalest first.
func TestStalenessDistribution(t *testing.T) {
	ops := []Op{w(1, "x", 1, 1, 0, 10)}
	for v := int64(2); v <= 5; v++ { // versions 2..5 acknowledged at 20, 30, 40, 50 ms
		ops = append(ops, w(1, "x", v, v, v*10-5, v*10))
	}
	// Reads of version 1 at 100 ms, of 2, 3 and 4 at 60 ms: 4, 3, 2, 1 versions behind,
	// 80, 30, 20, 10 ms out of date.
	ops = append(ops, rd(2, "x", 1, 1, 100, 101), rd(3, "x", 2, 2, 60, 61), rd(4, "x", 3, 3, 60, 61), rd(5, "x", 4, 4, 60, 61))
	rep := CheckStaleness(hist(ops...), RealTime)
	if rep.Stale != 4 {
		t.Fatalf("%d stale, want 4", rep.Stale)
	}
	if (rep.AgeVersions != VersionAges{Max: 4, P50: 2, P99: 4}) {
		t.Errorf("versions %+v, want max 4 p50 2 p99 4", rep.AgeVersions)
	}
	if (rep.AgeMs != MsAges{Max: 80, P50: 20, P99: 80}) {
		t.Errorf("ms %+v, want max 80 p50 20 p99 80", rep.AgeMs)
	}
	if rep.Examples[0].Op.Client != 2 || rep.Examples[3].Op.Client != 5 {
		t.Errorf("examples not stalest first: %+v", rep.Examples)
	}
	reps := CheckStalenessBounds(hist(ops...), []time.Duration{RealTime, 25 * time.Millisecond, time.Second})
	for i, want := range []int{4, 2, 0} {
		if reps[i].Stale != want {
			t.Errorf("bound %v: %d stale, want %d", reps[i].Bound, reps[i].Stale, want)
		}
	}
}

// Examples: the stalest five, by age in ms, then by versions missed.
func TestStaleExamples(t *testing.T) {
	// Versions 1, 2, 3 acknowledged at 10, 20, 30 ms.
	ops := []Op{w(1, "x", 1, 1, 5, 10), w(1, "x", 2, 2, 15, 20), w(1, "x", 3, 3, 25, 30)}
	// Reads of version 1 sent at 40..46 ms: 20..26 ms out of date (since
	// version 2), 2 versions behind; a read of version 2 at 50 ms: 20 ms, 1
	// version behind, tied in ms with the read of version 1 at 40.
	for i := range int64(7) {
		ops = append(ops, rd(2+int(i), "x", 1, 1, 40+i, 60))
	}
	ops = append(ops, rd(9, "x", 2, 2, 50, 60))
	rep := CheckStaleness(hist(ops...), RealTime)
	var got []int64
	for _, s := range rep.Examples {
		got = append(got, s.Op.Invoke/ms)
	}
	if rep.Stale != 8 || !slices.Equal(got, []int64{46, 45, 44, 43, 42}) {
		t.Errorf("%d stale, examples sent at %v ms; want 8 and the stalest five, 46 down to 42", rep.Stale, got)
	}
	// Of the two tied at 20 ms, the one more versions behind comes first.
	rep = CheckStaleness(hist(append(ops[:3:3], rd(9, "x", 2, 2, 50, 60), rd(2, "x", 1, 1, 40, 60))...), RealTime)
	if len(rep.Examples) != 2 || rep.Examples[0].AgeVersions != 2 || rep.Examples[1].AgeVersions != 1 || rep.Examples[0].AgeMs != rep.Examples[1].AgeMs {
		t.Errorf("examples %+v, want the read 2 versions behind before the one 1 behind, both 20 ms", rep.Examples)
	}
}

// Phantom and unacknowledged reads keep the first five examples, in
// invocation order.
func TestStalenessOtherExamplesCapped(t *testing.T) {
	ops := []Op{w(1, "x", 1, 1, 100, 200)}
	for i := range int64(7) {
		ops = append(ops, rd(2, "x", 99, 1, 10*i, 10*i+1), rd(3, "x", 1, 1, 110+i, 120))
	}
	rep := CheckStaleness(hist(ops...), RealTime)
	if rep.Phantom != 7 || rep.Unacknowledged != 7 || len(rep.PhantomExamples) != maxExamples || len(rep.UnacknowledgedExamples) != maxExamples {
		t.Fatalf("%d phantom, %d unacknowledged, %d and %d examples; want 7, 7, %d and %d",
			rep.Phantom, rep.Unacknowledged, len(rep.PhantomExamples), len(rep.UnacknowledgedExamples), maxExamples, maxExamples)
	}
	if rep.PhantomExamples[0].Invoke != 0 || rep.PhantomExamples[4].Invoke != 40*ms || rep.UnacknowledgedExamples[4].Invoke != 114*ms {
		t.Errorf("examples not the first five: %v %v", rep.PhantomExamples, rep.UnacknowledgedExamples)
	}
}
