package router_test

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/decongestant/decongestant/cluster"
	"github.com/decongestant/decongestant/internal/testutil"
	"github.com/decongestant/decongestant/monitor"
	"github.com/decongestant/decongestant/router"
)

// TestSecureCluster runs the router on a set with auth and TLS as the application user, who has
// readWrite on testDB and no other role: it connects (lag from hello) and routes with the primary
// and a per-member policy, also across a step-down the admin user makes. A wrong password and a
// client that does not trust the CA fail at once, each with its own error and no password in it.
func TestSecureCluster(t *testing.T) {
	rs := testutil.StartReplicaSet(t, cluster.Config{Auth: true, TLS: true, AppDB: testDB})
	adminURI, err := rs.AdminURI()
	if err != nil {
		t.Fatal(err)
	}
	appURI, err := rs.AppURI()
	if err != nil {
		t.Fatal(err)
	}
	seed(t, testutil.Connect(t, adminURI), "secure", 100)
	_, secs := secondaries(t, rs)

	for _, spec := range []string{"primary", "weights:" + secs[0].Name + "=0.5," + secs[1].Name + "=0.5"} {
		t.Run(spec, func(t *testing.T) {
			r := connect(t, appURI, policy(t, spec, nil))
			if r.LagSource() != monitor.SourceHello {
				t.Errorf("lag source %v (%s), want hello: the application user may not run replSetGetStatus", r.LagSource(), r.LagSourceReason())
			}
			if spec != "primary" {
				waitWeighted(t, r, secs[0].Host, secs[1].Host)
			}
			before := r.Served()
			readN(t, r, "secure", 400)
			d := r.Served().Sub(before)
			secondary := d.ByHost[secs[0].Host] + d.ByHost[secs[1].Host]
			if spec == "primary" && secondary != 0 || spec != "primary" && secondary != 400 {
				t.Errorf("served %v: want all 400 on the %s", d.ByHost, map[bool]string{true: "primary", false: "secondaries"}[spec == "primary"])
			}
		})
	}

	t.Run("members as the application user", func(t *testing.T) {
		// replSetGetConfig needs clusterMonitor: the members come from hello instead.
		app := testutil.Connect(t, appURI)
		members, err := monitor.Members(context.Background(), app, appURI)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, m := range members {
			got[m.Host] = m.Name
		}
		for _, m := range rs.Members() {
			if got[m.Host] != m.Name {
				t.Errorf("members %v, want %s named %s", members, m.Host, m.Name)
			}
		}
	})

	t.Run("stepdown as admin", func(t *testing.T) {
		r := connect(t, appURI, policy(t, "primary", nil))
		next, err := rs.StepDown(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		testutil.Eventually(t, 20*time.Second, func() bool {
			before := r.Served()
			c := r.Database(testDB).Collection("secure")
			if err := c.FindOne(context.Background(), map[string]int{"_id": 1}).Err(); err != nil {
				return false
			}
			return r.Served().Sub(before).ByHost[next.Host] == 1
		}, "reads never reached the new primary "+next.Name)
	})

	// The wrong password has every character that means something in a URI, percent-encoded.
	const wrong = "p@ss:w/o?r#d%+"
	_, hosts, _ := strings.Cut(appURI, "@")
	wrongURI := "mongodb://" + cluster.AppUser + ":" +
		strings.NewReplacer("@", "%40", ":", "%3A", "/", "%2F", "?", "%3F", "#", "%23", "%", "%25", "+", "%2B").Replace(wrong) + "@" + hosts
	noCA := strings.Replace(appURI, "&tlsCAFile="+url.QueryEscape(rs.Security().CAFile), "", 1)
	if noCA == appURI {
		t.Fatalf("no tlsCAFile to remove in the application URI")
	}
	for _, tt := range []struct {
		name, uri string
		want      error
		says      string
	}{
		{"wrong password", wrongURI, router.ErrAuth, `authentication failed for user "app" (authSource admin): wrong password or no such user`},
		{"without the CA", noCA, router.ErrTLS, "is not trusted (signed by an unknown authority): give the CA"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			start := time.Now()
			r, err := router.Connect(ctx, tt.uri, router.WithPolicy(policy(t, "primary", nil)))
			took := time.Since(start)
			if err == nil {
				r.Close(context.Background())
				t.Fatal("connected")
			}
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.says) {
				t.Errorf("error %q, want %v saying %q", err, tt.want, tt.says)
			}
			if took > 5*time.Second {
				t.Errorf("failed after %v, want at once (the connect timeout is 10 s)", took)
			}
			for _, secret := range []string{wrong, url.QueryEscape(wrong), "p%40ss", "\n"} {
				if strings.Contains(err.Error(), secret) {
					t.Errorf("error %q holds %q", err, secret)
				}
			}
			t.Logf("%v after %v", err, took.Round(time.Millisecond))
		})
	}
}
