package cluster

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"os"
	"time"

	"github.com/decongestant/decongestant/internal/atomicfile"
)

// The files a cluster started with Config.TLS keeps in its Dir.
const (
	caFile       = "ca.pem"     // the throwaway CA's certificate (its key is never written)
	memberFile   = "member.pem" // every member's certificate and private key, 0600
	certLife     = 365 * 24 * time.Hour
	certBackdate = time.Hour // NotBefore is this far back, for clocks slightly behind
)

// certs is a throwaway CA's certificate and one member certificate signed by it, PEM encoded.
type certs struct {
	CA []byte // CERTIFICATE
	// Member is the member's CERTIFICATE followed by its PRIVATE KEY (PKCS #8), as mongod's
	// --tlsCertificateKeyFile wants them.
	Member []byte
}

// newCerts makes a CA (ECDSA P-256, self-signed, valid for a year from an hour ago) and a member
// certificate signed by it for 127.0.0.1 and localhost, usable for both ends of a connection
// (members present it to each other as clients too). The CA's key exists only in memory: nothing
// else can ever be signed by it.
func newCerts(now time.Time) (certs, error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return certs{}, err
	}
	caTmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{Organization: []string{"decongestant"}, CommonName: "decongestant local cluster CA"},
		NotBefore:             now.Add(-certBackdate),
		NotAfter:              now.Add(certLife),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLenZero:        true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return certs{}, fmt.Errorf("CA certificate: %w", err)
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return certs{}, fmt.Errorf("CA certificate: %w", err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return certs{}, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial(),
		// mongod reads O, OU and DC of member certificates for x.509 membership; keyfile auth
		// ignores them, but a distinct subject keeps the CA's and the member's apart.
		Subject:     pkix.Name{Organization: []string{"decongestant"}, OrganizationalUnit: []string{"members"}, CommonName: "localhost"},
		NotBefore:   now.Add(-certBackdate),
		NotAfter:    now.Add(certLife),
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		DNSNames:    []string{"localhost"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return certs{}, fmt.Errorf("member certificate: %w", err)
	}
	pk, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return certs{}, fmt.Errorf("member key: %w", err)
	}
	var member bytes.Buffer
	_ = pem.Encode(&member, &pem.Block{Type: "CERTIFICATE", Bytes: der})
	_ = pem.Encode(&member, &pem.Block{Type: "PRIVATE KEY", Bytes: pk})
	return certs{CA: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), Member: member.Bytes()}, nil
}

// serial is a random 128-bit certificate serial number.
func serial() *big.Int {
	n, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128)) // never fails: rand.Read never fails
	return n
}

// writeCerts writes a new CA certificate to caPath (0644: it is public) and the member certificate
// with its key to memberPath (0600), each atomically.
func writeCerts(caPath, memberPath string) error {
	c, err := newCerts(time.Now())
	if err != nil {
		return fmt.Errorf("TLS certificates: %w", err)
	}
	if err := atomicfile.WriteMode(caPath, 0o644, func(w io.Writer) error { _, err := w.Write(c.CA); return err }); err != nil {
		return fmt.Errorf("TLS certificates: %w", err)
	}
	if err := atomicfile.WriteMode(memberPath, 0o600, func(w io.Writer) error { _, err := w.Write(c.Member); return err }); err != nil {
		return fmt.Errorf("TLS certificates: %w", err)
	}
	return nil
}

// certPool returns a pool holding the certificates of the PEM file at path.
func certPool(path string) (*x509.CertPool, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(b) {
		return nil, fmt.Errorf("%s holds no PEM certificate", path)
	}
	return pool, nil
}
