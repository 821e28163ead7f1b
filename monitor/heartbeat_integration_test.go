package monitor_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/decongestant/decongestant/balancer"
	"github.com/decongestant/decongestant/cluster"
	"github.com/decongestant/decongestant/internal/testutil"
	"github.com/decongestant/decongestant/monitor"
)

// samples records every sample a monitor applies.
type samples struct {
	mu  sync.Mutex
	all []monitor.LagSample
}

func (s *samples) add(l monitor.LagSample) {
	s.mu.Lock()
	s.all = append(s.all, l)
	s.mu.Unlock()
}

// since returns the samples sent at or after t.
func (s *samples) since(t time.Time) []monitor.LagSample {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []monitor.LagSample
	for _, l := range s.all {
		if !l.At.Before(t) {
			out = append(out, l)
		}
	}
	return out
}

// member returns host's entry in l.
func member(l monitor.LagSample, host string) (monitor.MemberLag, bool) {
	for _, m := range l.Members {
		if m.Host == host {
			return m, true
		}
	}
	return monitor.MemberLag{}, false
}

// writeEvery writes to db.coll every d until the test ends.
func writeEvery(t *testing.T, client *mongo.Client, db, coll string, d time.Duration) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		c := client.Database(db).Collection(coll)
		upsert := options.UpdateOne().SetUpsert(true)
		for i := 0; ctx.Err() == nil; i++ {
			c.UpdateOne(ctx, bson.D{{Key: "_id", Value: i % 10}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: 1}}}}, upsert)
			select {
			case <-ctx.Done():
			case <-time.After(d):
			}
		}
	})
	stop = func() { cancel(); wg.Wait() }
	t.Cleanup(stop)
	return stop
}

