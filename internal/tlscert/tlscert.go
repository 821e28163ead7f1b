// Package tlscert mints throwaway certificates: a CA whose key lives only in
// memory, and leaf certificates it signs, PEM encoded. The local cluster's
// TLS (package cluster) and the tests' client and server certificates
// (internal/testutil) both come from here.
package tlscert

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"time"
)

// Backdate is how far back NotBefore is set, for clocks slightly behind.
const Backdate = time.Hour

// CA is a self-signed certificate authority (ECDSA P-256). Its key is never
// written anywhere: nothing but what it signs while in memory can chain to
// it.
type CA struct {
	// PEM is the CA's certificate.
	PEM  []byte
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	now  time.Time
	life time.Duration
}

// NewCA makes a CA valid from Backdate before now for life; the
// certificates it issues share that validity.
func NewCA(subject pkix.Name, now time.Time, life time.Duration) (*CA, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               subject,
		NotBefore:             now.Add(-Backdate),
		NotAfter:              now.Add(life),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLenZero:        true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, fmt.Errorf("CA certificate: %w", err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("CA certificate: %w", err)
	}
	return &CA{PEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), cert: cert, key: key, now: now, life: life}, nil
}

// Leaf is what a leaf certificate is for.
type Leaf struct {
	Subject pkix.Name
	// Hosts are the DNS names and IP addresses it is valid for (none for a
	// client's certificate).
	Hosts []string
	// Usage: server authentication, client authentication, or both.
	Usage []x509.ExtKeyUsage
}

// Issue signs a new key's certificate for l and returns the certificate and
// the private key (PKCS #8), each PEM encoded.
func (ca *CA) Issue(l Leaf) (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      l.Subject,
		NotBefore:    ca.now.Add(-Backdate),
		NotAfter:     ca.now.Add(ca.life),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage:  l.Usage,
	}
	for _, h := range l.Hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		return nil, nil, fmt.Errorf("certificate for %s: %w", l.Subject.CommonName, err)
	}
	pk, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, nil, fmt.Errorf("key for %s: %w", l.Subject.CommonName, err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pk}), nil
}

// serial is a random 128-bit certificate serial number.
func serial() *big.Int {
	n, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128)) // never fails: rand.Read never fails
	return n
}
