package ycsb

import (
	"math"
	"testing"

	"github.com/decongestant/decongestant/workload"
)

func TestMixProportions(t *testing.T) {
	// As in YCSB's workloads/workloada..workloadf.
	want := map[Mix]map[string]float64{
		MixA: {"READ": 0.5, "UPDATE": 0.5},
		MixB: {"READ": 0.95, "UPDATE": 0.05},
		MixC: {"READ": 1},
		MixD: {"READ": 0.95, "INSERT": 0.05},
		MixE: {"SCAN": 0.95, "INSERT": 0.05},
		MixF: {"READ": 0.5, "READ-MODIFY-WRITE": 0.5},
	}
	const draws = 100_000
	for m := MixA; m <= MixF; m++ {
		t.Run(m.String(), func(t *testing.T) {
			r := newRand(uint64(m))
			got := map[string]float64{}
			for range draws {
				got[chooseOp(m, r.Float64()).op().Name]++
			}
			for name, share := range want[m] {
				if g := got[name] / draws; math.Abs(g-share) > 0.01 {
					t.Errorf("%s share %.4f, want %.2f +- 0.01", name, g, share)
				}
			}
			for name := range got {
				if _, ok := want[m][name]; !ok {
					t.Errorf("unexpected operation %s", name)
				}
			}
		})
	}
}

func TestChooseOpEdges(t *testing.T) {
	for m := MixA; m <= MixF; m++ {
		for _, u := range []float64{0, 0.5, math.Nextafter(1, 0)} {
			if o := chooseOp(m, u); o < opRead || o > opReadModifyWrite {
				t.Errorf("mix %v, u=%v: operation %d", m, u, o)
			}
		}
	}
}

func TestOps(t *testing.T) {
	tests := []struct {
		op    operation
		name  string
		class workload.Class
	}{
		{opRead, "READ", workload.Read},
		{opScan, "SCAN", workload.Read},
		{opUpdate, "UPDATE", workload.Write},
		{opInsert, "INSERT", workload.Write},
		{opReadModifyWrite, "READ-MODIFY-WRITE", workload.Write},
	}
	for _, tt := range tests {
		if got := tt.op.op(); got.Name != tt.name || got.Class != tt.class {
			t.Errorf("operation %d = %+v, want %s/%v", tt.op, got, tt.name, tt.class)
		}
	}
}

func TestParseMix(t *testing.T) {
	tests := []struct {
		in      string
		want    Mix
		wantErr bool
	}{
		{"a", MixA, false},
		{"B", MixB, false},
		{"workloadc", MixC, false},
		{"WorkloadD", MixD, false},
		{" e ", MixE, false},
		{"f", MixF, false},
		{"g", 0, true},
		{"", 0, true},
		{"workload", 0, true},
		{"ab", 0, true},
	}
	for _, tt := range tests {
		got, err := ParseMix(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("ParseMix(%q) = %v, %v; want %v, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
	for m := MixA; m <= MixF; m++ {
		if got, err := ParseMix(m.String()); err != nil || got != m {
			t.Errorf("ParseMix(%q) = %v, %v; want %v", m.String(), got, err, m)
		}
	}
}

func TestMixDistribution(t *testing.T) {
	for m := MixA; m <= MixF; m++ {
		want := Zipfian
		if m == MixD {
			want = Latest
		}
		if got := m.distribution(); got != want {
			t.Errorf("mix %v distribution %v, want %v", m, got, want)
		}
	}
}
