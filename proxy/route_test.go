package proxy

import (
	"errors"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/decongestant/decongestant/proxy/upstream"
	"github.com/decongestant/decongestant/proxy/wire"
	"github.com/decongestant/decongestant/router"
)

// TestDecideRead is the routing decision's table: for each class of
// command, configuration, member snapshot and router answer, whether the
// router is asked and with what spec, where the read goes, and the error a
// mongos would give.
func TestDecideRead(t *testing.T) {
	members := []upstream.Member{
		{Addr: "p:1", Role: upstream.RolePrimary, SetName: "rs0"},
		{Addr: "s1:1", Role: upstream.RoleSecondary, SetName: "rs0"},
		{Addr: "s2:1", Role: upstream.RoleSecondary, SetName: "rs0"},
		{Addr: "s3:1", Role: upstream.RoleSecondary, SetName: "rs0"},
		{Addr: "r:1", Role: upstream.RoleOther, SetName: "rs0"}, // RECOVERING
	}
	noPrimary := members[1:]
	read := func(mode wire.Mode) wire.Class {
		return wire.Class{Kind: wire.KindRead, ReadPref: wire.ReadPref{Mode: mode}}
	}
	with := func(c wire.Class, f func(*wire.Class)) wire.Class { f(&c); return c }
	tagged := func(c *wire.Class) {
		c.ReadPref.TagSets = []wire.TagSet{{{Name: "dc", Value: "east"}}, {}}
	}
	stale := func(d time.Duration) func(*wire.Class) {
		return func(c *wire.Class) { c.ReadPref.MaxStaleness = d }
	}
	ts := func(sec uint32) wire.Timestamp { return wire.Timestamp{T: sec, I: 1} }
	noSecondary := errors.New("router: ErrNoSecondary")
	for _, tc := range []struct {
		name    string
		class   wire.Class
		cfg     Config
		fence   wire.Timestamp
		members []upstream.Member
		host    string // the router's pick ("" the primary)
		pickErr error  // the router's error (noSecondary: router.ErrNoSecondary)

		asked   bool
		spec    router.ReadSpec // when asked
		addr    string
		rewrite bool
		report  bool   // the router's pick must be reported
		err     string // an errNoEligible whose message contains this
	}{
		{name: "a write is not a read", class: wire.Class{Kind: wire.KindWrite}, cfg: Config{Reads: ReadsAll}, members: members},
		{name: "getMore is not routed", class: wire.Class{Kind: wire.KindGetMore}, cfg: Config{Reads: ReadsAll}, members: members},
		{name: "no read preference, opted-in: the primary", class: read(0), members: members},
		{name: "no read preference, reads all: routed, rewritten", class: read(0), cfg: Config{Reads: ReadsAll}, members: members, host: "s1:1",
			asked: true, addr: "s1:1", rewrite: true, report: true},
		{name: "explicit primary, opted-in: the primary", class: read(wire.PrimaryMode), members: members},
		{name: "explicit primary, reads all: still the primary", class: read(wire.PrimaryMode), cfg: Config{Reads: ReadsAll}, members: members, host: "s1:1"},
		{name: "primaryPreferred with a primary: the primary", class: read(wire.PrimaryPreferredMode), members: members, host: "s1:1"},
		{name: "primaryPreferred without a primary: a secondary", class: read(wire.PrimaryPreferredMode), members: noPrimary, host: "s2:1",
			asked: true, spec: router.ReadSpec{NoPrimary: true}, addr: "s2:1", report: true},
		{name: "primaryPreferred without a primary or secondary", class: with(read(wire.PrimaryPreferredMode), tagged), members: noPrimary, pickErr: noSecondary,
			asked: true, spec: router.ReadSpec{NoPrimary: true, TagSets: []router.TagSet{{"dc": "east"}, {}}},
			err: `Could not find host matching read preference { mode: "primaryPreferred", tags: [ { dc: "east" }, { } ] } for set rs0`},
		{name: "secondary: never the primary", class: read(wire.SecondaryMode), members: members, host: "s1:1",
			asked: true, spec: router.ReadSpec{NoPrimary: true}, addr: "s1:1", report: true},
		{name: "secondary, three eligible: the third", class: read(wire.SecondaryMode), members: members, host: "s3:1",
			asked: true, spec: router.ReadSpec{NoPrimary: true}, addr: "s3:1", report: true},
		{name: "secondary, none eligible: FailedToSatisfyReadPreference", class: read(wire.SecondaryMode), members: members, pickErr: noSecondary,
			asked: true, spec: router.ReadSpec{NoPrimary: true}, err: `Could not find host matching read preference { mode: "secondary" } for set rs0`},
		{name: "secondary with tags and maxStalenessSeconds", class: with(with(read(wire.SecondaryMode), tagged), stale(120*time.Second)), members: members, pickErr: noSecondary,
			asked: true, spec: router.ReadSpec{NoPrimary: true, MaxStaleness: 120 * time.Second, TagSets: []router.TagSet{{"dc": "east"}, {}}},
			err: `{ mode: "secondary", maxStalenessSeconds: 120, tags: [ { dc: "east" }, { } ] }`},
		{name: "secondary, the pick is RECOVERING in the proxy's view", class: read(wire.SecondaryMode), members: members, host: "r:1",
			asked: true, spec: router.ReadSpec{NoPrimary: true}, report: true, err: `{ mode: "secondary" }`},
		{name: "secondary, the router fails otherwise: the primary is not asked for", class: read(wire.SecondaryMode), members: members, pickErr: errors.New("other"),
			asked: true, spec: router.ReadSpec{NoPrimary: true}},
		{name: "secondaryPreferred: the policy's secondary", class: read(wire.SecondaryPreferredMode), members: members, host: "s2:1",
			asked: true, addr: "s2:1", report: true},
		{name: "secondaryPreferred: the policy's primary", class: read(wire.SecondaryPreferredMode), members: members, host: "",
			asked: true, report: true},
		{name: "secondaryPreferred, the pick is RECOVERING: the primary", class: read(wire.SecondaryPreferredMode), members: members, host: "r:1",
			asked: true, report: true},
		{name: "secondaryPreferred, the pick is unknown to the proxy: the primary", class: read(wire.SecondaryPreferredMode), members: members, host: "gone:1",
			asked: true, report: true},
		{name: "secondaryPreferred, the router fails: the primary, unreported", class: read(wire.SecondaryPreferredMode), members: members, pickErr: errors.New("other"),
			asked: true},
		{name: "secondaryPreferred with tags in order", class: with(read(wire.SecondaryPreferredMode), tagged), members: members, host: "s1:1",
			asked: true, spec: router.ReadSpec{TagSets: []router.TagSet{{"dc": "east"}, {}}}, addr: "s1:1", report: true},
		{name: "nearest: the policy chooses", class: read(wire.NearestMode), members: members, host: "s3:1",
			asked: true, addr: "s3:1", report: true},
		{name: "nearest with maxStalenessSeconds", class: with(read(wire.NearestMode), stale(100*time.Second)), members: members, host: "",
			asked: true, spec: router.ReadSpec{MaxStaleness: 100 * time.Second}, report: true},
		{name: "the configured bound tightens the read's", class: with(read(wire.SecondaryPreferredMode), stale(100*time.Second)), cfg: Config{MaxStaleness: 2 * time.Second}, members: members, host: "s1:1",
			asked: true, spec: router.ReadSpec{MaxStaleness: 2 * time.Second}, addr: "s1:1", report: true},
		{name: "the read's bound tightens the configured one", class: with(read(wire.SecondaryPreferredMode), stale(100*time.Second)), cfg: Config{MaxStaleness: time.Hour}, members: members, host: "s1:1",
			asked: true, spec: router.ReadSpec{MaxStaleness: 100 * time.Second}, addr: "s1:1", report: true},
		{name: "the configured bound alone", class: read(wire.SecondaryPreferredMode), cfg: Config{MaxStaleness: 2 * time.Second}, members: members, host: "s1:1",
			asked: true, spec: router.ReadSpec{MaxStaleness: 2 * time.Second}, addr: "s1:1", report: true},
		{name: "the fence, later than afterClusterTime", class: with(read(wire.SecondaryPreferredMode), func(c *wire.Class) { c.ReadConcern.AfterClusterTime = ts(5) }), fence: ts(9), members: members, host: "s1:1",
			asked: true, spec: router.ReadSpec{After: bson.Timestamp{T: 9, I: 1}}, addr: "s1:1", report: true},
		{name: "afterClusterTime, later than the fence", class: with(read(wire.SecondaryPreferredMode), func(c *wire.Class) { c.ReadConcern.AfterClusterTime = ts(12) }), fence: ts(9), members: members, host: "s1:1",
			asked: true, spec: router.ReadSpec{After: bson.Timestamp{T: 12, I: 1}}, addr: "s1:1", report: true},
		{name: "no read-your-writes: the fence is ignored", class: read(wire.SecondaryPreferredMode), cfg: Config{NoReadYourWrites: true}, fence: ts(9), members: members, host: "s1:1",
			asked: true, addr: "s1:1", report: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var asked []router.ReadSpec
			pick := func(spec router.ReadSpec) (router.Routed, error) {
				asked = append(asked, spec)
				switch {
				case tc.pickErr == noSecondary:
					return router.Routed{}, router.ErrNoSecondary
				case tc.pickErr != nil:
					return router.Routed{}, tc.pickErr
				}
				return router.Routed{Host: tc.host}, nil
			}
			rd, err := decideRead(&tc.class, &tc.cfg, tc.fence, tc.members, pick)
			if tc.asked != (len(asked) == 1) || len(asked) > 1 {
				t.Fatalf("router asked %d times, want asked %v", len(asked), tc.asked)
			}
			if tc.asked && !specEqual(asked[0], tc.spec) {
				t.Fatalf("router asked %+v, want %+v", asked[0], tc.spec)
			}
			// A read kept off the primary skips what the proxy's view
			// does not show as a secondary.
			if tc.asked && (asked[0].Skip != nil) != tc.spec.NoPrimary {
				t.Fatalf("router asked with Skip %v, want it with NoPrimary", asked[0].Skip != nil)
			}
			if tc.asked && tc.spec.NoPrimary {
				for h, skip := range map[string]bool{"s1:1": false, "s3:1": false, "p:1": true, "r:1": true, "gone:1": true} {
					if asked[0].Skip(h) != skip && !(h == "p:1" && len(tc.members) < len(members)) {
						t.Fatalf("Skip(%s) = %v, want %v", h, !skip, skip)
					}
				}
			}
			switch {
			case tc.err == "" && err != nil:
				t.Fatalf("error %v, want none", err)
			case tc.err != "" && (!errors.Is(err, errNoEligible) || !strings.Contains(err.Error(), tc.err)):
				t.Fatalf("error %v, want errNoEligible with %q", err, tc.err)
			}
			if rd.addr != tc.addr || rd.rewrite != tc.rewrite || rd.ok != tc.report {
				t.Fatalf("decided addr %q rewrite %v report %v; want %q %v %v", rd.addr, rd.rewrite, rd.ok, tc.addr, tc.rewrite, tc.report)
			}
			if rd.ok && !specEqual(rd.spec, tc.spec) {
				t.Fatalf("kept spec %+v for a retry, want %+v", rd.spec, tc.spec)
			}
		})
	}
}

