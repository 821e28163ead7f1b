package monitor

import (
	"strings"
	"testing"
	"time"
)

type member = struct {
	Name                string    `bson:"name"`
	StateStr            string    `bson:"stateStr"`
	Self                bool      `bson:"self"`
	LastAppliedWallTime time.Time `bson:"lastAppliedWallTime"`
	OptimeDate          time.Time `bson:"optimeDate"`
}

func TestLagFromStatus(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 10, 0, time.UTC)
	reply := statusReply{Members: []member{
		{Name: "a:1", StateStr: "SECONDARY", LastAppliedWallTime: t0.Add(-1500 * time.Millisecond)},
		{Name: "b:2", StateStr: "PRIMARY", LastAppliedWallTime: t0},
		{Name: "c:3", StateStr: "SECONDARY", LastAppliedWallTime: t0.Add(-20 * time.Millisecond)},
		{Name: "d:4", StateStr: "DOWN", LastAppliedWallTime: t0.Add(-time.Hour)},       // not selectable: ignored
		{Name: "e:5", StateStr: "SECONDARY", OptimeDate: t0.Add(-3 * time.Second)},     // old server: optimeDate
		{Name: "f:6", StateStr: "SECONDARY", LastAppliedWallTime: t0.Add(time.Second)}, // ahead of the primary's view
	}}
	s := lagFrom(LagSample{}, reply)
	if s.Err != nil || !s.Known || s.Primary != "b:2" {
		t.Fatalf("sample %+v", s)
	}
	if s.Max != 3*time.Second {
		t.Fatalf("max lag %v, want 3s (from optimeDate of e:5; DOWN member ignored)", s.Max)
	}
	want := map[string]time.Duration{"a:1": 1500 * time.Millisecond, "b:2": 0, "c:3": 20 * time.Millisecond, "d:4": 0, "e:5": 3 * time.Second, "f:6": 0}
	for _, m := range s.Members {
		if m.Lag != want[m.Host] {
			t.Errorf("%s lag %v, want %v", m.Host, m.Lag, want[m.Host])
		}
	}

	noPrimary := lagFrom(LagSample{}, statusReply{Members: []member{{Name: "a:1", StateStr: "SECONDARY"}}})
	if noPrimary.Err == nil || noPrimary.Known {
		t.Fatalf("no primary: %+v", noPrimary)
	}
	alone := lagFrom(LagSample{}, statusReply{Members: []member{{Name: "b:2", StateStr: "PRIMARY", LastAppliedWallTime: t0}}})
	if alone.Known {
		t.Fatalf("no secondary must leave the lag unknown: %+v", alone)
	}
}

func TestRTTByRole(t *testing.T) {
	ms := func(v ...int) []time.Duration {
		out := make([]time.Duration, len(v))
		for i, x := range v {
			out[i] = time.Duration(x) * time.Millisecond
		}
		return out
	}
	samples := map[string][]time.Duration{"p": ms(40, 1, 30, 45, 2), "s1": ms(3, 5), "s2": ms(4, 9, 1), "x": ms(100)}
	roles := map[string]Role{"p": RolePrimary, "s1": RoleSecondary, "s2": RoleSecondary, "x": Unknown}
	p, s := RTTByRole(samples, roles, 0)
	if p != time.Millisecond || s != time.Millisecond {
		t.Errorf("min: primary %v secondary %v, want 1ms 1ms", p, s)
	}
	p, s = RTTByRole(samples, roles, 0.5)
	if p != 30*time.Millisecond || s != 4*time.Millisecond {
		t.Errorf("median: primary %v secondary %v, want 30ms and 4ms (pooled over secondaries)", p, s)
	}
	if p, s = RTTByRole(nil, roles, 0.5); p != 0 || s != 0 {
		t.Errorf("no samples: %v %v", p, s)
	}
}

func TestRedact(t *testing.T) {
	tests := []struct{ in, want string }{
		{"mongodb://h1,h2/?replicaSet=rs0", "mongodb://h1,h2/?replicaSet=rs0"},
		{"mongodb://alice:s3cret@h1:27017,h2/?replicaSet=rs0", "mongodb://REDACTED@h1:27017,h2/?replicaSet=rs0"},
		{"mongodb://al%40ce:p%40ss@h1/db", "mongodb://REDACTED@h1/db"},
		{"mongodb+srv://u:p@cluster0.example.net/?retryWrites=true", "mongodb+srv://REDACTED@cluster0.example.net/?retryWrites=true"},
		{"alice:s3cret@h1:27017", "REDACTED@h1:27017"},
		{"mongodb://h1/?authMechanism=X&tag=a@b", "mongodb://h1/?authMechanism=X&tag=a@b"},
	}
	for _, tt := range tests {
		got := Redact(tt.in)
		if got != tt.want {
			t.Errorf("Redact(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if strings.Contains(got, "s3cret") || strings.Contains(got, "p%40ss") {
			t.Errorf("secret left in %q", got)
		}
	}
}
