// Package atomicfile writes files so that a reader never sees one
// half-written: the content goes to a temporary file in the same directory,
// which is renamed over the path only when writing and closing succeeded.
//
//	err := atomicfile.Write("report.html", func(w io.Writer) error { return report.WriteHTML(w, in) })
package atomicfile

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Write calls write with a temporary file next to path and renames
// it to path only when write and close succeed, so a reader never sees a
// half-written file. The file is 0644: results and reports are for sharing.
func Write(path string, write func(io.Writer) error) error {
	return WriteMode(path, 0o644, write)
}

// WriteMode is Write for a file with permissions perm (0600 for a secret,
// 0400 for a key file). The temporary file is 0600 from its creation, so a
// secret is never readable by others, not even for a moment.
func WriteMode(path string, perm fs.FileMode, write func(io.Writer) error) (err error) {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err = write(tmp); err != nil {
		return err
	}
	// CreateTemp makes the file 0600.
	if err = tmp.Chmod(perm); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