// TestEachSourceDetectsPausedReplication pauses replication on one
// secondary while the primary writes every 10 ms, with one monitor per lag
// source. Every known sample a source takes after the pause must show the
// paused member at least as far behind as the time since the pause (the
// estimate never under-states; 50 ms allowed for the heartbeat's clock
// offset), so the first poll after the pause, due within one interval, and
// an unknown sample at the horizon otherwise, stop reads there in time; and
// once replication resumes each source sees the member catch up.
func TestEachSourceDetectsPausedReplication(t *testing.T) {
	rs := testutil.ReplicaSet(t)
	client := testutil.Connect(t, rs.URI())
	testutil.DropAtCleanup(t, client.Database("monitortest"))
	ctx := context.Background()
	prim, err := rs.Primary(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var paused cluster.Member
	for _, m := range rs.Members() {
		if m.Name != prim.Name {
			paused = m
			break
		}
	}
	const interval = 200 * time.Millisecond
	sources := []monitor.LagSource{monitor.SourceReplSetGetStatus, monitor.SourceHeartbeat, monitor.SourceHello}
	got := map[monitor.LagSource]*samples{}
	for _, src := range sources {
		s := &samples{}
		got[src] = s
		m, err := monitor.Start(ctx, rs.URI(), monitor.Config{LagInterval: interval, LagSource: src, OnLag: s.add,
			Heartbeat: monitor.Namespace{DB: "monitortest"}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { m.Close(context.Background()) })
		if m.LagSource() != src || m.LagSourceReason() != "asked for" {
			t.Fatalf("asked for %v, got %v (%s)", src, m.LagSource(), m.LagSourceReason())
		}
	}
	stopWrites := writeEvery(t, client, "monitortest", "detect", 10*time.Millisecond)
	// Every source vouches for the member before the pause.
	start := time.Now()
	testutil.Eventually(t, 30*time.Second, func() bool {
		for _, src := range sources {
			ok := false
			for _, l := range got[src].since(start) {
				m, _ := member(l, paused.Host)
				ok = ok || (l.Known && m.Role == balancer.Secondary)
			}
			if !ok {
				return false
			}
		}
		return true
	}, "not every source vouched for "+paused.Name+" before the pause")

	if err := rs.PauseReplication(ctx, paused.Name); err != nil {
		t.Fatal(err)
	}
	resumed := false
	t.Cleanup(func() {
		if !resumed {
			_ = rs.ResumeReplication(context.Background(), paused.Name)
		}
	})
	pausedAt := time.Now()
	// Each source has seen the member over 1 s behind.
	testutil.Eventually(t, 30*time.Second, func() bool {
		for _, src := range sources {
			seen := false
			for _, l := range got[src].since(pausedAt) {
				m, _ := member(l, paused.Host)
				seen = seen || (l.Known && m.Role == balancer.Secondary && m.Lag > time.Second)
			}
			if !seen {
				return false
			}
		}
		return true
	}, "not every source saw the paused member over 1 s behind")
	if err := rs.ResumeReplication(ctx, paused.Name); err != nil {
		t.Fatal(err)
	}
	resumed = true
	resumedAt := time.Now()

	const offsetErr = 50 * time.Millisecond
	for _, src := range sources {
		n := 0
		for _, l := range got[src].since(pausedAt) {
			if !l.At.Before(resumedAt) {
				break
			}
			if !l.Known {
				continue
			}
			n++
			m, ok := member(l, paused.Host)
			if !ok || m.Role != balancer.Secondary {
				t.Errorf("%v: sample at %s does not vouch for the paused member: %+v", src, l.At.Format("15:04:05.000"), m)
				continue
			}
			if least := l.At.Sub(pausedAt) - offsetErr; m.Lag < least {
				t.Errorf("%v: sample sent %v after the pause says %s is %v behind: under-states (at least %v)",
					src, l.At.Sub(pausedAt).Round(time.Millisecond), paused.Name, m.Lag, least)
			}
		}
		if n < 3 {
			t.Errorf("%v: %d known samples during the pause", src, n)
		}
	}

	// Caught up: the member is back within a second by every source.
	testutil.Eventually(t, 30*time.Second, func() bool {
		for _, src := range sources {
			s := got[src].since(time.Now().Add(-interval))
			if len(s) == 0 {
				return false
			}
			m, _ := member(s[len(s)-1], paused.Host)
			if !s[len(s)-1].Known || m.Role != balancer.Secondary || m.Lag >= time.Second {
				return false
			}
		}
		return true
	}, "not every source saw the resumed member catch up")
	stopWrites()
	testutil.WaitReplicated(t, client)
}

// createUser creates user (password pw) in the admin database with roles,
// and removes it when the test ends.
func createUser(t *testing.T, admin *mongo.Client, user, pw string, roles bson.A) {
	t.Helper()
	ctx := context.Background()
	if err := admin.Database("admin").RunCommand(ctx, bson.D{{Key: "createUser", Value: user}, {Key: "pwd", Value: pw},
		{Key: "roles", Value: roles}}).Err(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		admin.Database("admin").RunCommand(context.Background(), bson.D{{Key: "dropUser", Value: user}})
	})
}

// TestHeartbeatForALeastPrivilegeUser: on a set with auth, a user whose
// only privileges are find, insert and update on the heartbeat's one
// collection (a custom role) gets the heartbeat under SourceAuto (it may
// not run replSetGetStatus), and with writes flowing millisecond lags
// under a second on the healthy set; so does the built-in readWrite user
// of the database. A user who may only read it gets hello, and the reason
// says why.
func TestHeartbeatForALeastPrivilegeUser(t *testing.T) {
	rs := testutil.StartReplicaSet(t, cluster.Config{Auth: true, AppDB: "app"})
	adminURI, err := rs.AdminURI()
	if err != nil {
		t.Fatal(err)
	}
	appURI, err := rs.AppURI()
	if err != nil {
		t.Fatal(err)
	}
	admin := testutil.Connect(t, adminURI)
	ctx := context.Background()
	ns := monitor.Namespace{DB: "app", Coll: monitor.DefaultHeartbeatColl}
	if err := admin.Database("app").RunCommand(ctx, bson.D{{Key: "createRole", Value: "heartbeat"},
		{Key: "privileges", Value: bson.A{bson.D{
			{Key: "resource", Value: bson.D{{Key: "db", Value: ns.DB}, {Key: "collection", Value: ns.Coll}}},
			{Key: "actions", Value: bson.A{"find", "insert", "update"}}}}},
		{Key: "roles", Value: bson.A{}}}).Err(); err != nil {
		t.Fatal(err)
	}
	createUser(t, admin, "beat", "beat-pw", bson.A{bson.D{{Key: "role", Value: "heartbeat"}, {Key: "db", Value: "app"}}})
	createUser(t, admin, "reader", "reader-pw", bson.A{bson.D{{Key: "role", Value: "read"}, {Key: "db", Value: "app"}}})
	as := func(user, pw string) []*options.ClientOptions {
		return []*options.ClientOptions{options.Client().SetAuth(options.Credential{Username: user, Password: pw, AuthSource: "admin"})}
	}
	writeEvery(t, admin, "app", "load", 5*time.Millisecond)

	const interval = 200 * time.Millisecond
	for _, tt := range []struct {
		name    string
		uri     string
		opts    []*options.ClientOptions
		sources []monitor.LagSource
		reason  []string
	}{
		{"find, insert and update on the collection", rs.URI(), as("beat", "beat-pw"), []monitor.LagSource{monitor.SourceHeartbeat, monitor.SourceHello},
			[]string{"auto: heartbeat on app.decongestant_heartbeat, then hello", "replSetGetStatus is not authorized for this user"}},
		{"readWrite on the database", appURI, nil, []monitor.LagSource{monitor.SourceHeartbeat, monitor.SourceHello},
			[]string{"auto: heartbeat on app.decongestant_heartbeat, then hello", "replSetGetStatus is not authorized for this user"}},
		{"read only: hello", rs.URI(), as("reader", "reader-pw"), []monitor.LagSource{monitor.SourceHello},
			[]string{"auto: hello: ", "the heartbeat's namespace app.decongestant_heartbeat is not writable for this user", `user "reader" may not run findAndModify on app: it needs the readWrite role on app`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := &samples{}
			m, err := monitor.Start(ctx, tt.uri, monitor.Config{LagInterval: interval, OnLag: s.add, Heartbeat: ns, ClientOptions: tt.opts})
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close(context.Background())
			if got := m.LagSources(); !slices.Equal(got, tt.sources) || m.LagSource() != tt.sources[0] {
				t.Fatalf("sources %v (%v), want %v; reason %q", got, m.LagSource(), tt.sources, m.LagSourceReason())
			}
			for _, r := range tt.reason {
				if !strings.Contains(m.LagSourceReason(), r) {
					t.Errorf("reason %q does not say %q", m.LagSourceReason(), r)
				}
			}
			if tt.sources[0] != monitor.SourceHeartbeat {
				return
			}
			// Ten healthy samples in a row, all from the heartbeat, every
			// secondary under a second behind, some lag that is not a
			// whole number of seconds, and the median lag under one
			// interval: the heartbeat is a quarter interval old when read
			// (whole seconds, as hello's lastWriteDate has, would make it
			// about half a second).
			start := time.Now()
			var lags []time.Duration
			testutil.Eventually(t, 30*time.Second, func() bool {
				run, fraction := 0, false
				lags = lags[:0]
				for _, l := range s.since(start) {
					if !l.Known || l.Source != monitor.SourceHeartbeat || l.Max >= time.Second || secondaries(l) != 2 {
						run, fraction, lags = 0, false, lags[:0]
						continue
					}
					run++
					for _, mem := range l.Members {
						if mem.Role == balancer.Secondary {
							fraction = fraction || mem.Lag%time.Second != 0
							lags = append(lags, mem.Lag)
						}
					}
					if run >= 10 && fraction {
						return true
					}
				}
				return false
			}, "no ten healthy heartbeat samples in a row with millisecond lags under 1 s")
			slices.Sort(lags)
			t.Logf("heartbeat lags of the secondaries over ten polls every %v: %v", interval, lags)
			if med := lags[len(lags)/2]; med >= interval {
				t.Errorf("median lag %v on a healthy set, want under the interval %v", med, interval)
			}
			for _, l := range s.since(start) {
				if l.Source != monitor.SourceHeartbeat && l.Known {
					t.Errorf("sample at %s taken by %v (%s)", l.At.Format("15:04:05.000"), l.Source, l.Fallback)
				}
			}
		})
	}
}

// secondaries counts the members l vouches for as secondaries.
func secondaries(l monitor.LagSample) int {
	n := 0
	for _, m := range l.Members {
		if m.Role == balancer.Secondary {
			n++
		}
	}
	return n
}

// TestAutoFallsBackWhenReplSetGetStatusHangs: under SourceAuto,
// replSetGetStatus on the primary is made to block for 3 s (failCommand,
// only for the monitor's own client): the polls it does not answer within
// its share of the horizon are taken by the heartbeat, known, instead of
// lapsing into unknown samples; when the fail point is lifted,
// replSetGetStatus takes them again.
func TestAutoFallsBackWhenReplSetGetStatusHangs(t *testing.T) {
	rs := testutil.ReplicaSet(t)
	client := testutil.Connect(t, rs.URI())
	testutil.DropAtCleanup(t, client.Database("monitortest"))
	ctx := context.Background()
	prim, err := rs.Primary(ctx)
	if err != nil {
		t.Fatal(err)
	}
	const interval = 200 * time.Millisecond
	s := &samples{}
	m, err := monitor.Start(ctx, rs.URI(), monitor.Config{LagInterval: interval, OnLag: s.add, Heartbeat: monitor.Namespace{DB: "monitortest"}})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close(context.Background())
	if want := []monitor.LagSource{monitor.SourceReplSetGetStatus, monitor.SourceHeartbeat, monitor.SourceHello}; !slices.Equal(m.LagSources(), want) {
		t.Fatalf("sources %v, want %v (%s)", m.LagSources(), want, m.LagSourceReason())
	}
	writeEvery(t, client, "monitortest", "fallback", 10*time.Millisecond)
	block := bson.D{{Key: "configureFailPoint", Value: "failCommand"}, {Key: "mode", Value: "alwaysOn"},
		{Key: "data", Value: bson.D{{Key: "failCommands", Value: bson.A{"replSetGetStatus"}}, {Key: "blockConnection", Value: true},
			{Key: "blockTimeMS", Value: 3000}, {Key: "appName", Value: "decongestant-monitor"}}}}
	if err := rs.SetFailPoint(ctx, prim.Name, block); err != nil {
		t.Fatal(err)
	}
	lifted := false
	lift := func() error {
		lifted = true
		return rs.SetFailPoint(context.Background(), prim.Name, bson.D{{Key: "configureFailPoint", Value: "failCommand"}, {Key: "mode", Value: "off"}})
	}
	t.Cleanup(func() {
		if !lifted {
			_ = lift()
		}
	})
	blocked := time.Now()
	testutil.Eventually(t, 30*time.Second, func() bool {
		n := 0
		for _, l := range s.since(blocked) {
			if l.Known && l.Source == monitor.SourceHeartbeat && strings.Contains(l.Fallback, "replsetgetstatus: no answer within its share of the horizon") {
				n++
			}
		}
		return n >= 10
	}, "the heartbeat did not take ten polls replSetGetStatus left unanswered")
	var known, unknown int
	for _, l := range s.since(blocked.Add(time.Second)) {
		if l.Known {
			known++
		} else {
			unknown++
			if !errors.Is(l.Err, monitor.ErrLagExpired) {
				t.Logf("unknown sample at %s: %v", l.At.Format("15:04:05.000"), l.Err)
			}
		}
	}
	t.Logf("while replSetGetStatus hung: %d known samples, %d unknown", known, unknown)
	// Without the fallback every one would be unknown (the 3 s block is
	// far past the horizon); a poll of this loaded machine may still lapse
	// now and then.
	if unknown*2 > known {
		t.Errorf("%d unknown samples beside %d known ones while replSetGetStatus hung: the fallback should take nearly every poll", unknown, known)
	}
	if err := lift(); err != nil {
		t.Fatal(err)
	}
	liftedAt := time.Now()
	testutil.Eventually(t, 30*time.Second, func() bool {
		for _, l := range s.since(liftedAt) {
			if l.Known && l.Source == monitor.SourceReplSetGetStatus && l.Fallback == "" {
				return true
			}
		}
		return false
	}, "replSetGetStatus did not take the polls back once it answered again")
}
