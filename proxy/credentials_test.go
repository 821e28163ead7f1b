package proxy

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/xdg-go/scram"
)

// rfc7677 is RFC 7677's example user: password "pencil", salt and
// iteration count of its exchange, and the keys derived from them
// (computed apart, with Python's hashlib: PBKDF2-HMAC-SHA-256, then
// StoredKey = H(HMAC(salted, "Client Key")), ServerKey = HMAC(salted,
// "Server Key")).
const rfc7677 = `{"users": [{"user": "user", "db": "admin", "credentials": {"SCRAM-SHA-256": {
	"iterationCount": 4096, "salt": "W22ZaJ0SNY7soEsUEjb6gQ==",
	"storedKey": "WG5d8oPm3OtcPnkdi4Uo7BkeZkBFzpcXkuLmtbsT4qY=",
	"serverKey": "wfPLwcE6nTWhTAmQ7tl2KeoiWGPlZqQxSrmfPwDl2dU="}}}]}`

func writeUsers(t *testing.T, content string, mode os.FileMode) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "users.json")
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil { // past the umask
		t.Fatal(err)
	}
	return path
}

func TestLoadCredentials(t *testing.T) {
	c, err := LoadCredentials(writeUsers(t, rfc7677, 0o600))
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Users(); !slices.Equal(got, []string{"admin.user"}) {
		t.Fatalf("Users() = %v", got)
	}
	idx, err := c.index()
	if err != nil {
		t.Fatal(err)
	}
	sc := idx[userKey{"admin", "user"}]
	// The keys in the file are the ones a client derives from "pencil".
	cl, _ := scram.SHA256.NewClient("user", "pencil", "")
	want := cl.GetStoredCredentials(sc.KeyFactors)
	if sc.Iters != 4096 || len(sc.Salt) != 16 || !bytes.Equal(sc.StoredKey, want.StoredKey) || !bytes.Equal(sc.ServerKey, want.ServerKey) {
		t.Fatalf("stored credentials %+v, want %+v", sc, want)
	}
	if _, err := LoadCredentials(writeUsers(t, rfc7677, 0o400)); err != nil {
		t.Errorf("mode 0400: %v", err)
	}
}

func TestLoadCredentialsErrors(t *testing.T) {
	keys := `"iterationCount": 15000, "salt": "c2FsdA==", "storedKey": "WG5d8oPm3OtcPnkdi4Uo7BkeZkBFzpcXkuLmtbsT4qY=", "serverKey": "wfPLwcE6nTWhTAmQ7tl2KeoiWGPlZqQxSrmfPwDl2dU="`
	user := func(name, db, creds string) string {
		return `{"user": "` + name + `", "db": "` + db + `", "credentials": {` + creds + `}}`
	}
	sha := func(k string) string { return `"SCRAM-SHA-256": {` + k + `}` }
	for _, tc := range []struct {
		name, content string
		mode          os.FileMode
		want          string
	}{
		{"readable by others", rfc7677, 0o644, "has mode 0644: credentials file is accessible by group or others: run chmod 600 "},
		{"writable by group", rfc7677, 0o620, "has mode 0620"},
		{"bad JSON", `{"users": [`, 0o600, "not valid JSON"},
		{"empty", "", 0o600, "empty file"},
		{"not JSON at all", "user:pass", 0o600, "not valid JSON at byte 1"},
		{"unknown field", `{"users": [], "password": "x"}`, 0o600, `unknown field "password"`},
		{"a plaintext password", `{"users": [{"user": "a", "db": "admin", "password": "x"}]}`, 0o600, `unknown field "password"`},
		{"two documents", `{"users": []} {}`, 0o600, "text after the JSON document"},
		{"user without keys", `{"users": [` + user("a", "admin", "") + `]}`, 0o600, `user "a" of db "admin": no SCRAM-SHA-256 credentials`},
		{"SCRAM-SHA-1 only", `{"users": [` + user("a", "admin", `"SCRAM-SHA-1": {}`) + `]}`, 0o600, "no SCRAM-SHA-256 credentials"},
		{"no user name", `{"users": [` + user("", "admin", sha(keys)) + `]}`, 0o600, "user #1 has no user name or no db"},
		{"no db", `{"users": [` + user("a", "", sha(keys)) + `]}`, 0o600, "user #1 has no user name or no db"},
		{"twice", `{"users": [` + user("a", "admin", sha(keys)) + `,` + user("a", "admin", sha(keys)) + `]}`, 0o600, `user "a" of db "admin" is given twice`},
		{"few iterations", `{"users": [` + user("a", "admin", sha(strings.Replace(keys, "15000", "1000", 1))) + `]}`, 0o600, "iterationCount 1000 is below 4096"},
		{"bad salt", `{"users": [` + user("a", "admin", sha(strings.Replace(keys, "c2FsdA==", "!!", 1))) + `]}`, 0o600, `salt "!!" is not non-empty base64`},
		{"empty salt", `{"users": [` + user("a", "admin", sha(strings.Replace(keys, "c2FsdA==", "", 1))) + `]}`, 0o600, "salt"},
		{"short storedKey", `{"users": [` + user("a", "admin", sha(strings.Replace(keys, "WG5d8oPm3OtcPnkdi4Uo7BkeZkBFzpcXkuLmtbsT4qY=", "c2FsdA==", 1))) + `]}`, 0o600, "storedKey is not 32 bytes"},
		{"bad serverKey", `{"users": [` + user("a", "admin", sha(strings.Replace(keys, "wfPLwcE6nTWhTAmQ7tl2KeoiWGPlZqQxSrmfPwDl2dU=", "%", 1))) + `]}`, 0o600, "serverKey is not 32 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeUsers(t, tc.content, tc.mode)
			_, err := LoadCredentials(path)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
				t.Fatalf("err = %v; want one naming %s and saying %q", err, path, tc.want)
			}
			if tc.mode&0o077 != 0 && (!errors.Is(err, ErrPermissions) || !strings.HasSuffix(err.Error(), "chmod 600 "+path)) {
				t.Fatalf("err = %v; want ErrPermissions and the fix", err)
			}
		})
	}
	t.Run("missing", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "none.json")
		_, err := LoadCredentials(path)
		if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "decongestant proxy-user --file "+path) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("a directory", func(t *testing.T) {
		dir := t.TempDir()
		os.Chmod(dir, 0o700)
		if _, err := LoadCredentials(dir); err == nil || !strings.Contains(err.Error(), "is a directory") {
			t.Fatalf("err = %v", err)
		}
	})
}

