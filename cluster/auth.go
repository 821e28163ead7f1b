package cluster

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/decongestant/decongestant/internal/atomicfile"
	"github.com/decongestant/decongestant/internal/redact"
)

// The users Start creates with Config.Auth, both in the admin database.
const (
	// AdminUser has the root role: fault actions, fail points, everything.
	AdminUser = "admin"
	// AppUser has readWrite on the application database (Config.AppDB) and nothing else.
	AppUser = "app"
	// DefaultAppDB is the application user's database when Config.AppDB is "".
	DefaultAppDB = "app"
)

// The files a cluster started with Config.Auth keeps in its Dir.
const (
	keyFile   = "keyfile"          // the members' shared secret for internal authentication, 0400
	credsFile = "credentials.json" // the users' names, passwords and URIs, 0600
)

// keyFileBytes is how many random bytes the key file holds, base64 encoded: 1024 characters, the
// most mongod reads.
const keyFileBytes = 768

// Security says how a cluster's members are protected; the zero value is neither auth nor TLS.
type Security struct {
	// Auth: the members authenticate each other with KeyFile and clients must authenticate;
	// CredentialsFile holds the users' passwords and URIs (0600), AppDB is the application user's
	// database.
	Auth            bool
	KeyFile         string
	CredentialsFile string
	AppDB           string
	// TLS: the members require TLS (tlsMode requireTLS) with CertificateKeyFile, signed by the CA
	// in CAFile; clients trust CAFile and need no certificate of their own.
	TLS                bool
	CAFile             string
	CertificateKeyFile string
}

// account is a user Start created, as the credentials file holds it.
type account struct {
	Name     string `json:"user"`
	Password string `json:"password"`
	// Roles are the user's roles, as role@db.
	Roles []string `json:"roles"`
	// URI connects to the replica set as this user (authSource admin; with TLS, trusting the CA).
	URI string `json:"uri"`
}

// credentials is the content of Dir/credentials.json.
type credentials struct {
	Admin account `json:"admin"`
	App   account `json:"app"`
}

// checkDBName reports why name is not a database name mongod accepts, or nil.
func checkDBName(name string) error {
	switch {
	case name == "":
		return errors.New("database name is empty")
	case len(name) >= 64:
		return fmt.Errorf("database name %q is %d bytes, mongod takes at most 63", name, len(name))
	case strings.ContainsAny(name, "/\\. \"$*<>:|?\x00"):
		return fmt.Errorf("database name %q holds one of / \\ . space \" $ * < > : | ?", name)
	}
	return nil
}

// Security returns how the cluster's members are protected.
func (c *Cluster) Security() Security {
	c.mu.Lock()
	defer c.mu.Unlock()
	return Security{Auth: c.st.Auth, KeyFile: c.st.KeyFile, CredentialsFile: c.st.Credentials, AppDB: c.st.AppDB,
		TLS: c.st.TLS, CAFile: c.st.CAFile, CertificateKeyFile: c.st.MemberCert}
}

// AdminURI is URI with the admin user's credentials (root role) when the cluster runs with auth,
// and URI otherwise: what fault actions, fail points and benchmarks that may do anything need. It
// holds a password: never print it (redact.URI).
func (c *Cluster) AdminURI() (string, error) {
	u, err := c.user(func(cr *credentials) account { return cr.Admin })
	if err != nil || u == nil {
		return c.URI(), err
	}
	return u.URI, nil
}

// AppURI is URI with the application user's credentials (readWrite on Security().AppDB and nothing
// else) when the cluster runs with auth, and URI otherwise. It holds a password: never print it
// (redact.URI).
func (c *Cluster) AppURI() (string, error) {
	u, err := c.user(func(cr *credentials) account { return cr.App })
	if err != nil || u == nil {
		return c.URI(), err
	}
	return u.URI, nil
}

// user returns the user pick chooses from the credentials, nil without auth.
func (c *Cluster) user(pick func(*credentials) account) (*account, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.st.Auth {
		return nil, nil
	}
	if c.creds == nil {
		cr, err := readCredentials(c.st.Credentials)
		if err != nil {
			return nil, err
		}
		c.creds = cr
	}
	u := pick(c.creds)
	return &u, nil
}

// readCredentials reads the credentials file at path.
func readCredentials(path string) (*credentials, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("credentials of a cluster with auth: %w", err)
	}
	var cr credentials
	if err := json.Unmarshal(b, &cr); err != nil {
		return nil, fmt.Errorf("credentials file %s: %w", path, err)
	}
	if cr.Admin.Password == "" || cr.App.Password == "" {
		return nil, fmt.Errorf("credentials file %s: a user without a password", path)
	}
	return &cr, nil
}

// clientOptions are the options of a direct connection to a member: the CA to trust with TLS, and
// the admin user's credentials with auth unless anonymous (the localhost exception Start uses
// before any user exists).
func (c *Cluster) clientOptions(anonymous bool) (*options.ClientOptions, error) {
	sec := c.Security()
	co := options.Client()
	if sec.TLS {
		pool, err := certPool(sec.CAFile)
		if err != nil {
			return nil, fmt.Errorf("the cluster's CA: %w", err)
		}
		co.SetTLSConfig(&tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12})
	}
	if sec.Auth && !anonymous {
		u, err := c.user(func(cr *credentials) account { return cr.Admin })
		if err != nil {
			return nil, err
		}
		co.SetAuth(options.Credential{Username: u.Name, Password: u.Password, AuthSource: "admin"})
	}
	return co, nil
}

