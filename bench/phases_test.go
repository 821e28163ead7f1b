package bench

import (
	"errors"
	"testing"
	"time"
)

func TestParsePhases(t *testing.T) {
	got, err := ParsePhases("0s:workload=a,clients=180; 620s:workload=b ;700s:clients=20")
	if err != nil {
		t.Fatal(err)
	}
	want := []Phase{{0, "a", 180}, {620 * time.Second, "b", 0}, {700 * time.Second, "", 20}}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("phase %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	if ps, err := ParsePhases(""); err != nil || len(ps) != 0 {
		t.Errorf("empty: %v %v", ps, err)
	}
	for _, bad := range []string{"620s", "x:workload=a", "-1s:clients=3", "1s:clients=0", "1s:clients=many",
		"1s:color=red", "1s:workload", "2s:clients=3;1s:clients=4", "1s:clients=2;1s:clients=3", ";"} {
		if _, err := ParsePhases(bad); !errors.Is(err, ErrBadPhases) {
			t.Errorf("ParsePhases(%q) err %v, want ErrBadPhases", bad, err)
		}
	}
}
