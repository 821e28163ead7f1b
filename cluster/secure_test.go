package cluster_test

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/decongestant/decongestant/cluster"
	"github.com/decongestant/decongestant/internal/testutil"
	"github.com/decongestant/decongestant/monitor"
)

// TestSecureClusterOps starts a set with auth and TLS and runs every operation that talks to the
// members (status, fail points, a cold restart, a step-down) through a handle from Open, as the
// CLI does: they all work as the admin user. The application user may read and write its database
// and nothing else. No password is in the progress output, the state file or a member's log. Down
// removes the key file, credentials and certificates with everything else.
func TestSecureClusterOps(t *testing.T) {
	testutil.SkipIfShort(t)
	ctx := ctxFor(t, 3*time.Minute)
	dir := filepath.Join(t.TempDir(), "rs")
	var progress bytes.Buffer
	c, err := cluster.Start(ctx, cluster.Config{Dir: dir, Auth: true, TLS: true, Progress: &progress, DieWithParent: true})
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	t.Cleanup(func() { _ = c.Down(context.Background()) })
	sec := c.Security()
	for path, mode := range map[string]fs.FileMode{sec.KeyFile: 0o400, sec.CredentialsFile: 0o600, sec.CertificateKeyFile: 0o600, sec.CAFile: 0o644} {
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != mode || filepath.Dir(path) != dir {
			t.Errorf("%s: %v, mode %v; want mode %v in %s", path, err, fi.Mode().Perm(), mode, dir)
		}
	}
	if u := c.URI(); strings.Contains(u, "@") || !strings.Contains(u, "tls=true&tlsCAFile=") {
		t.Errorf("URI %s: want no credentials and the CA", u)
	}

	opened, err := cluster.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	adminURI, err := opened.AdminURI()
	if err != nil {
		t.Fatal(err)
	}
	appURI, err := opened.AppURI()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"n1": "PRIMARY", "n2": "SECONDARY", "n3": "SECONDARY"}
	if got := states(t, opened); !mapsEqual(got, want) {
		t.Errorf("states as admin: %v, want %v", got, want)
	}
	if err := opened.PauseReplication(ctx, "n2"); err != nil {
		t.Errorf("pause: %v", err)
	}
	if err := opened.ResumeReplication(ctx, "n2"); err != nil {
		t.Errorf("resume: %v", err)
	}
	if err := opened.DropCaches(ctx, "n3"); err != nil {
		t.Errorf("cold restart: %v", err)
	}
	if _, err := opened.StepDown(ctx); err != nil {
		t.Errorf("step down: %v", err)
	}
	if err := opened.WaitHealthy(ctx); err != nil {
		t.Error(err)
	}

	app := testutil.Connect(t, appURI)
	if _, err := app.Database(cluster.DefaultAppDB).Collection("t").InsertOne(ctx, bson.D{{Key: "x", Value: 1}}); err != nil {
		t.Errorf("the application user's write to %s: %v", cluster.DefaultAppDB, err)
	}
	for _, tt := range []struct {
		name string
		run  func() error
		says string
	}{
		{"write elsewhere", func() error {
			_, err := app.Database("other").Collection("t").InsertOne(ctx, bson.D{{Key: "x", Value: 1}})
			return err
		}, "may not run insert on other: it needs the readWrite role on other"},
		{"replSetGetStatus", func() error {
			return app.Database("admin").RunCommand(ctx, bson.D{{Key: "replSetGetStatus", Value: 1}}).Err()
		}, "may not run replSetGetStatus: it needs the clusterMonitor role"},
	} {
		err := monitor.ExplainAccess(tt.run(), appURI)
		if !errors.Is(err, monitor.ErrNotAuthorized) || !strings.Contains(err.Error(), tt.says) {
			t.Errorf("application user, %s: %v, want ErrNotAuthorized saying %q", tt.name, err, tt.says)
		}
	}
	if err := app.Disconnect(ctx); err != nil {
		t.Fatal(err)
	}
	admin := testutil.Connect(t, adminURI)
	if err := admin.Database("admin").RunCommand(ctx, bson.D{{Key: "replSetGetStatus", Value: 1}}).Err(); err != nil {
		t.Errorf("admin: %v", err)
	}
	if err := admin.Disconnect(ctx); err != nil {
		t.Fatal(err)
	}

	// No password anywhere but the credentials file.
	var passwords []string
	for _, u := range []string{adminURI, appURI} {
		userinfo, _, _ := strings.Cut(strings.TrimPrefix(u, "mongodb://"), "@")
		_, pw, _ := strings.Cut(userinfo, ":")
		passwords = append(passwords, pw)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.log"))
	files = append(files, filepath.Join(dir, "cluster.json"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, pw := range passwords {
			if bytes.Contains(b, []byte(pw)) {
				t.Errorf("a password is in %s", f)
			}
		}
	}
	for _, pw := range passwords {
		if strings.Contains(progress.String(), pw) {
			t.Errorf("a password is in the progress output:\n%s", progress.String())
		}
	}

	if err := opened.Down(ctx); err != nil {
		t.Fatalf("down: %v", err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("dir %s after Down: %v, want it removed", dir, err)
	}
}
