package cluster

import (
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/decongestant/decongestant/internal/atomicfile"
	"github.com/decongestant/decongestant/internal/tlscert"
)

// The files a cluster started with Config.TLS keeps in its Dir.
const (
	caFile     = "ca.pem"     // the throwaway CA's certificate (its key is never written)
	memberFile = "member.pem" // every member's certificate and private key, 0600
	certLife   = 365 * 24 * time.Hour
)

// certs is a throwaway CA's certificate and one member certificate signed by it, PEM encoded.
type certs struct {
	CA []byte // CERTIFICATE
	// Member is the member's CERTIFICATE followed by its PRIVATE KEY (PKCS #8), as mongod's
	// --tlsCertificateKeyFile wants them.
	Member []byte
}

// newCerts makes a CA (valid for a year from an hour ago; its key exists only in memory: nothing
// else can ever be signed by it) and a member certificate signed by it for 127.0.0.1 and
// localhost, usable for both ends of a connection (members present it to each other as clients
// too).
func newCerts(now time.Time) (certs, error) {
	ca, err := tlscert.NewCA(pkix.Name{Organization: []string{"decongestant"}, CommonName: "decongestant local cluster CA"}, now, certLife)
	if err != nil {
		return certs{}, err
	}
	// mongod reads O, OU and DC of member certificates for x.509 membership; keyfile auth ignores
	// them, but a distinct subject keeps the CA's and the member's apart.
	cert, key, err := ca.Issue(tlscert.Leaf{
		Subject: pkix.Name{Organization: []string{"decongestant"}, OrganizationalUnit: []string{"members"}, CommonName: "localhost"},
		Hosts:   []string{"localhost", "127.0.0.1"},
		Usage:   []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
	})
	if err != nil {
		return certs{}, err
	}
	return certs{CA: ca.PEM, Member: append(cert, key...)}, nil
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
