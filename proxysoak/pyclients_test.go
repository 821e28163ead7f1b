package proxysoak

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestReadPyRecords: a pymongo process's records count like the Go
// clients' (kinds marked pymongo); a malformed line is an error naming it.
func TestReadPyRecords(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.tsv")
	t0 := time.Unix(1000, 0)
	lines := "1001.000000\t12.5\tinsert\t\tp0-1-1\n" +
		"1002.000000\t30.0\ttxn\t\tp0-1-2\n" +
		"1003.000000\t60000.0\tinsert\tAutoReconnect\t\n"
	if err := os.WriteFile(good, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	rec := newRecorder(t0, []time.Duration{0})
	if err := readPyRecords(good, rec); err != nil {
		t.Fatal(err)
	}
	if !rec.acked["p0-1-1"] || !rec.committed["p0-1-2"] || rec.kinds["insert: pymongo AutoReconnect"] != 1 || len(rec.lat[0]) != 3 {
		t.Errorf("acked %v committed %v kinds %v latencies %v", rec.acked, rec.committed, rec.kinds, rec.lat)
	}
	bad := filepath.Join(dir, "bad.tsv")
	if err := os.WriteFile(bad, []byte("1001.0\t12.5\tinsert\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := readPyRecords(bad, rec); err == nil || !strings.Contains(err.Error(), "bad.tsv:1: 3 fields") {
		t.Errorf("a line of 3 fields: error %v", err)
	}
}

// TestCheckPymongo: without pymongo the soak says so before it starts.
func TestCheckPymongo(t *testing.T) {
	err := checkPymongo(t.Context(), "false")
	if err == nil || !strings.Contains(err.Error(), "need false with pymongo") {
		t.Errorf("checkPymongo(false) = %v", err)
	}
}
