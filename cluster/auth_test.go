package cluster

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/connstring"

	"github.com/decongestant/decongestant/internal/redact"
)

// TestCerts: the member certificate parses back, the CA verifies it for 127.0.0.1 and localhost as
// a server and as a client (members present it to each other), and for no other name; the key
// matches it; the files have the modes mongod and a reader expect.
func TestCerts(t *testing.T) {
	dir := t.TempDir()
	_, _, caPath, memberPath := securityPaths(dir)
	if err := writeCerts(caPath, memberPath); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]os.FileMode{caPath: 0o644, memberPath: 0o600} {
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: %v, mode %v, want %v", path, err, fi.Mode().Perm(), want)
		}
	}
	pool, err := certPool(caPath)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(memberPath)
	if err != nil {
		t.Fatal(err)
	}
	certBlock, rest := pem.Decode(b)
	keyBlock, rest := pem.Decode(rest)
	if certBlock == nil || certBlock.Type != "CERTIFICATE" || keyBlock == nil || keyBlock.Type != "PRIVATE KEY" || len(strings.TrimSpace(string(rest))) > 0 {
		t.Fatalf("member.pem is not one CERTIFICATE then one PRIVATE KEY:\n%s", b)
	}
	leaf, err := x509.ParseCertificate(certBlock.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(leaf.DNSNames, []string{"localhost"}) || len(leaf.IPAddresses) != 1 || !leaf.IPAddresses[0].Equal(net.IPv4(127, 0, 0, 1)) {
		t.Errorf("SANs %v %v, want localhost and 127.0.0.1", leaf.DNSNames, leaf.IPAddresses)
	}
	if leaf.IsCA {
		t.Error("the member certificate is a CA")
	}
	for _, name := range []string{"127.0.0.1", "localhost"} {
		for _, usage := range []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth} {
			if _, err := leaf.Verify(x509.VerifyOptions{DNSName: name, Roots: pool, KeyUsages: []x509.ExtKeyUsage{usage}}); err != nil {
				t.Errorf("verify for %s, usage %v: %v", name, usage, err)
			}
		}
	}
	if _, err := leaf.Verify(x509.VerifyOptions{DNSName: "example.com", Roots: pool}); err == nil {
		t.Error("the member certificate verifies for example.com")
	}
	if _, err := leaf.Verify(x509.VerifyOptions{DNSName: "localhost", Roots: x509.NewCertPool()}); err == nil {
		t.Error("the member certificate verifies without the CA")
	}
	if now := time.Now(); now.Before(leaf.NotBefore) || now.After(leaf.NotAfter) {
		t.Errorf("valid from %v to %v, not now", leaf.NotBefore, leaf.NotAfter)
	}
	key, err := x509.ParsePKCS8PrivateKey(keyBlock.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	ec, ok := key.(*ecdsa.PrivateKey)
	if !ok || ec.Curve != elliptic.P256() || !ec.PublicKey.Equal(leaf.PublicKey) {
		t.Errorf("the key (%T) is not the certificate's P-256 key", key)
	}
	caBytes, _ := os.ReadFile(caPath)
	if strings.Contains(string(caBytes), "PRIVATE KEY") {
		t.Error("ca.pem holds a private key")
	}
}

// TestKeyFile: mongod refuses a key file others may read, or one of more than 1024 base64
// characters; two clusters never share a key.
func TestKeyFile(t *testing.T) {
	dir := t.TempDir()
	var keys []string
	for _, name := range []string{"a", "b"} {
		path := filepath.Join(dir, name)
		if err := writeKeyFile(path); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(path)
		if err != nil || fi.Mode().Perm() != 0o400 {
			t.Fatalf("%s: %v, mode %v, want 0400", path, err, fi.Mode().Perm())
		}
		b, _ := os.ReadFile(path)
		key := strings.TrimSpace(string(b))
		if len(key) < 6 || len(key) > 1024 {
			t.Errorf("key of %d characters, mongod wants 6..1024", len(key))
		}
		if _, err := base64.StdEncoding.DecodeString(key); err != nil {
			t.Errorf("key is not base64: %v", err)
		}
		keys = append(keys, key)
	}
	if keys[0] == keys[1] {
		t.Error("two key files are the same")
	}
}