// setURI is the connection string of the replica set replSet on hosts: as user (with password)
// when user is not "", with authSource admin; trusting the CA in caFile when caFile is not "".
// User name and password are percent-encoded, so any character may appear in them.
func setURI(hosts []string, replSet, user, password, caFile string) string {
	var b strings.Builder
	b.WriteString("mongodb://")
	if user != "" {
		b.WriteString(escapeUserinfo(user) + ":" + escapeUserinfo(password) + "@")
	}
	b.WriteString(strings.Join(hosts, ",") + "/?replicaSet=" + url.QueryEscape(replSet))
	if user != "" {
		b.WriteString("&authSource=admin")
	}
	if caFile != "" {
		b.WriteString("&tls=true&tlsCAFile=" + url.QueryEscape(caFile))
	}
	return b.String()
}

// escapeUserinfo percent-encodes every byte of s but the unreserved characters of RFC 3986, which
// the driver's URI parser (url.PathUnescape) reads back as s; url.UserPassword would leave ':' and
// '+' and other sub-delimiters as they are.
func escapeUserinfo(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch ch := s[i]; {
		case 'a' <= ch && ch <= 'z', 'A' <= ch && ch <= 'Z', '0' <= ch && ch <= '9', ch == '-', ch == '.', ch == '_', ch == '~':
			b.WriteByte(ch)
		default:
			b.WriteByte('%')
			b.WriteByte(hex[ch>>4])
			b.WriteByte(hex[ch&15])
		}
	}
	return b.String()
}

// writeKeyFile writes a new random key file to path, 0400 as mongod requires (it refuses a key
// file others may read).
func writeKeyFile(path string) error {
	key := make([]byte, keyFileBytes)
	_, _ = rand.Read(key) // never fails
	return atomicfile.WriteMode(path, 0o400, func(w io.Writer) error {
		_, err := io.WriteString(w, base64.StdEncoding.EncodeToString(key)+"\n")
		return err
	})
}

// prepareSecurity writes what the members' options name before they start: the key file with
// auth, the CA and the member certificate with TLS.
func (c *Cluster) prepareSecurity() error {
	sec := c.Security()
	if sec.Auth {
		if err := writeKeyFile(sec.KeyFile); err != nil {
			return fmt.Errorf("key file: %w", err)
		}
	}
	if sec.TLS {
		if err := writeCerts(sec.CAFile, sec.CertificateKeyFile); err != nil {
			return err
		}
	}
	return nil
}

// newCredentials makes the two users with random passwords (crypto/rand, 130 bits each) and their
// URIs.
func (c *Cluster) newCredentials() *credentials {
	sec := c.Security()
	members := c.Members()
	hosts := make([]string, 0, len(members))
	for _, m := range members {
		hosts = append(hosts, m.Host)
	}
	ca := ""
	if sec.TLS {
		ca = sec.CAFile
	}
	user := func(name string, roles ...string) account {
		pw := rand.Text()
		return account{Name: name, Password: pw, Roles: roles, URI: setURI(hosts, c.ReplSet(), name, pw, ca)}
	}
	return &credentials{Admin: user(AdminUser, "root@admin"), App: user(AppUser, "readWrite@"+sec.AppDB)}
}

// createUsers writes the credentials file and creates the admin user through the localhost
// exception (anon: connections without credentials, which mongod allows from 127.0.0.1 until the
// first user exists), then, as admin, the application user. Each is written to every member
// (w: all of them) before it returns, so both can authenticate on any member at once.
func (c *Cluster) createUsers(ctx context.Context, anon *conns) error {
	cr := c.newCredentials()
	path := c.Security().CredentialsFile
	if err := writeCredentials(path, cr); err != nil {
		return err
	}
	c.mu.Lock()
	c.creds = cr
	c.mu.Unlock()
	prim, err := c.primary(ctx, anon)
	if err != nil {
		return err
	}
	wc := bson.D{{Key: "w", Value: len(c.Members())}, {Key: "wtimeout", Value: int64(commandTimeout.Milliseconds())}}
	create := func(cs *conns, u account, roles bson.A) error {
		cmd := bson.D{{Key: "createUser", Value: u.Name}, {Key: "pwd", Value: u.Password},
			{Key: "roles", Value: roles}, {Key: "writeConcern", Value: wc}}
		if err := cs.run(ctx, prim.Host, cmd, nil); err != nil {
			// The command holds the password: an error that quotes it must not.
			return fmt.Errorf("create user %s on %s: %w", u.Name, prim.Name, redact.Error(err, u.Password))
		}
		return nil
	}
	if err := create(anon, cr.Admin, bson.A{bson.D{{Key: "role", Value: "root"}, {Key: "db", Value: "admin"}}}); err != nil {
		return err
	}
	admin := c.newConns()
	defer admin.close()
	appDB := c.Security().AppDB
	if err := create(admin, cr.App, bson.A{bson.D{{Key: "role", Value: "readWrite"}, {Key: "db", Value: appDB}}}); err != nil {
		return err
	}
	fmt.Fprintf(c.progress, "created user %s (root) and user %s (readWrite on %s); passwords and URIs in %s (0600)\n",
		AdminUser, AppUser, appDB, path)
	return nil
}

// writeCredentials writes cr to path, 0600 from the start.
func writeCredentials(path string, cr *credentials) error {
	err := atomicfile.WriteMode(path, 0o600, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(cr)
	})
	if err != nil {
		return fmt.Errorf("write credentials: %w", err)
	}
	return nil
}

// securityPaths are the files Start writes for auth and TLS in dir.
func securityPaths(dir string) (key, creds, ca, member string) {
	return filepath.Join(dir, keyFile), filepath.Join(dir, credsFile), filepath.Join(dir, caFile), filepath.Join(dir, memberFile)
}
