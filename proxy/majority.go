package proxy

import "github.com/decongestant/decongestant/proxy/wire"

// majorityAfter returns the message to send for a read routed to a
// secondary: msg (the client's message m, or its rewrite when msg is not
// nil), with readConcern afterClusterTime fence when c reads at majority
// and the fence is later than the read's own afterClusterTime.
//
// The read-your-writes fence lets a read go to a secondary that has
// applied the connection's last write; a majority read there reads the
// member's majority-committed snapshot, which may not hold that write yet
// (the member learns that the write is committed after applying it). With
// afterClusterTime the member waits until its majority snapshot reaches
// the fence, as it does for a causally consistent session's read (the
// drivers' causal consistency specification): the read sees the write,
// and waits only the time the member takes to learn the commit point.
func majorityAfter(m *wire.Message, msg []byte, c *wire.Class, fence wire.Timestamp) []byte {
	if c.ReadConcern.Level != "majority" || !c.ReadConcern.AfterClusterTime.Before(fence) {
		return msg
	}
	if msg != nil {
		rewritten, err := wire.Parse(msg)
		if err != nil {
			return msg // never: msg is a rewrite of the proxy's own
		}
		m = &rewritten
	}
	return wire.WithAfterClusterTime(nil, m, fence)
}
