// Package atomicfile writes files so that a reader never sees one
// half-written: the content goes to a temporary file in the same directory,
// which is renamed over the path only when writing and closing succeeded.
//
//	err := atomicfile.Write("report.html", func(w io.Writer) error { return report.WriteHTML(w, in) })
package atomicfile

import (
	"io"
	"os"
	"path/filepath"
)

// Write calls write with a temporary file next to path and renames
// it to path only when write and close succeed, so a reader never sees a
// half-written file.
func Write(path string, write func(io.Writer) error) (err error) {
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
	// CreateTemp makes the file 0600; results and reports are for sharing.
	if err = tmp.Chmod(0o644); err != nil {
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
