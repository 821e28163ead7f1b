package proxy

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"

	"github.com/xdg-go/scram"

	"github.com/decongestant/decongestant/internal/atomicfile"
)

// SCRAM-SHA-256 parameters of the credentials SetPassword derives, as
// mongod derives them (its scramSHA256IterationCount default and salt
// length).
const (
	DefaultIterations = 15000
	// MinIterations is the least iteration count a credentials file may
	// hold (RFC 7677, section 4: at least 4096).
	MinIterations = 4096
	saltLen       = 28
	sha256Len     = 32
)

// Credentials are the users clients authenticate to the proxy as, with
// SCRAM-SHA-256: for each user (a name in an authentication database, as
// in a MongoDB URI's authSource) the salt, the iteration count and the two
// keys derived from the password, never the password itself.
//
// On disk (LoadCredentials, WriteFile) they are JSON, mode 0600:
//
//	{"users": [{"user": "app", "db": "admin", "credentials": {"SCRAM-SHA-256":
//	  {"iterationCount": 15000, "salt": "...", "storedKey": "...", "serverKey": "..."}}}]}
//
// salt, storedKey and serverKey are standard base64. The credentials
// document has the shape of a user's in mongod's admin.system.users, whose
// keys are derived the same way (RFC 5802 with SHA-256, the password
// SASLprep-ed); a SCRAM-SHA-1 entry there is kept but never used: the proxy
// speaks SCRAM-SHA-256 only.
//
// The zero value holds no user. A Credentials must not be changed while a
// Server uses it (New copies what it needs).
type Credentials struct {
	users []credUser
}

// credUser is one entry of the file.
type credUser struct {
	User        string   `json:"user"`
	DB          string   `json:"db"`
	Credentials credKeys `json:"credentials"`
}

type credKeys struct {
	SHA256 *scramKeys `json:"SCRAM-SHA-256,omitempty"`
	// SHA1 is kept as it was read (a copy of a system.users document may
	// carry it) and never used.
	SHA1 json.RawMessage `json:"SCRAM-SHA-1,omitempty"`
}

type scramKeys struct {
	IterationCount int    `json:"iterationCount"`
	Salt           string `json:"salt"`
	StoredKey      string `json:"storedKey"`
	ServerKey      string `json:"serverKey"`
}

type credentialsFile struct {
	Users []credUser `json:"users"`
}

// ErrPermissions: a credentials file that others than its owner may read
// or write.
var ErrPermissions = errors.New("credentials file is accessible by group or others")

// LoadCredentials reads a credentials file: it must be readable by its
// owner only (mode 0600 or 0400), hold valid JSON, and give every user a
// name, a database and SCRAM-SHA-256 credentials. A missing file is an
// error that matches fs.ErrNotExist.
func LoadCredentials(path string) (*Credentials, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("proxy users file %s does not exist (create it with `decongestant proxy-user --file %s --user NAME`): %w", path, path, fs.ErrNotExist)
		}
		return nil, fmt.Errorf("proxy users file: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("proxy users file: %w", err)
	}
	if st.IsDir() {
		return nil, fmt.Errorf("proxy users file %s is a directory", path)
	}
	if perm := st.Mode().Perm(); perm&0o077 != 0 {
		return nil, fmt.Errorf("proxy users file %s has mode %04o: %w: run chmod 600 %s", path, perm, ErrPermissions, path)
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("proxy users file %s: %w", path, err)
	}
	c, err := parseCredentials(b)
	if err != nil {
		return nil, fmt.Errorf("proxy users file %s: %w", path, err)
	}
	return c, nil
}

// parseCredentials reads and checks the JSON of a credentials file.
func parseCredentials(b []byte) (*Credentials, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var f credentialsFile
	if err := dec.Decode(&f); err != nil {
		var se *json.SyntaxError
		switch {
		case errors.As(err, &se):
			return nil, fmt.Errorf("not valid JSON at byte %d: %w", se.Offset, err)
		case errors.Is(err, io.EOF):
			return nil, errors.New("empty file: want {\"users\": [...]}")
		case errors.Is(err, io.ErrUnexpectedEOF):
			return nil, fmt.Errorf("not valid JSON: truncated: %w", err)
		}
		return nil, fmt.Errorf("not a users file: %w", err)
	}
	if dec.More() {
		return nil, errors.New("not a users file: text after the JSON document")
	}
	seen := map[userKey]bool{}
	for i, u := range f.Users {
		if u.User == "" || u.DB == "" {
			return nil, fmt.Errorf("user #%d has no user name or no db (%q, %q)", i+1, u.User, u.DB)
		}
		k := userKey{u.DB, u.User}
		if seen[k] {
			return nil, fmt.Errorf("user %q of db %q is given twice", u.User, u.DB)
		}
		seen[k] = true
		if _, err := u.stored(); err != nil {
			return nil, fmt.Errorf("user %q of db %q: %w", u.User, u.DB, err)
		}
	}
	return &Credentials{users: f.Users}, nil
}

// userKey names a user: its authentication database and its name.
type userKey struct{ db, user string }

