package faults

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestNemesis(t *testing.T) {
	const s = time.Second
	got, err := Nemesis([]string{NemesisStepDown, NemesisKill, NemesisPause}, 10*s, 50*s)
	if err != nil {
		t.Fatal(err)
	}
	want := []Step{
		{At: 10 * s, Actions: []Action{{Kind: StepDown}}},
		{At: 20 * s, Actions: []Action{{Kind: Kill, Member: PrimaryMember}}},
		{At: 25 * s, Actions: []Action{{Kind: Restart, Member: PrimaryMember}}},
		{At: 30 * s, Actions: []Action{{Kind: Pause, Member: AllMembers}}},
		{At: 35 * s, Actions: []Action{{Kind: Resume, Member: AllMembers}}},
		{At: 40 * s, Actions: []Action{{Kind: StepDown}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v\nwant %v", got, want)
	}
	if err := CheckRestarts(got); err != nil {
		t.Fatalf("the nemesis' restarts: %v", err)
	}
	if got, err := Nemesis(nil, s, 10*s); got != nil || err != nil {
		t.Fatalf("no kinds: %v %v", got, err)
	}
	for _, tt := range []struct {
		kinds    []string
		interval time.Duration
		duration time.Duration
		say      string
	}{
		{[]string{"partition"}, s, 10 * s, `nemesis "partition"`},
		{[]string{"kill"}, 0, 10 * s, "interval 0s must be positive"},
		{[]string{"kill"}, 10 * s, 15 * s, "no room"},
	} {
		if _, err := Nemesis(tt.kinds, tt.interval, tt.duration); !errors.Is(err, ErrBadActions) || !strings.Contains(err.Error(), tt.say) {
			t.Errorf("%v every %v over %v: err %v, want %q", tt.kinds, tt.interval, tt.duration, err, tt.say)
		}
	}
}

func TestParseSchedule(t *testing.T) {
	const s = time.Second
	got, err := ParseSchedule("30s:stepdown; 50s:kill=primary,pause=n3 ;80s:restart=primary")
	if err != nil {
		t.Fatal(err)
	}
	want := []Step{{At: 30 * s, Actions: []Action{{Kind: StepDown}}},
		{At: 50 * s, Actions: []Action{{Kind: Kill, Member: PrimaryMember}, {Kind: Pause, Member: "n3"}}},
		{At: 80 * s, Actions: []Action{{Kind: Restart, Member: PrimaryMember}}}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for in, say := range map[string]string{
		"30s":                    "want TIME:action",
		"x:stepdown":             "want TIME:action",
		"2s:stepdown;1s:kill=n2": "times must increase",
		"1s:clients=3":           `"clients=3" is not an action`,
		"1s:kill":                "kill needs a member",
		"1s:restart=primary":     "no earlier kill=primary",
		";":                      "holds no action",
	} {
		if _, err := ParseSchedule(in); !errors.Is(err, ErrBadActions) || !strings.Contains(err.Error(), say) {
			t.Errorf("%q: err %v, want %q", in, err, say)
		}
	}
}

func TestMerge(t *testing.T) {
	a := []Step{{At: time.Second, Actions: []Action{{Kind: StepDown}}}, {At: 3 * time.Second}}
	b := []Step{{At: time.Second, Actions: []Action{{Kind: Kill, Member: "n2"}}}, {At: 2 * time.Second}}
	got := Merge(a, b)
	ats := []time.Duration{got[0].At, got[1].At, got[2].At, got[3].At}
	if !reflect.DeepEqual(ats, []time.Duration{time.Second, time.Second, 2 * time.Second, 3 * time.Second}) || got[0].Actions[0].Kind != StepDown {
		t.Fatalf("merged %v", got)
	}
}
