package proxy

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/decongestant/decongestant/proxy/upstream"
)

// Ready: a primary known and, with a policy, a lag poll that answered
// within three intervals.
func TestReadiness(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	withPrimary := []upstream.Member{{Addr: "h1", Role: upstream.RolePrimary}, {Addr: "h2", Role: upstream.RoleSecondary}}
	noPrimary := []upstream.Member{{Addr: "h1", Role: upstream.RoleUnknown}, {Addr: "h2", Role: upstream.RoleSecondary}}
	fresh := lagPoll{on: true, at: now.Add(-2 * time.Second), interval: time.Second, primary: "h1"}
	tests := []struct {
		name    string
		members []upstream.Member
		poll    lagPoll
		want    string // "" for ready
	}{
		{"no policy, primary", withPrimary, lagPoll{}, ""},
		{"no policy, no primary", noPrimary, lagPoll{}, "no primary known"},
		{"no member", nil, lagPoll{}, "no primary known"},
		{"fresh poll", withPrimary, fresh, ""},
		{"poll three intervals old", withPrimary, lagPoll{on: true, at: now.Add(-3 * time.Second), interval: time.Second, primary: "h1"}, ""},
		{"stale poll", withPrimary, lagPoll{on: true, at: now.Add(-3001 * time.Millisecond), interval: time.Second, primary: "h1"}, "the latest lag poll is 3.001s old (one every 1s)"},
		{"no poll yet", withPrimary, lagPoll{on: true, interval: time.Second}, "no lag poll yet"},
		{"failed poll", withPrimary, lagPoll{on: true, at: now, interval: time.Second, err: errors.New("no primary")}, "the latest lag poll failed: no primary"},
		{"fresh poll, no primary", noPrimary, fresh, "no primary known"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := readiness(tt.members, tt.poll, now)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("not ready: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("readiness %v, want %q", err, tt.want)
			}
		})
	}
}
