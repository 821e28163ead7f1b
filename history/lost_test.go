package history

import (
	"slices"
	"strings"
	"testing"
)

func TestLostWrites(t *testing.T) {
	type want struct {
		acknowledged, lost, uncheckedWrites, unknownApplied int
		checked, unchecked                                  string // the keys, comma-separated
	}
	final := func(key string, log ...int64) Final {
		if log == nil {
			log = []int64{}
		}
		return Final{Key: key, Log: log}
	}
	for _, tc := range []struct {
		name   string
		ops    []Op
		keys   []string
		finals []Final
		want   want
	}{
		{
			name:   "clean",
			ops:    []Op{w(1, "x", 1, 1, 0, 10), cas(1, "x", 1, 2, 2, 20, 30), rd(2, "x", 2, 2, 40, 50)},
			finals: []Final{final("x", 1, 2)},
			want:   want{acknowledged: 2, checked: "x"},
		},
		{
			name:   "an acknowledged write rolled back",
			ops:    []Op{w(1, "x", 1, 1, 0, 10), w(1, "x", 2, 2, 20, 30), w(2, "x", 3, 2, 40, 50)},
			finals: []Final{final("x", 1, 3)},
			want:   want{acknowledged: 3, lost: 1, checked: "x"},
		},
		{
			name:   "an acknowledged cas rolled back",
			ops:    []Op{cas(1, "x", 0, 1, 1, 0, 10)},
			finals: []Final{final("x")},
			want:   want{acknowledged: 1, lost: 1, checked: "x"},
		},
		{
			name: "failed and unknown writes are not acknowledged",
			ops: []Op{w(1, "x", 1, 1, 0, 10), failed(cas(1, "x", 9, 2, 0, 20, 30), ""), failed(w(1, "x", 3, 0, 40, 50), "not primary"),
				unknown(w(2, "x", 4, 0, 60, 70)), unknown(w(2, "x", 5, 0, 80, 90))},
			finals: []Final{final("x", 1, 5)},
			want:   want{acknowledged: 1, unknownApplied: 1, checked: "x"},
		},
		{
			name:   "a key without a final is unchecked, not clean",
			ops:    []Op{w(1, "x", 1, 1, 0, 10), w(1, "y", 2, 1, 0, 10), w(1, "y", 3, 2, 20, 30)},
			finals: []Final{final("x", 1)},
			want:   want{acknowledged: 1, uncheckedWrites: 2, checked: "x", unchecked: "y"},
		},
		{
			name:   "a header key without ops or final is unchecked",
			keys:   []string{"x", "z"},
			ops:    []Op{w(1, "x", 1, 1, 0, 10)},
			finals: []Final{final("x", 1)},
			want:   want{acknowledged: 1, checked: "x", unchecked: "z"},
		},
		{
			name:   "a value in another key's log does not save a write",
			ops:    []Op{w(1, "x", 1, 1, 0, 10), w(1, "y", 2, 1, 0, 10)},
			finals: []Final{final("x", 2), final("y", 1)},
			want:   want{acknowledged: 2, lost: 2, checked: "x,y"},
		},
		{
			name:   "a key with a final and no ops is checked",
			ops:    []Op{w(1, "x", 1, 1, 0, 10)},
			finals: []Final{final("x", 1), final("w")},
			want:   want{acknowledged: 1, checked: "w,x"},
		},
		{
			name:   "a key named twice in the header is listed once",
			keys:   []string{"z", "x", "z"},
			ops:    []Op{w(1, "x", 1, 1, 0, 10)},
			finals: []Final{final("x", 1)},
			want:   want{acknowledged: 1, checked: "x", unchecked: "z"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := hist(tc.ops...)
			h.Header.Keys, h.Final = tc.keys, tc.finals
			rep := LostWrites(h)
			var checked []string
			for _, k := range rep.Keys {
				checked = append(checked, k.Key)
			}
			got := want{rep.Acknowledged, rep.Lost, rep.UncheckedWrites, rep.UnknownApplied, strings.Join(checked, ","), strings.Join(rep.Unchecked, ",")}
			if got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
			if len(rep.Examples) != min(rep.Lost, maxExamples) {
				t.Errorf("%d examples for %d lost", len(rep.Examples), rep.Lost)
			}
			sum := 0
			for _, k := range rep.Keys {
				sum += k.Lost
				if slices.Contains(rep.Unchecked, k.Key) {
					t.Errorf("key %s both checked and unchecked", k.Key)
				}
			}
			if sum != rep.Lost {
				t.Errorf("per key lost %d, total %d", sum, rep.Lost)
			}
		})
	}
}

// The lost writes' examples are by key, then invocation, then completion,
// whatever order the recorder appended them in.
func TestLostExamplesOrder(t *testing.T) {
	a, b, c := w(1, "x", 1, 1, 20, 40), w(2, "x", 2, 1, 20, 30), w(3, "x", 3, 1, 10, 50)
	for _, ops := range [][]Op{{a, b, c}, {c, a, b}, {b, c, a}} {
		h := hist(ops...)
		h.Final = []Final{{Key: "x", Log: []int64{}}}
		var got []int
		for _, op := range LostWrites(h).Examples {
			got = append(got, op.Client)
		}
		if !slices.Equal(got, []int{3, 2, 1}) {
			t.Errorf("recorded as clients %d %d %d: examples of clients %v, want 3 2 1", ops[0].Client, ops[1].Client, ops[2].Client, got)
		}
	}
}