// TestCredentialsFile: 0600, also when replacing a file, and read back whole.
func TestCredentialsFile(t *testing.T) {
	dir := t.TempDir()
	_, path, _, _ := securityPaths(dir)
	if err := os.WriteFile(path, []byte("{}"), 0o644); err != nil { // an older, readable file
		t.Fatal(err)
	}
	c := &Cluster{dir: dir, st: state{ReplSet: "rs0", Auth: true, AppDB: "app", Credentials: path, TLS: true,
		CAFile: filepath.Join(dir, caFile), Members: plannedMembers(dir, []int{27017, 27018})}}
	cr := c.newCredentials()
	if err := writeCredentials(path, cr); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("%v, mode %v, want 0600", err, fi.Mode().Perm())
	}
	back, err := readCredentials(path)
	if err != nil || !credentialsEqual(*back, *cr) {
		t.Fatalf("read back %+v, %v; want %+v", back, err, cr)
	}
	if cr.Admin.Password == cr.App.Password || len(cr.Admin.Password) < 20 {
		t.Errorf("passwords %q and %q: want two different long ones", cr.Admin.Password, cr.App.Password)
	}
	for _, u := range []account{cr.Admin, cr.App} {
		cs, err := connstring.ParseAndValidate(u.URI)
		if err != nil {
			t.Fatalf("%s's URI: %v", u.Name, err)
		}
		if cs.Username != u.Name || cs.Password != u.Password || cs.AuthSource != "admin" || cs.ReplicaSet != "rs0" ||
			!cs.SSL || cs.SSLCaFile != filepath.Join(dir, caFile) || !slices.Equal(cs.Hosts, []string{"127.0.0.1:27017", "127.0.0.1:27018"}) {
			t.Errorf("%s's URI %s parses as %+v", u.Name, redact.URI(u.URI), cs)
		}
	}
	if !slices.Equal(cr.App.Roles, []string{"readWrite@app"}) || !slices.Equal(cr.Admin.Roles, []string{"root@admin"}) {
		t.Errorf("roles %v, %v", cr.Admin.Roles, cr.App.Roles)
	}
}

func credentialsEqual(a, b credentials) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

// TestSetURI: any password survives the trip through the URI, and redact.URI removes it whole.
func TestSetURI(t *testing.T) {
	hosts := []string{"127.0.0.1:1", "127.0.0.1:2"}
	for _, pw := range []string{"plain", "p@ss:w/o?r#d%+", "%41%", "a b&c=d;e,f[g]h'i\"j", "ünïcødé"} {
		uri := setURI(hosts, "rs0", "app", pw, "/tmp/x y/ca.pem")
		cs, err := connstring.ParseAndValidate(uri)
		if err != nil {
			t.Errorf("password %q: %v", pw, err)
			continue
		}
		if cs.Password != pw || cs.Username != "app" || cs.SSLCaFile != "/tmp/x y/ca.pem" {
			t.Errorf("password %q: parsed back %q (user %q, CA %q)", pw, cs.Password, cs.Username, cs.SSLCaFile)
		}
		red := redact.URI(uri)
		if want := "mongodb://REDACTED@127.0.0.1:1,127.0.0.1:2/?replicaSet=rs0&authSource=admin&tls=true&tlsCAFile=%2Ftmp%2Fx+y%2Fca.pem"; red != want {
			t.Errorf("password %q: redacted %q, want %q", pw, red, want)
		}
	}
	if got := setURI(hosts, "rs0", "", "", ""); got != "mongodb://127.0.0.1:1,127.0.0.1:2/?replicaSet=rs0" {
		t.Errorf("without auth or TLS: %q", got)
	}
}

// TestReadStateRefusesForeignSecurityFiles: Down removes the files a state file names, so one
// that names a key file, credentials or certificate elsewhere is refused.
func TestReadStateRefusesForeignSecurityFiles(t *testing.T) {
	dir := t.TempDir()
	key, creds, ca, member := securityPaths(dir)
	tests := []struct {
		name    string
		st      state
		wantErr string
	}{
		{"auth and TLS", state{Auth: true, KeyFile: key, Credentials: creds, AppDB: "app", TLS: true, CAFile: ca, MemberCert: member}, ""},
		{"neither", state{}, ""},
		{"foreign key file", state{Auth: true, KeyFile: "/etc/passwd", Credentials: creds, AppDB: "app"}, "/etc/passwd is not " + key},
		{"foreign CA", state{TLS: true, CAFile: filepath.Join(dir, "..", "ca.pem"), MemberCert: member}, "is not " + ca},
		{"auth without credentials", state{Auth: true, KeyFile: key, AppDB: "app"}, "auth without"},
		{"TLS without a certificate", state{TLS: true, CAFile: ca}, "TLS without"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.st.Version = stateVersion
			b, _ := json.Marshal(tt.st)
			if err := os.WriteFile(filepath.Join(dir, stateFile), b, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := readState(dir)
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("readState: %v, want %q", err, tt.wantErr)
			}
		})
	}
}

// TestSecurityFilesRemoved: removeFiles removes the key file, credentials, certificates and
// atomicfile's leftovers of them, and leaves the dir empty.
func TestSecurityFilesRemoved(t *testing.T) {
	dir := t.TempDir()
	key, creds, ca, member := securityPaths(dir)
	c := &Cluster{dir: dir, st: state{Auth: true, KeyFile: key, Credentials: creds, AppDB: "app", TLS: true, CAFile: ca, MemberCert: member}}
	if err := c.prepareSecurity(); err != nil {
		t.Fatal(err)
	}
	if err := writeCredentials(creds, c.newCredentials()); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".credentials.json.tmp-123"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := c.writeState(); err != nil {
		t.Fatal(err)
	}
	if err := c.removeFiles(false); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) > 0 {
		t.Errorf("left behind: %v", entries)
	}
}
