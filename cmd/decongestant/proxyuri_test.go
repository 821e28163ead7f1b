package main

import (
	"context"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/decongestant/decongestant/internal/testutil"
)

// The proxy takes its URI from exactly one of --uri, --uri-file (owner-only
// mode, one line) and $DECONGESTANT_PROXY_URI; no error quotes the password.
func TestProxyURI(t *testing.T) {
	const uri = "mongodb://proxy:s3cret@h1,h2/?replicaSet=rs0"
	dir := t.TempDir()
	file := func(name, content string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil { // past the umask
			t.Fatal(err)
		}
		return p
	}
	good := file("uri", uri+"\n", 0o600)
	readOnly := file("ro", "  "+uri+"  \n", 0o400)
	for _, tc := range []struct {
		name          string
		flag, file    string
		env           string
		envSet        bool
		want, wantErr string
	}{
		{"flag", uri, "", "", false, uri, ""},
		{"file", "", good, "", false, uri, ""},
		{"file 0400, white space", "", readOnly, "", false, uri, ""},
		{"env", "", "", " " + uri + "\n", true, uri, ""},
		{"none", "", "", "", false, "", "--uri is required (or --uri-file FILE, or $DECONGESTANT_PROXY_URI"},
		{"flag and env", uri, "", uri, true, "", "--uri and $DECONGESTANT_PROXY_URI: give the URI one way only"},
		{"flag and file", uri, good, "", false, "", "--uri and --uri-file: give the URI one way only"},
		{"all three", uri, good, uri, true, "", "--uri and --uri-file and $DECONGESTANT_PROXY_URI: give"},
		{"empty env", "", "", " \n", true, "", "$DECONGESTANT_PROXY_URI is set but empty"},
		{"group-readable", "", file("g", uri, 0o640), "", false, "", "has mode 0640: it holds the upstream password"},
		{"world-readable", "", file("w", uri, 0o604), "", false, "", "has mode 0604"},
		{"empty file", "", file("e", "\n", 0o600), "", false, "", "is empty: want the URI on one line"},
		{"two lines", "", file("2", uri+"\n"+uri+"\n", 0o600), "", false, "", "holds more than one line"},
		{"too large", "", file("big", strings.Repeat("x", maxURIFile+1), 0o600), "", false, "", "is larger than 64 KiB"},
		{"missing", "", filepath.Join(dir, "none"), "", false, "", "no such file or directory"},
		{"directory", "", dir, "", false, "", "is not a regular file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := proxyURI(tc.flag, tc.file, tc.env, tc.envSet)
			if got != tc.want || (err == nil) != (tc.wantErr == "") || err != nil && !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("proxyURI = %q, %v; want %q, %q", got, err, tc.want, tc.wantErr)
			}
			if err != nil && strings.Contains(err.Error(), "s3cret") {
				t.Fatalf("the error quotes the password: %v", err)
			}
		})
	}
}

// The CLI reads $DECONGESTANT_PROXY_URI: with it set, --uri is no longer
// required, and giving both is refused.
func TestProxyURIFromEnv(t *testing.T) {
	t.Setenv(proxyURIEnv, "mongodb://127.0.0.1:1")
	var out, errb strings.Builder
	if err := run(t.Context(), []string{"proxy", "--listen", "0.0.0.0:1"}, &out, &errb); err == nil || !strings.Contains(err.Error(), "not a loopback address") {
		t.Fatalf("with $%s: %v; want the URI taken and the --listen check reached", proxyURIEnv, err)
	}
	if err := run(t.Context(), []string{"proxy", "--uri", "mongodb://127.0.0.1:1"}, &out, &errb); err == nil || !strings.Contains(err.Error(), "give the URI one way only") {
		t.Fatalf("with $%s and --uri: %v; want a refusal", proxyURIEnv, err)
	}
}

// End to end: the proxy takes its URI from --uri-file and, with
// --refuse-admin-commands, answers setParameter Unauthorized itself (one
// harmless to the shared set should it get through: logLevel 0, the
// default) while a ping and a find are served.
func TestProxyCLIURIFileAndAdminRefusal(t *testing.T) {
	rs := testutil.ReplicaSet(t)
	uriFile := filepath.Join(t.TempDir(), "uri")
	if err := os.WriteFile(uriFile, []byte(rs.URI()+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(t.TempDir(), "p.sock")
	p := startCLI(t, "proxy", "--uri-file", uriFile, "--listen", "unix:"+sock, "--refuse-admin-commands")
	testutil.Eventually(t, time.Minute, func() bool { _, err := os.Stat(sock); return err == nil }, "the proxy to listen")
	client := testutil.Connect(t, "mongodb://"+url.PathEscape(sock))
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	if err := client.Ping(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if err := client.Database("proxy_cli_admin").Collection("c").FindOne(ctx, bson.D{}).Err(); err != nil && !errors.Is(err, mongo.ErrNoDocuments) {
		t.Fatalf("find through the proxy: %v", err)
	}
	err := client.Database("admin").RunCommand(ctx, bson.D{{Key: "setParameter", Value: 1}, {Key: "logLevel", Value: 0}}).Err()
	var ce mongo.CommandError
	if !errors.As(err, &ce) || ce.Name != "Unauthorized" {
		t.Fatalf("setParameter through the proxy: %v; want Unauthorized", err)
	}
	p.stop(t)
}

// A world-readable --uri-file fails the command before it connects, with the
// mode in the error and not the password.
func TestProxyURIFileModeRefused(t *testing.T) {
	file := filepath.Join(t.TempDir(), "uri")
	if err := os.WriteFile(file, []byte("mongodb://proxy:s3cret@127.0.0.1:1/\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(file, 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb strings.Builder
	err := run(t.Context(), []string{"proxy", "--uri-file", file}, &out, &errb)
	if err == nil || !strings.Contains(err.Error(), "has mode 0644") || strings.Contains(err.Error()+errb.String(), "s3cret") {
		t.Fatalf("proxy --uri-file (mode 0644): %v; want the mode refused, no password", err)
	}
}
