package proxy

import (
	"context"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/decongestant/decongestant/proxy/wire"
)

// buildInfoRefresh is how often the cached buildInfo is fetched again from
// a member: versions change only when members are upgraded.
const buildInfoRefresh = 10 * time.Minute

// buildInfoFields are the fields of a member's buildInfo that a client
// that has not authenticated is told: what drivers and shells read (the
// server's version and limits), nothing of the build's environment.
var buildInfoFields = []string{"version", "gitVersion", "versionArray", "bits", "debug", "maxBsonObjectSize", "storageEngines", "javascriptEngine", "modules"}

// buildInfoCache is the buildInfo answered before authentication, fetched
// from a member at most every buildInfoRefresh.
type buildInfoCache struct {
	mu  sync.Mutex
	doc bsoncore.Document
	at  time.Time
}

// buildInfo answers buildInfo for a client that has not authenticated,
// from the cached answer of a member (buildInfoFields only): such a
// client never reaches a member. The first one, and one every
// buildInfoRefresh, fetches it (one at a time); while no member answers,
// it gets the last answer, or HostUnreachable before any.
func (s *Server) buildInfo(ctx context.Context) bsoncore.Document {
	b := &s.build
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.doc != nil && time.Since(b.at) < buildInfoRefresh {
		return b.doc
	}
	doc, err := s.fetchBuildInfo(ctx)
	if err != nil {
		if b.doc != nil {
			return b.doc
		}
		return upstreamError(err, &wire.Class{Command: "buildInfo"}, false)
	}
	b.doc, b.at = doc, time.Now()
	return doc
}

// fetchBuildInfo runs buildInfo on the primary (any member answers the
// same while the set runs one version) and keeps buildInfoFields.
func (s *Server) fetchBuildInfo(ctx context.Context) (bsoncore.Document, error) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.PrimaryWait)
	defer cancel()
	c := &wire.Class{Kind: wire.KindPrimary, Command: "buildInfo", Database: "admin"}
	addr, err := s.choose(ctx, c)
	if err != nil {
		return nil, err
	}
	body := bsoncore.NewDocumentBuilder().AppendInt32("buildInfo", 1).AppendString("$db", "admin").Build()
	reply, err := s.pool.RoundTrip(ctx, addr, wire.AppendMsg(nil, s.nextRequestID(), 0, 0, body))
	if err != nil {
		return nil, err
	}
	m, err := wire.Parse(reply)
	if err != nil {
		return nil, err
	}
	full := bsoncore.Document(m.Body)
	out := bsoncore.NewDocumentBuilder()
	for _, k := range buildInfoFields {
		if v, err := full.LookupErr(k); err == nil {
			out.AppendValue(k, v)
		}
	}
	return out.AppendDouble("ok", 1).Build(), nil
}
