package proxy

import (
	"errors"
	"fmt"
	"time"

	"github.com/decongestant/decongestant/proxy/upstream"
)

// staleAfterPolls is how many lag intervals may pass without a poll before
// the lag counts as stale: two missed polls.
const staleAfterPolls = 3

// Ready says whether the proxy should be sent new clients (a readiness
// probe): nil when it is not draining, a primary is known and, with a
// Policy, the latest lag poll answered within three lag intervals; else
// an error that says why not in one line.
func (s *Server) Ready() error {
	if s.stopping() {
		return ErrDraining
	}
	return readiness(s.pool.Members(), s.lagPoll(), time.Now())
}

// lagPoll is the router's latest lag poll and interval; a zero poll
// without a router.
type lagPoll struct {
	on       bool // a router polls
	at       time.Time
	interval time.Duration
	primary  string // "" when the poll failed
	err      error
}

func (s *Server) lagPoll() lagPoll {
	if s.router == nil {
		return lagPoll{}
	}
	l := s.router.Stats().Lag
	return lagPoll{on: true, at: l.At, interval: s.router.LagInterval(), primary: l.Primary, err: l.Err}
}

// readiness decides Ready from the members the pool knows and the latest
// lag poll, at now.
func readiness(members []upstream.Member, poll lagPoll, now time.Time) error {
	primary := false
	for _, m := range members {
		primary = primary || m.Role == upstream.RolePrimary
	}
	switch {
	case !primary:
		return errors.New("no primary known")
	case !poll.on:
		return nil
	case poll.at.IsZero():
		return errors.New("no lag poll yet")
	case now.Sub(poll.at) > staleAfterPolls*poll.interval:
		return fmt.Errorf("the latest lag poll is %v old (one every %v)", now.Sub(poll.at).Round(time.Millisecond), poll.interval)
	case poll.primary == "" && poll.err != nil:
		return fmt.Errorf("the latest lag poll failed: %w", poll.err)
	}
	return nil
}
