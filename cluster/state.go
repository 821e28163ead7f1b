package cluster

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
)

const (
	stateFile    = "cluster.json"
	stateVersion = 1
)

// state is the content of Dir/cluster.json.
type state struct {
	Version     int     `json:"version"`
	ReplSet     string  `json:"replSet"`
	Mongod      string  `json:"mongod"`
	CacheSizeGB float64 `json:"cacheSizeGB"`
	// CPU is Config.CPU, 0 once SetCPU changed a member's cap. Each member's own cap is
	// Member.CPUCap; files written before it existed have only this one.
	CPU        float64   `json:"cpu"`
	CreatedDir bool      `json:"createdDir"` // Down removes Dir itself
	StartedAt  time.Time `json:"startedAt"`
	Members    []Member  `json:"members"`
	// Auth: the members run with --keyFile KeyFile (which turns authorization on); the users' passwords
	// are in Credentials (0600), never here. AppDB is the application user's database.
	Auth        bool   `json:"auth,omitempty"`
	KeyFile     string `json:"keyFile,omitempty"`
	Credentials string `json:"credentials,omitempty"`
	AppDB       string `json:"appDB,omitempty"`
	// TLS: the members require TLS with the certificate and key in MemberCert, signed by the CA in
	// CAFile.
	TLS        bool   `json:"tls,omitempty"`
	CAFile     string `json:"caFile,omitempty"`
	MemberCert string `json:"memberCert,omitempty"`
}

// checkSecurityPaths reports a security file of st that is not where Start puts it in dir: Down
// removes them, so a state file must not name anything else.
func (st *state) checkSecurityPaths(dir string) error {
	key, creds, ca, member := securityPaths(dir)
	for _, f := range []struct{ got, want string }{
		{st.KeyFile, key}, {st.Credentials, creds}, {st.CAFile, ca}, {st.MemberCert, member},
	} {
		if f.got != "" && f.got != f.want {
			return fmt.Errorf("%s is not %s", f.got, f.want)
		}
	}
	switch {
	case st.Auth && (st.KeyFile == "" || st.Credentials == "" || st.AppDB == ""):
		return errors.New("auth without a key file, credentials file or application database")
	case st.TLS && (st.CAFile == "" || st.MemberCert == ""):
		return errors.New("TLS without a CA or member certificate")
	}
	return nil
}

var memberName = regexp.MustCompile(`^n[1-9][0-9]*$`)

// readState reads and checks dir's state file. The paths in it must be the ones Start would have
// chosen for dir, so a hand-edited or misplaced file cannot make Down remove anything else.
func readState(dir string) (*state, error) {
	path := filepath.Join(dir, stateFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var st state
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, fmt.Errorf("state file %s: %w", path, err)
	}
	if st.Version != stateVersion {
		return nil, fmt.Errorf("state file %s: version %d, want %d", path, st.Version, stateVersion)
	}
	if err := st.checkSecurityPaths(dir); err != nil {
		return nil, fmt.Errorf("state file %s: %w", path, err)
	}
	for i, m := range st.Members {
		if m.Cgroup != "" && m.CPUCap == 0 { // written before per-member caps: one cap for all
			st.Members[i].CPUCap = st.CPU
		}
		switch {
		case !memberName.MatchString(m.Name):
			return nil, fmt.Errorf("state file %s: bad member name %q", path, m.Name)
		case m.DBPath != filepath.Join(dir, m.Name) || m.LogPath != filepath.Join(dir, m.Name+".log"):
			return nil, fmt.Errorf("state file %s: member %s paths %s, %s are not under %s", path, m.Name, m.DBPath, m.LogPath, dir)
		case slices.ContainsFunc(m.cgroups(), foreignCgroup):
			return nil, fmt.Errorf("state file %s: member %s has a foreign cgroup (%s)", path, m.Name, strings.Join(m.cgroups(), ", "))
		}
	}
	return &st, nil
}

// foreignCgroup reports whether dir is not a cgroup this package makes: under cgroupRoot and named
// decongestant-*.
func foreignCgroup(dir string) bool {
	return !strings.HasPrefix(dir, cgroupRoot+"/") || !strings.HasPrefix(filepath.Base(dir), "decongestant-")
}

// writeState writes the state file atomically (temp file + rename).
func (c *Cluster) writeState() error {
	c.mu.Lock()
	b, err := json.MarshalIndent(c.st, "", "  ")
	c.mu.Unlock()
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(c.dir, stateFile+".tmp-*")
	if err != nil {
		return fmt.Errorf("write state: %w", err)
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Close()
		return fmt.Errorf("write state: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("write state: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write state: %w", err)
	}
	if err := os.Rename(f.Name(), filepath.Join(c.dir, stateFile)); err != nil {
		return fmt.Errorf("write state: %w", err)
	}
	return nil
}
