package testutil

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
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
	now := time.Now()
	caKey := newKey(tb)
	caTmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "decongestant test CA"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		tb.Fatal(err)
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		tb.Fatal(err)
	}
	leaf := func(serial int64, cn string, usage x509.ExtKeyUsage, server bool) (der []byte, key []byte) {
		k := newKey(tb)
		tmpl := &x509.Certificate{
			SerialNumber: big.NewInt(serial),
			Subject:      pkix.Name{CommonName: cn},
			NotBefore:    now.Add(-time.Hour),
			NotAfter:     now.Add(24 * time.Hour),
			KeyUsage:     x509.KeyUsageDigitalSignature,
			ExtKeyUsage:  []x509.ExtKeyUsage{usage},
		}
		if server {
			tmpl.DNSNames = []string{"localhost"}
			tmpl.IPAddresses = []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback}
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &k.PublicKey, caKey)
		if err != nil {
			tb.Fatal(err)
		}
		pk, err := x509.MarshalPKCS8PrivateKey(k)
		if err != nil {
			tb.Fatal(err)
		}
		return der, pk
	}
	c := Certs{CA: filepath.Join(dir, "ca.pem"), ServerCert: filepath.Join(dir, "server.pem"),
		ServerKey: filepath.Join(dir, "server.key"), Client: filepath.Join(dir, "client.pem")}
	write := func(path string, blocks ...*pem.Block) {
		var b []byte
		for _, bl := range blocks {
			b = append(b, pem.EncodeToMemory(bl)...)
		}
		if err := os.WriteFile(path, b, 0o600); err != nil {
			tb.Fatal(err)
		}
	}
	write(c.CA, &pem.Block{Type: "CERTIFICATE", Bytes: caDER})
	der, key := leaf(2, "localhost", x509.ExtKeyUsageServerAuth, true)
	write(c.ServerCert, &pem.Block{Type: "CERTIFICATE", Bytes: der})
	write(c.ServerKey, &pem.Block{Type: "PRIVATE KEY", Bytes: key})
	der, key = leaf(3, "client", x509.ExtKeyUsageClientAuth, false)
	write(c.Client, &pem.Block{Type: "CERTIFICATE", Bytes: der}, &pem.Block{Type: "PRIVATE KEY", Bytes: key})
	return c
}

func newKey(tb testing.TB) *ecdsa.PrivateKey {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	return k
}
