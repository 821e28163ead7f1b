package results

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	ratio := 1.5
	in := &Results{Workload: "ycsb", Config: Config{URI: "mongodb://REDACTED@h1/", Clients: 4},
		Runs: []Run{{Policy: "decongestant", Periods: []Period{{TS: 10, ReadOps: 100, Ratio: &ratio,
			ServedBy: map[string]int64{"h1:1": 100}}}, Summary: Summary{ReadTput: 10, BoundViolations: 1},
			Events: []Event{{TS: 1, Kind: "decision", Detail: "0.10 -> 0.20"}}}}}
	path := filepath.Join(t.TempDir(), "r.json")
	if err := in.WriteJSONPath(path); err != nil {
		t.Fatal(err)
	}
	out, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(in, out) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", out, in)
	}
}

// TestReadGzipped: a results file whose name ends in .gz is read through
// gzip; one that is not gzipped under that name is an error.
func TestReadGzipped(t *testing.T) {
	in := &Results{Workload: "ycsb", Runs: []Run{{Policy: "primary", Summary: Summary{ReadTput: 7}}}}
	dir := t.TempDir()
	plain := filepath.Join(dir, "r.json")
	if err := in.WriteJSONPath(plain); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(plain)
	if err != nil {
		t.Fatal(err)
	}
	var z bytes.Buffer
	w := gzip.NewWriter(&z)
	w.Write(b)
	w.Close()
	gz := filepath.Join(dir, "r.json.gz")
	if err := os.WriteFile(gz, z.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := Read(gz)
	if err != nil || !reflect.DeepEqual(in, out) {
		t.Fatalf("gzipped: %+v, %v", out, err)
	}
	if err := os.WriteFile(gz, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(gz); err == nil || !strings.Contains(err.Error(), "gzip") {
		t.Errorf("plain JSON named .gz: err %v, want a gzip error", err)
	}
}

func TestReadRejectsOtherFiles(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{"empty.json": "{}", "junk.json": "not json", "list.json": "[1,2]"} {
		path := filepath.Join(dir, name)
		os.WriteFile(path, []byte(content), 0o644)
		if _, err := Read(path); err == nil || !strings.Contains(err.Error(), "not a results file") {
			t.Errorf("%s: err %v, want 'not a results file'", name, err)
		}
	}
	if _, err := Read(filepath.Join(dir, "none.json")); !os.IsNotExist(err) {
		t.Errorf("missing file: err %v", err)
	}
}
