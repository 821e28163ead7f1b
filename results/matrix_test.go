package results

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestSizeLabel(t *testing.T) {
	tests := []struct {
		n    int
		want string
	}{
		{1024, "1K"}, {50 << 10, "50K"}, {100 << 10, "100K"}, {1 << 20, "1M"}, {16 << 20, "16M"},
		{1536 << 10, "1536K"}, {700, "700B"}, {1025, "1025B"}, {64, "64B"},
	}
	for _, tt := range tests {
		if got := SizeLabel(tt.n); got != tt.want {
			t.Errorf("SizeLabel(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}

// TestMatrixRoundTrip: a matrix written atomically reads back equal, and
// a file that is not a matrix is refused.
func TestMatrixRoundTrip(t *testing.T) {
	dir := t.TempDir()
	m := &Matrix{Config: MatrixConfig{Setups: []MatrixSetup{{Name: "operation", Writers: 1, Readers: 1, Concerns: "operation"}},
		Sizes: []int{1024}, W: []string{"1"}, RC: []string{"local", "linearizable"}, Reads: []string{"primary", "secondary"}, Iterations: 1},
		Cells: []MatrixCell{
			{Setup: "operation", DocSize: 1024, W: "1", RC: "local", Read: "primary",
				Iterations: []MatrixIteration{{Reads: 3, StalePct: 33.333}}, Summary: MatrixSummary{Iterations: 1, StalePct: Spread{N: 1, Mean: 33.333}}},
			{Setup: "operation", DocSize: 1024, W: "1", RC: "linearizable", Read: "secondary", Skipped: "rejected"},
		}}
	path := filepath.Join(dir, "matrix.json")
	if err := m.WriteJSONPath(path); err != nil {
		t.Fatal(err)
	}
	got, err := ReadMatrix(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, m) {
		t.Fatalf("read back %+v, want %+v", got, m)
	}
	if c := got.Find("operation", 1024, "1", "local", "primary"); c == nil || !c.Measured() {
		t.Errorf("Find: %+v", c)
	}
	if c := got.Find("operation", 1024, "1", "linearizable", "secondary"); c == nil || c.Measured() {
		t.Errorf("a skipped cell is measured: %+v", c)
	}
	if got.Find("session", 1024, "1", "local", "primary") != nil {
		t.Error("found a cell not in the matrix")
	}
	bad := filepath.Join(dir, "results.json")
	if err := os.WriteFile(bad, []byte(`{"workload":"ycsb","runs":[]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadMatrix(bad); err == nil || !strings.Contains(err.Error(), "not a matrix file") {
		t.Errorf("a bench results file read as a matrix: %v", err)
	}
}