// SetPassword derives keys a SCRAM client with the password agrees with,
// with a fresh salt of mongod's length and DefaultIterations; WriteFile
// writes a 0600 file LoadCredentials reads back, the password nowhere in it.
func TestSetPasswordRoundTrip(t *testing.T) {
	var c Credentials
	if added, err := c.SetPassword("alice", "admin", "s3cret-pencil", 0); err != nil || !added {
		t.Fatalf("SetPassword = %v, %v", added, err)
	}
	if added, err := c.SetPassword("bob", "app", "other", 20000); err != nil || !added {
		t.Fatalf("SetPassword = %v, %v", added, err)
	}
	before, _ := c.index()
	if added, err := c.SetPassword("alice", "admin", "new-password", 0); err != nil || added {
		t.Fatalf("SetPassword of an existing user = %v, %v; want replaced", added, err)
	}
	path := filepath.Join(t.TempDir(), "users.json")
	if err := c.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, %v; want 0600", st.Mode(), err)
	}
	raw, _ := os.ReadFile(path)
	for _, pw := range []string{"s3cret-pencil", "new-password", "other"} {
		if bytes.Contains(raw, []byte(pw)) {
			t.Fatalf("the file holds the password %q:\n%s", pw, raw)
		}
	}
	back, err := LoadCredentials(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := back.Users(); !slices.Equal(got, []string{"admin.alice", "app.bob"}) {
		t.Fatalf("Users() = %v", got)
	}
	idx, _ := back.index()
	for _, tc := range []struct {
		k        userKey
		password string
		iters    int
	}{{userKey{"admin", "alice"}, "new-password", DefaultIterations}, {userKey{"app", "bob"}, "other", 20000}} {
		sc := idx[tc.k]
		cl, _ := scram.SHA256.NewClient("x", tc.password, "")
		want := cl.GetStoredCredentials(sc.KeyFactors)
		if sc.Iters != tc.iters || len(sc.Salt) != saltLen || !bytes.Equal(sc.StoredKey, want.StoredKey) || !bytes.Equal(sc.ServerKey, want.ServerKey) {
			t.Errorf("%v: %d iterations, %d-byte salt, keys match %v", tc.k, sc.Iters, len(sc.Salt), bytes.Equal(sc.StoredKey, want.StoredKey))
		}
	}
	if a, b := before[userKey{"admin", "alice"}], idx[userKey{"admin", "alice"}]; a.Salt == b.Salt || bytes.Equal(a.StoredKey, b.StoredKey) {
		t.Error("a new password kept the old salt or keys")
	}
}

// A SCRAM-SHA-1 entry (a copy of a system.users document carries one) is
// kept as it was and ignored.
func TestCredentialsKeepSHA1(t *testing.T) {
	content := strings.Replace(rfc7677, `"credentials": {`, `"credentials": {"SCRAM-SHA-1": {"iterationCount": 10000, "salt": "x"}, `, 1)
	c, err := LoadCredentials(writeUsers(t, content, 0o600))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.SetPassword("user", "admin", "pencil2", 0); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "users.json")
	if err := c.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	back, err := LoadCredentials(path)
	if err != nil {
		t.Fatal(err)
	}
	var sha1 bytes.Buffer
	if err := json.Compact(&sha1, back.users[0].Credentials.SHA1); err != nil || sha1.String() != `{"iterationCount":10000,"salt":"x"}` {
		t.Fatalf("SCRAM-SHA-1 after a rewrite: %s, %v", sha1.String(), err)
	}
}

func TestSetPasswordErrors(t *testing.T) {
	var c Credentials
	for _, tc := range []struct {
		user, db, password string
		iters              int
		want               string
	}{
		{"", "admin", "pw", 0, "needs a name and a db"},
		{"a", "", "pw", 0, "needs a name and a db"},
		{"a", "admin", "", 0, "empty password"},
		{"a", "admin", "pw", 100, "100 iterations is below 4096"},
		{"a", "admin", "bad\x07bell", 0, "SASLprep prohibits"},
	} {
		_, err := c.SetPassword(tc.user, tc.db, tc.password, tc.iters)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("SetPassword(%q, %q, %q, %d) = %v; want %q", tc.user, tc.db, tc.password, tc.iters, err, tc.want)
		}
		if err != nil && tc.password != "" && strings.Contains(err.Error(), tc.password) {
			t.Errorf("the error shows the password: %v", err)
		}
	}
	if c.Len() != 0 {
		t.Fatalf("%d users after failures", c.Len())
	}
}
