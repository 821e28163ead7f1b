package bench

import (
	"testing"
)

// TestSoakVerdict: growth over the last half is (mean of the last quarter -
// mean of the second quarter) / mean of the second quarter; flat when both
// the live heap's and the goroutines' are under 5 %.
func TestSoakVerdict(t *testing.T) {
	flat8 := []float64{40, 50, 50, 50, 51, 52, 51, 52} // q2 [50 50], q4 [51 52]: +3 %
	gor8 := []float64{900, 1030, 1030, 1030, 1030, 1030, 1031, 1029}
	tests := []struct {
		name       string
		heap, gor  []float64
		records    []float64
		measuredS  float64 // 0: 600 s
		heapGrowth *float64
		gorGrowth  *float64
		flat       *bool
	}{
		{name: "flat", heap: flat8, gor: gor8, heapGrowth: ptrF(3), gorGrowth: ptrF(0), flat: ptrB(true)},
		{name: "growing heap", heap: []float64{50, 50, 50, 50, 52, 54, 56, 58}, gor: gor8,
			heapGrowth: ptrF(14), gorGrowth: ptrF(0), flat: ptrB(false)},
		{name: "growing goroutines", heap: flat8, gor: []float64{1000, 1000, 1000, 1000, 1030, 1040, 1050, 1060},
			heapGrowth: ptrF(3), gorGrowth: ptrF(5.5), flat: ptrB(false)},
		{name: "exactly 5 % is growth", heap: []float64{1, 1, 100, 100, 1, 1, 105, 105}, gor: gor8,
			heapGrowth: ptrF(5), gorGrowth: ptrF(0), flat: ptrB(false)},
		{name: "shrinking is flat", heap: []float64{80, 80, 80, 70, 60, 50, 40, 40}, gor: gor8,
			heapGrowth: ptrF(-46.667), gorGrowth: ptrF(0), flat: ptrB(true)},
		// 5 periods: the second quarter is period 1, the last periods 3
		// and 4; the first and the third quarter do not count.
		{name: "uneven quarters", heap: []float64{0, 100, 0, 104, 102}, gor: []float64{0, 100, 0, 104, 102},
			heapGrowth: ptrF(3), gorGrowth: ptrF(3), flat: ptrB(true)},
		// The heap grows by the run's own results, 1 MiB a period: flat.
		{name: "records explain the growth", heap: []float64{40, 50, 51, 52, 53, 54, 55, 56}, gor: gor8,
			records: []float64{0, 1, 2, 3, 4, 5, 6, 7}, heapGrowth: ptrF(0), gorGrowth: ptrF(0), flat: ptrB(true)},
		// By 2 MiB a period, of which the results are 1: net 50.5 -> 54.5.
		{name: "growth beyond the records", heap: []float64{40, 50, 52, 54, 56, 58, 60, 62}, gor: gor8,
			records: []float64{0, 1, 2, 3, 4, 5, 6, 7}, heapGrowth: ptrF(7.921), gorGrowth: ptrF(0), flat: ptrB(false)},
		{name: "short run", heap: []float64{50, 60, 70}, gor: []float64{1, 2, 3}},
		// Growths over a run too short to judge: reported, no verdict; at
		// exactly the minimum, a verdict.
		{name: "under 5 minutes measured", heap: flat8, gor: gor8, measuredS: 299.9, heapGrowth: ptrF(3), gorGrowth: ptrF(0)},
		{name: "5 minutes measured", heap: flat8, gor: gor8, measuredS: 300, heapGrowth: ptrF(3), gorGrowth: ptrF(0), flat: ptrB(true)},
		{name: "no periods"},
		{name: "heap not measured", heap: []float64{0, 0, 0, 0}, gor: []float64{5, 5, 5, 5}, gorGrowth: ptrF(0)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			measured := tt.measuredS
			if measured == 0 {
				measured = 600
			}
			s := soakVerdict(tt.heap, tt.records, tt.gor, measured)
			if s.Periods != len(tt.heap) {
				t.Errorf("periods %d, want %d", s.Periods, len(tt.heap))
			}
			if len(tt.records) > 0 && (s.HeapQ2MB != mean(tt.heap[2:4]) || s.RecordsQ2MB != mean(tt.records[2:4]) || s.RecordsQ4MB != mean(tt.records[6:])) {
				t.Errorf("heap q2 %v, records q2 %v q4 %v; want the quarters' means", s.HeapQ2MB, s.RecordsQ2MB, s.RecordsQ4MB)
			}
			if !eqF(s.HeapGrowthPct, tt.heapGrowth) || !eqF(s.GoroutineGrowthPct, tt.gorGrowth) {
				t.Errorf("growth heap %v goroutines %v, want %v and %v", fmtF(s.HeapGrowthPct), fmtF(s.GoroutineGrowthPct),
					fmtF(tt.heapGrowth), fmtF(tt.gorGrowth))
			}
			if (s.Flat == nil) != (tt.flat == nil) || (s.Flat != nil && *s.Flat != *tt.flat) {
				t.Errorf("flat %v, want %v", fmtB(s.Flat), fmtB(tt.flat))
			}
		})
	}
}

func ptrF(v float64) *float64 { return &v }
func ptrB(v bool) *bool       { return &v }

func eqF(a, b *float64) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

func fmtF(v *float64) any {
	if v == nil {
		return "null"
	}
	return *v
}

func fmtB(v *bool) any {
	if v == nil {
		return "null"
	}
	return *v
}
