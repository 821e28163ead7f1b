package consistency

import (
	"errors"
	"os"
	"path/filepath"

	"github.com/decongestant/decongestant/history"
)

// historyFile streams a history to a temporary file renamed into place when
// finished, so a history file on disk is always complete.
type historyFile struct {
	f    *os.File
	path string
	w    *history.Writer
	done bool
}

func newHistoryFile(path string, h history.Header) (*historyFile, error) {
	f, err := os.CreateTemp(filepath.Dir(path), ".history-*.jsonl")
	if err != nil {
		return nil, err
	}
	if err := f.Chmod(0o644); err != nil {
		_ = f.Close()
		_ = os.Remove(f.Name())
		return nil, err
	}
	return &historyFile{f: f, path: path, w: history.NewWriter(f, h)}, nil
}

func (hf *historyFile) finish(finals []history.Final) error {
	err := errors.Join(hf.w.Finish(finals), hf.f.Sync(), hf.f.Close())
	if err == nil {
		err = os.Rename(hf.f.Name(), hf.path)
	}
	hf.done = err == nil
	return err
}

// abort removes the temporary file unless finish renamed it.
func (hf *historyFile) abort() {
	if !hf.done {
		_ = hf.f.Close()
		_ = os.Remove(hf.f.Name())
	}
}
