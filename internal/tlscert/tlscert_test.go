package tlscert

import (
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"testing"
	"time"
)

// TestIssuedCertificatesVerify: a server certificate verifies for its hosts
// against the CA and for no other host; a client certificate verifies for
// client authentication only; the key matches the certificate.
func TestIssuedCertificatesVerify(t *testing.T) {
	now := time.Now()
	ca, err := NewCA(pkix.Name{CommonName: "test CA"}, now, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(ca.PEM) {
		t.Fatal("CA PEM does not parse")
	}
	srvPEM, srvKey, err := ca.Issue(Leaf{Subject: pkix.Name{CommonName: "localhost"}, Hosts: []string{"localhost", "127.0.0.1", "::1"},
		Usage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tls.X509KeyPair(srvPEM, srvKey); err != nil {
		t.Fatalf("server key does not match its certificate: %v", err)
	}
	srv := parse(t, srvPEM)
	for _, h := range []string{"localhost", "127.0.0.1", "::1"} {
		if _, err := srv.Verify(x509.VerifyOptions{Roots: roots, DNSName: h, CurrentTime: now}); err != nil {
			t.Errorf("server certificate for %s: %v", h, err)
		}
	}
	if _, err := srv.Verify(x509.VerifyOptions{Roots: roots, DNSName: "example.com", CurrentTime: now}); err == nil {
		t.Error("server certificate verified for a host it does not name")
	}
	if srv.NotBefore.After(now.Add(-Backdate / 2)) {
		t.Errorf("NotBefore %v is not backdated from %v", srv.NotBefore, now)
	}
	cliPEM, _, err := ca.Issue(Leaf{Subject: pkix.Name{CommonName: "client"}, Usage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}})
	if err != nil {
		t.Fatal(err)
	}
	cli := parse(t, cliPEM)
	if _, err := cli.Verify(x509.VerifyOptions{Roots: roots, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}, CurrentTime: now}); err != nil {
		t.Errorf("client certificate: %v", err)
	}
	if _, err := cli.Verify(x509.VerifyOptions{Roots: roots, CurrentTime: now}); err == nil {
		t.Error("client certificate verified for server authentication")
	}
	other, err := NewCA(pkix.Name{CommonName: "other CA"}, now, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	otherRoots := x509.NewCertPool()
	otherRoots.AppendCertsFromPEM(other.PEM)
	if _, err := srv.Verify(x509.VerifyOptions{Roots: otherRoots, DNSName: "localhost", CurrentTime: now}); err == nil {
		t.Error("certificate verified against another CA")
	}
	if _, err := srv.Verify(x509.VerifyOptions{Roots: roots, DNSName: "localhost", CurrentTime: now.Add(2 * time.Hour)}); err == nil {
		t.Error("certificate verified after its life")
	}
}

func parse(t *testing.T, b []byte) *x509.Certificate {
	t.Helper()
	blk, _ := pem.Decode(b)
	if blk == nil {
		t.Fatal("no PEM block")
	}
	c, err := x509.ParseCertificate(blk.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
