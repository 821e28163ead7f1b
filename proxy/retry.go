package proxy

import (
	"context"
	"errors"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/decongestant/decongestant/proxy/upstream"
	"github.com/decongestant/decongestant/proxy/wire"
)

// State-change error codes: the SDAM spec's "not writable primary" and
// "node is recovering" errors, on which a driver marks the server unknown
// and (but for NotWritablePrimary on 4.2+) clears its pool.
var stateChangeCodes = map[int32]string{
	91:    "ShutdownInProgress",
	189:   "PrimarySteppedDown",
	10058: "LegacyNotPrimary",
	10107: "NotWritablePrimary",
	11600: "InterruptedAtShutdown",
	11602: "InterruptedDueToReplStateChange",
	13435: "NotPrimaryNoSecondaryOk",
	13436: "NotPrimaryOrSecondary",
}

// errorCode returns the code of reply's error (ok 0); false when reply is
// no error with a code.
func errorCode(reply []byte) (int32, bool) {
	m, err := wire.Parse(reply)
	if err != nil {
		return 0, false
	}
	body := bsoncore.Document(m.Body)
	if ok, found := body.Lookup("ok").AsFloat64OK(); !found || ok != 0 {
		return 0, false
	}
	return body.Lookup("code").AsInt32OK()
}

// stateChange returns the code name of reply's state-change error, "" when
// reply is not one.
func stateChange(reply []byte) string {
	code, ok := errorCode(reply)
	if !ok {
		return ""
	}
	return stateChangeCodes[code]
}

// retryable reports why a routed read's attempt on a secondary should be
// tried once more elsewhere ("" when not): a member's state-change error,
// or a failed round trip (no reply) other than the request's own deadline,
// the client's cancellation or the proxy's shutdown. Reads are idempotent.
func retryable(reply []byte, err error) string {
	switch {
	case err == nil:
		return stateChange(reply)
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded), errors.Is(err, upstream.ErrClosed):
		return ""
	}
	return err.Error()
}

// errRetryFailed: a routed read failed on a secondary and again where it
// was retried.
var errRetryFailed = errors.New("routed read failed on two members")

// retryElsewhere sends a routed read that failed on rd.addr (why) once
// more: to another member the router picks, avoiding the failed one, or
// the primary. It returns the member tried, its reply, and either the
// reply's error document when that is a state-change error too (as
// HostUnreachable: the proxy never passes a member's state change on as
// its own, which would have the driver clear its pool to the proxy) or the
// round trip's error.
func (s *Server) retryElsewhere(ctx context.Context, rd readRoute, msg []byte, c *wire.Class, why string) (string, []byte, bsoncore.Document, error) {
	s.log.Warn("proxy: routed read failed on a secondary; retrying elsewhere", "command", c.Command, "member", rd.addr, "err", why)
	spec := rd.spec
	members := s.pool.Members()
	spec.Skip = func(h string) bool { return h == rd.addr || !isSecondary(members, h) }
	rt, err := s.router.Route(spec)
	retry := readRoute{rt: rt, ok: err == nil}
	addr := ""
	switch {
	case err == nil && rt.Host != "":
		addr = rt.Host
	case spec.NoPrimary:
		retry.done("", 0, errRetryFailed)
		return "", nil, errorDoc(codeHostUnreachable, fmt.Sprintf("%v: %s on %s, and no other secondary matches the read preference", errRetryFailed, why, rd.addr)), nil
	default:
		if addr, err = s.choose(ctx, c); err != nil {
			retry.done("", 0, err)
			return "", nil, nil, err
		}
	}
	reply, took, err := s.roundTrip(ctx, addr, msg)
	retry.done(addr, took, err)
	if err != nil {
		return addr, nil, nil, err
	}
	if again := stateChange(reply); again != "" {
		return addr, nil, errorDoc(codeHostUnreachable, fmt.Sprintf("%v: %s on %s, %s on %s", errRetryFailed, why, rd.addr, again, addr)), nil
	}
	return addr, reply, nil, nil
}