func specEqual(a, b router.ReadSpec) bool {
	if a.MaxStaleness != b.MaxStaleness || a.After != b.After || a.NoPrimary != b.NoPrimary || len(a.TagSets) != len(b.TagSets) || (a.TagSets == nil) != (b.TagSets == nil) {
		return false
	}
	for i := range a.TagSets {
		if len(a.TagSets[i]) != len(b.TagSets[i]) {
			return false
		}
		for k, v := range a.TagSets[i] {
			if w, ok := b.TagSets[i][k]; !ok || w != v {
				return false
			}
		}
	}
	return true
}

// TestLoadBalancedClientRefused: a driver connecting with loadBalanced=true
// gets BadValue from the handshake (the proxy is a mongos, not a load
// balancer), so it never sends reads the proxy would route.
func TestLoadBalancedClientRefused(t *testing.T) {
	s := &Server{}
	for _, lb := range []bool{true, false} {
		body := bsoncore.NewDocumentBuilder().AppendInt32("hello", 1).AppendBoolean("loadBalanced", lb).AppendString("$db", "admin").Build()
		if lb {
			reply, err := s.handle(t.Context(), &clientConn{}, wire.AppendMsg(nil, 1, 0, 0, body))
			if err != nil {
				t.Fatal(err)
			}
			m, err := wire.Parse(reply)
			if err != nil {
				t.Fatal(err)
			}
			doc := bsoncore.Document(m.Body)
			if code, _ := doc.Lookup("code").AsInt32OK(); code != codeBadValue || !strings.Contains(doc.Lookup("errmsg").StringValue(), "loadBalanced") {
				t.Fatalf("loadBalanced hello answered %v, want BadValue naming loadBalanced", doc)
			}
			continue
		}
		c, err := wire.Classify(ptr(wire.Parse(wire.AppendMsg(nil, 1, 0, 0, body))))
		if err != nil || c.Kind != wire.KindHandshake || c.Hello.LoadBalanced {
			t.Fatalf("loadBalanced false classified %+v, %v", c, err)
		}
	}
}

func ptr(m wire.Message, err error) *wire.Message {
	if err != nil {
		panic(err)
	}
	return &m
}