// stored decodes the user's SCRAM-SHA-256 credentials.
func (u credUser) stored() (scram.StoredCredentials, error) {
	k := u.Credentials.SHA256
	if k == nil {
		return scram.StoredCredentials{}, errors.New("no SCRAM-SHA-256 credentials (set a password with `decongestant proxy-user`)")
	}
	if k.IterationCount < MinIterations {
		return scram.StoredCredentials{}, fmt.Errorf("SCRAM-SHA-256 iterationCount %d is below %d", k.IterationCount, MinIterations)
	}
	salt, err := base64.StdEncoding.DecodeString(k.Salt)
	if err != nil || len(salt) == 0 {
		return scram.StoredCredentials{}, fmt.Errorf("SCRAM-SHA-256 salt %q is not non-empty base64", k.Salt)
	}
	stored, err := base64.StdEncoding.DecodeString(k.StoredKey)
	if err != nil || len(stored) != sha256Len {
		return scram.StoredCredentials{}, fmt.Errorf("SCRAM-SHA-256 storedKey is not %d bytes in base64", sha256Len)
	}
	server, err := base64.StdEncoding.DecodeString(k.ServerKey)
	if err != nil || len(server) != sha256Len {
		return scram.StoredCredentials{}, fmt.Errorf("SCRAM-SHA-256 serverKey is not %d bytes in base64", sha256Len)
	}
	return scram.StoredCredentials{
		KeyFactors: scram.KeyFactors{Salt: string(salt), Iters: k.IterationCount},
		StoredKey:  stored,
		ServerKey:  server,
	}, nil
}

// Len is the number of users.
func (c *Credentials) Len() int {
	if c == nil {
		return 0
	}
	return len(c.users)
}

// Users lists the users as "db.user", sorted.
func (c *Credentials) Users() []string {
	if c == nil {
		return nil
	}
	out := make([]string, 0, len(c.users))
	for _, u := range c.users {
		out = append(out, u.DB+"."+u.User)
	}
	sort.Strings(out)
	return out
}

// SetPassword adds user of db, or replaces its credentials, with
// SCRAM-SHA-256 credentials derived from password (SASLprep-ed, as drivers
// prepare it) with a new random salt and iterations (DefaultIterations
// when 0). added is false when the user existed.
func (c *Credentials) SetPassword(user, db, password string, iterations int) (added bool, err error) {
	if user == "" || db == "" {
		return false, errors.New("proxy users: a user needs a name and a db")
	}
	if password == "" {
		return false, errors.New("proxy users: empty password")
	}
	if iterations == 0 {
		iterations = DefaultIterations
	}
	if iterations < MinIterations {
		return false, fmt.Errorf("proxy users: %d iterations is below %d", iterations, MinIterations)
	}
	// The keys depend on the password, the salt and the iterations only:
	// the client's user name is not part of them.
	cl, err := scram.SHA256.NewClient("", password, "")
	if err != nil {
		// err quotes the password: never show it.
		return false, errors.New("proxy users: the password holds a character SASLprep prohibits (a control character, say)")
	}
	salt := make([]byte, saltLen)
	rand.Read(salt)
	sc, err := cl.GetStoredCredentialsWithError(scram.KeyFactors{Salt: string(salt), Iters: iterations})
	if err != nil {
		return false, fmt.Errorf("proxy users: deriving the keys: %w", err)
	}
	keys := &scramKeys{
		IterationCount: iterations,
		Salt:           base64.StdEncoding.EncodeToString(salt),
		StoredKey:      base64.StdEncoding.EncodeToString(sc.StoredKey),
		ServerKey:      base64.StdEncoding.EncodeToString(sc.ServerKey),
	}
	for i := range c.users {
		if c.users[i].User == user && c.users[i].DB == db {
			c.users[i].Credentials.SHA256 = keys
			return false, nil
		}
	}
	c.users = append(c.users, credUser{User: user, DB: db, Credentials: credKeys{SHA256: keys}})
	return true, nil
}

// WriteTo writes the credentials as the JSON of a credentials file.
func (c *Credentials) WriteTo(w io.Writer) (int64, error) {
	f := credentialsFile{Users: c.users}
	if f.Users == nil {
		f.Users = []credUser{}
	}
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return 0, err
	}
	n, err := w.Write(append(b, '\n'))
	return int64(n), err
}

// WriteFile writes the credentials to path, mode 0600, atomically (a
// temporary file renamed over path).
func (c *Credentials) WriteFile(path string) error {
	err := atomicfile.WriteMode(path, 0o600, func(w io.Writer) error { _, err := c.WriteTo(w); return err })
	if err != nil {
		return fmt.Errorf("proxy users file %s: %w", path, err)
	}
	return nil
}

// index decodes every user's credentials for lookups.
func (c *Credentials) index() (map[userKey]scram.StoredCredentials, error) {
	m := make(map[userKey]scram.StoredCredentials, c.Len())
	if c == nil {
		return m, nil
	}
	for _, u := range c.users {
		sc, err := u.stored()
		if err != nil {
			return nil, fmt.Errorf("user %q of db %q: %w", u.User, u.DB, err)
		}
		m[userKey{u.DB, u.User}] = sc
	}
	return m, nil
}
