package cluster

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

// prepareDir makes dir ready for a new cluster. A missing dir is created (created is true). A dir
// whose state file names live members is refused; a stale one is cleaned. Any other content is
// refused.
func prepareDir(dir string) (created bool, err error) {
	fi, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return true, os.MkdirAll(dir, 0o755)
	}
	if err != nil {
		return false, err
	}
	if !fi.IsDir() {
		return false, fmt.Errorf("%w: %s is not a directory", ErrDirInUse, dir)
	}
	st, err := readState(dir)
	switch {
	case err == nil:
		var alive []string
		for _, m := range st.Members {
			if isMemberProcess(m.PID, m.DBPath) {
				alive = append(alive, fmt.Sprintf("%s pid %d", m.Name, m.PID))
			}
		}
		if len(alive) > 0 {
			return false, fmt.Errorf("%w: %s holds a running cluster (%s); stop it with `decongestant cluster down --dir %s`",
				ErrDirInUse, dir, strings.Join(alive, ", "), dir)
		}
		stale := &Cluster{dir: dir, st: *st}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		for _, m := range st.Members {
			for _, cg := range m.cgroups() {
				if err := cgroupRemove(ctx, cg); err != nil {
					return false, fmt.Errorf("clean stale cluster in %s: %w", dir, err)
				}
			}
		}
		if err := stale.removeFiles(false); err != nil {
			return false, fmt.Errorf("clean stale cluster in %s: %w", dir, err)
		}
		created = st.CreatedDir
	case errors.Is(err, fs.ErrNotExist):
	default:
		return false, fmt.Errorf("%w: %w; remove it or choose another dir", ErrDirInUse, err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false, err
	}
	if len(entries) > 0 {
		var names []string
		for i, e := range entries {
			if i == 5 {
				names = append(names, "...")
				break
			}
			names = append(names, e.Name())
		}
		return false, fmt.Errorf("%w: %s is not empty and holds no decongestant cluster (found %s); choose an empty or new dir",
			ErrDirInUse, dir, strings.Join(names, ", "))
	}
	return created, nil
}

// removeFiles removes the members' dbpaths and logs, the key file, credentials and certificates,
// then the state file, then Dir if Start created it.
func (c *Cluster) removeFiles(removeDir bool) error {
	var errs []error
	rm := func(path string, all bool) {
		var err error
		if all {
			err = os.RemoveAll(path)
		} else {
			err = os.Remove(path)
		}
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	c.mu.Lock()
	members, created := slices.Clone(c.st.Members), c.st.CreatedDir
	security := []string{c.st.KeyFile, c.st.Credentials, c.st.CAFile, c.st.MemberCert}
	c.mu.Unlock()
	for _, m := range members {
		rm(m.DBPath, true)
		rm(m.LogPath, false)
	}
	tmps, _ := filepath.Glob(filepath.Join(c.dir, stateFile+".tmp-*"))
	for _, f := range security {
		if f != "" {
			rm(f, false)
			more, _ := filepath.Glob(filepath.Join(c.dir, "."+filepath.Base(f)+".tmp-*")) // atomicfile's
			tmps = append(tmps, more...)
		}
	}
	for _, t := range tmps {
		rm(t, false)
	}
	if len(errs) == 0 {
		rm(filepath.Join(c.dir, stateFile), false)
	}
	if removeDir && created && len(errs) == 0 {
		// Something foreign put in Dir since Start keeps it (and Dir) alive.
		if err := os.Remove(c.dir); err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTEMPTY) && !errors.Is(err, syscall.EEXIST) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
