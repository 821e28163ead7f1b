package proxy

import (
	"context"
	"slices"
	"sync"

	"github.com/decongestant/decongestant/proxy/upstream"
	"github.com/decongestant/decongestant/proxy/wire"
)

// fansOut reports whether c goes to every data-bearing member, not only the
// primary: the commands that end, kill or refresh sessions. A session lives
// (in each member's logical session cache, with its cursors and
// transaction state) on every member a command of it reached, and routed
// reads reach secondaries: ended on the primary only, a session would stay
// open on a secondary until it expires there (30 minutes idle).
// startSession stays on the primary.
func fansOut(c *wire.Class) bool {
	if c.Kind != wire.KindSessions {
		return false
	}
	switch c.Command {
	case "endSessions", "killSessions", "killAllSessions", "killAllSessionsByPattern", "refreshSessions":
		return true
	}
	return false
}

// fanOut sends msg, when fansOut(c), to every secondary but primary (the
// member forward sends it to, whose reply the client gets), concurrently
// with that round trip (each its own copy: RoundTrip stamps the header of
// what it sends); the returned func waits for them. A secondary's
// failure or error reply is logged, never returned: the primary's reply
// answers the client.
func (s *Server) fanOut(ctx context.Context, primary string, msg []byte, c *wire.Class) (wait func()) {
	if !fansOut(c) {
		return func() {}
	}
	var wg sync.WaitGroup
	cmd := c.Command // not c: a goroutine holding c would move every request's Class to the heap
	for _, m := range s.pool.Members() {
		if m.Role != upstream.RoleSecondary || m.Addr == primary {
			continue
		}
		own := slices.Clone(msg)
		wg.Go(func() {
			reply, err := s.pool.RoundTrip(ctx, m.Addr, own)
			if err != nil {
				s.log.Warn("proxy: sending a sessions command to a secondary failed", "command", cmd, "member", m.Addr, "err", err)
				return
			}
			if info, ok := wire.InspectReply(reply); reply != nil && (!ok || !info.OK) {
				s.log.Warn("proxy: a secondary refused a sessions command", "command", cmd, "member", m.Addr)
			}
		})
	}
	return wg.Wait
}
