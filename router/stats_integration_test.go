package router_test

import (
	"bytes"
	"context"
	"log/slog"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/decongestant/decongestant/balancer"
	"github.com/decongestant/decongestant/internal/testutil"
	"github.com/decongestant/decongestant/router"
)

// lockedBuffer is a log destination safe to read while the router writes.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestStatsCountWhatWasServed: on a real replica set, Stats' reads per
// member and per role are Served's, every read's latency is counted under
// its member, a period later every member has its pings, lag and share, and
// the logger said where it connected.
func TestStatsCountWhatWasServed(t *testing.T) {
	rs := testutil.ReplicaSet(t)
	client := testutil.Connect(t, rs.URI())
	seed(t, client, "stats", 100)
	var logs lockedBuffer
	r := connect(t, rs.URI(), policy(t, "spillway", nil), router.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	const n = 800
	readN(t, r, "stats", n)

	st, s := r.Stats(), r.Served()
	if s.Total() != n || st.Served.Primary != s.Primary || st.Served.Secondary != s.Secondary || st.Served.Other != s.Other {
		t.Fatalf("stats served %+v, Served %+v, want the same %d reads", st.Served, s, n)
	}
	var sum int64
	for _, m := range st.Members {
		sum += m.Served
		if m.Served != s.ByHost[m.Host] || m.Client.Count != m.Served || m.Wire.Count != m.Served {
			t.Errorf("%s: served %d, Served %d, latencies counted client %d wire %d", m.Host, m.Served, s.ByHost[m.Host], m.Client.Count, m.Wire.Count)
		}
	}
	if sum != n {
		t.Fatalf("members served %d in all, want %d (%+v)", sum, n, st.Members)
	}

	after := time.Now()
	testutil.Eventually(t, 20*time.Second, func() bool {
		st = r.Stats()
		if !st.PeriodEnd.After(after) || len(st.Members) != len(rs.Members()) || !st.Lag.Known {
			return false
		}
		for _, m := range st.Members {
			if m.MinRTT <= 0 || !m.LagKnown {
				return false
			}
		}
		return true
	}, "no period with every member's pings and lag")
	if st.Policy != "spillway" || !st.PerMember || st.LagSource == 0 || st.Lag.At.IsZero() {
		t.Fatalf("stats %+v", st)
	}
	var decisions int64
	for _, c := range st.Decisions {
		decisions += c
	}
	var weights float64
	for _, m := range st.Members {
		weights += m.Weight
		if m.Role == 0 {
			t.Errorf("%s has no role", m.Host)
		}
	}
	if decisions < 1 || st.Decision.Reason == "" || math.Abs(weights-1) > 1e-9 {
		t.Fatalf("decisions %v (latest %+v), members' weights sum to %v", st.Decisions, st.Decision, weights)
	}
	if st.Members[0].Role == balancer.Primary && st.Members[0].Lag != 0 {
		t.Fatalf("primary's lag %v", st.Members[0].Lag)
	}

	if err := r.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	out := logs.String()
	if !strings.Contains(out, `msg="router connected"`) || !strings.Contains(out, "policy=spillway") || !strings.Contains(out, "lag_source=") {
		t.Fatalf("no connect summary in the log:\n%s", out)
	}
}
