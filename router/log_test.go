package router

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/decongestant/decongestant/balancer"
	"github.com/decongestant/decongestant/hints"
	"github.com/decongestant/decongestant/monitor"
)

// records decodes the JSON lines a slog.JSONHandler wrote.
func records(t *testing.T, buf *bytes.Buffer) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(buf.Bytes()))
	for sc.Scan() {
		var rec map[string]any
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("record %q: %v", sc.Text(), err)
		}
		out = append(out, rec)
	}
	return out
}

// wantRecord is a record's level, message and some of its fields (as JSON
// decodes them: numbers are float64, durations nanoseconds).
type wantRecord struct {
	level, msg string
	fields     map[string]any
}

// matchRecords checks that got holds want's records in that order (other
// records may come between).
func matchRecords(t *testing.T, got []map[string]any, want []wantRecord) {
	t.Helper()
	i := 0
	for _, rec := range got {
		if i == len(want) {
			break
		}
		w := want[i]
		if rec["level"] != w.level || rec["msg"] != w.msg {
			continue
		}
		for k, v := range w.fields {
			if fmt.Sprint(rec[k]) != fmt.Sprint(v) {
				t.Errorf("record %q: %s = %v, want %v (%v)", w.msg, k, rec[k], v, rec)
			}
		}
		i++
	}
	if i < len(want) {
		t.Fatalf("record %s %q missing (or out of order) in %v", want[i].level, want[i].msg, got)
	}
}

// TestLoggerRecords: what each kind of event logs, at which level, with
// which fields, and never the URI's password.
func TestLoggerRecords(t *testing.T) {
	const uri = "mongodb://alice:s3cret@h1:27017,h2:27017/?replicaSet=rs0&authSource=admin&proxyPassword=s3cret&authMechanismProperties=AWS_SESSION_TOKEN:tok3n"
	const redacted = "mongodb://REDACTED@h1:27017,h2:27017/?replicaSet=rs0&authSource=admin&proxyPassword=REDACTED&authMechanismProperties=REDACTED"
	var buf bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))

	r, rtt := splitRouter(t)
	r.log = log
	hc := hints.DefaultConfig()
	r.logConnected(uri, &hc)
	rtt.samples = map[string][]time.Duration{"p:1": {ms}, "s:2": {ms}}
	for range 20 {
		serve(r, balancer.Primary, "p:1", 9*ms, 30*ms)
		serve(r, balancer.Secondary, "s:2", 3*ms, 4*ms)
	}
	r.endPeriod(time.Now())
	// A failed poll's error names the set as the monitor does: redacted.
	failed := fmt.Errorf("monitor: hello on the primary of %s: %w", redacted, errors.New("timed out"))
	r.observeLag(monitor.LagSample{At: time.Now(), Source: monitor.SourceHello, Err: failed})
	r.observeLag(poll(primaryLag("p:1"), secondaryLag("s:2", 30*ms)))
	r.logHints(hints.Event{At: time.Now(), Host: "s:2", Why: "lag 2s over 1s"})
	r.logHints(hints.Event{At: time.Now(), Host: "s:2", On: true})

	pm := offlinePerMember(t, balancer.Weights{Primary: 1, Secondaries: []balancer.HostWeight{{Host: "s1:1"}}})
	pol, err := balancer.ParseWeights("primary=0.5,s1:1=0.5")
	if err != nil {
		t.Fatal(err)
	}
	pm.policy, pm.log = pol, log
	pm.served.roles["p:0"] = balancer.Primary
	pm.observeLag(poll(primaryLag("p:0"), secondaryLag("s1:1", 10*ms)))
	pm.observeLag(poll(primaryLag("p:0"), monitor.MemberLag{Host: "s1:1", State: "RECOVERING"}))
	if err := pm.Reweight("primary=1"); err != nil {
		t.Fatal(err)
	}

	out := buf.String()
	for _, secret := range []string{"s3cret", "alice", "tok3n"} {
		if strings.Contains(out, secret) {
			t.Fatalf("a record carries %q:\n%s", secret, out)
		}
	}
	matchRecords(t, records(t, &buf), []wantRecord{
		{"INFO", "router connected", map[string]any{"uri": redacted, "policy": "decongestant", "mode": "split",
			"latency_source": "command", "hints": hc.Name(), "period": float64(10 * time.Second), "fraction": 0.1}},
		{"DEBUG", "period decision", map[string]any{"policy": "decongestant", "reason": "primary-congested",
			"previous": 0.1, "fraction": 0.2}},
		{"WARN", "lag unknown", map[string]any{"lag_source": "hello", "err": failed.Error()}},
		{"WARN", "staleness bound stopped secondary reads", map[string]any{"previous": 0.2, "lag_known": false}},
		{"INFO", "lag known", map[string]any{"max_lag": float64(30 * ms)}},
		{"INFO", "staleness bound allows secondary reads", map[string]any{"fraction": 0.2}},
		{"WARN", "read hints off", map[string]any{"member": "s:2", "why": "lag 2s over 1s"}},
		{"INFO", "read hints on", map[string]any{"member": "s:2"}},
		{"INFO", "member included", map[string]any{"member": "s1:1", "weight": 0.5, "lag": float64(10 * ms)}},
		{"WARN", "member excluded", map[string]any{"member": "s1:1", "state": "RECOVERING"}},
		{"INFO", "reweighted", map[string]any{"policy": "weights:primary=0.5,s1:1=0.5", "split": "primary=1", "weights": "primary=1"}},
	})
}

// TestLoggerLevels: at Info the period decisions are not logged (nor
// formatted); without a logger nothing is.
func TestLoggerLevels(t *testing.T) {
	var buf bytes.Buffer
	r, rtt := splitRouter(t)
	r.log = slog.New(slog.NewJSONHandler(&buf, nil))
	rtt.samples = map[string][]time.Duration{}
	r.endPeriod(time.Now())
	if buf.Len() != 0 {
		t.Fatalf("a period decision logged at Info: %s", buf.String())
	}
	r.log = nil
	r.logConnected("mongodb://h1/?replicaSet=rs0", nil)
	r.observeLag(monitor.LagSample{At: time.Now()})
	r.logHints(hints.Event{Host: "s:2"})
	if buf.Len() != 0 {
		t.Fatalf("a nil logger logged: %s", buf.String())
	}
}
