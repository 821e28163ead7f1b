package testutil

import (
	"crypto/x509"
	"crypto/x509/pkix"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/decongestant/decongestant/internal/tlscert"
)

// Certs are PEM files of a throwaway CA and two certificates it signed, in
// a test's temp dir: a server's for 127.0.0.1, ::1 and localhost, and a
// client's.
type Certs struct {
	CA string // the CA's certificate
	// ServerCert and ServerKey are the server's certificate and private key,
	// apart (as tls.LoadX509KeyPair takes them).
	ServerCert, ServerKey string
	// Client is the client's certificate followed by its key (as a MongoDB
	// URI's tlsCertificateKeyFile takes them).
	Client string
}

// NewCerts generates Certs (ECDSA P-256, valid from an hour ago for a
// day); the CA's key is never written.
func NewCerts(tb testing.TB) Certs {
	tb.Helper()
	dir := tb.TempDir()
	ca, err := tlscert.NewCA(pkix.Name{CommonName: "decongestant test CA"}, time.Now(), 24*time.Hour)
	if err != nil {
		tb.Fatal(err)
	}
	srvCert, srvKey, err := ca.Issue(tlscert.Leaf{Subject: pkix.Name{CommonName: "localhost"},
		Hosts: []string{"localhost", "127.0.0.1", "::1"}, Usage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}})
	if err != nil {
		tb.Fatal(err)
	}
	cliCert, cliKey, err := ca.Issue(tlscert.Leaf{Subject: pkix.Name{CommonName: "client"}, Usage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}})
	if err != nil {
		tb.Fatal(err)
	}
	c := Certs{CA: filepath.Join(dir, "ca.pem"), ServerCert: filepath.Join(dir, "server.pem"),
		ServerKey: filepath.Join(dir, "server.key"), Client: filepath.Join(dir, "client.pem")}
	for path, b := range map[string][]byte{c.CA: ca.PEM, c.ServerCert: srvCert, c.ServerKey: srvKey, c.Client: append(cliCert, cliKey...)} {
		if err := os.WriteFile(path, b, 0o600); err != nil {
			tb.Fatal(err)
		}
	}
	return c
}
