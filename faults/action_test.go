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

func TestParseSlow(t *testing.T) {
	const ms = time.Millisecond
	for _, tt := range []struct {
		in   string
		want Action
		str  string
	}{
		{"slow=n3", Action{Kind: Slow, Member: "n3", Delay: 200 * ms}, "slow=n3:200ms"},
		{"slow=n3:150ms", Action{Kind: Slow, Member: "n3", Delay: 150 * ms}, "slow=n3:150ms"},
		{" SLOW = all : 1.5s", Action{Kind: Slow, Member: "all", Delay: 1500 * ms}, "slow=all:1.5s"},
		{"slow=n12:1ms", Action{Kind: Slow, Member: "n12", Delay: ms}, "slow=n12:1ms"},
		{"slow=n2:1h", Action{Kind: Slow, Member: "n2", Delay: time.Hour}, "slow=n2:1h0m0s"},
		{"unslow=n3", Action{Kind: Unslow, Member: "n3"}, "unslow=n3"},
		{"unslow=all", Action{Kind: Unslow, Member: "all"}, "unslow=all"},
	} {
		a, ok, err := ParseAction(tt.in)
		if !ok || err != nil || a != tt.want || a.String() != tt.str {
			t.Errorf("ParseAction(%q) = %+v (%q), %v, %v; want %+v (%q)", tt.in, a, a, ok, err, tt.want, tt.str)
		}
	}
	if got := (Action{Kind: Slow, Member: "n3"}).slowDelay(); got != DefaultSlowDelay {
		t.Errorf("a slow action built without a delay waits %v, want %v", got, DefaultSlowDelay)
	}
	for in, say := range map[string]string{
		"slow":               "slow needs a member: slow=n2 or slow=all",
		"slow=":              "slow needs a member",
		"slow=:150ms":        "slow needs a member",
		"unslow":             "unslow needs a member: unslow=n2 or unslow=all",
		"slow=primary":       `"slow=primary": slow takes a member (n2; name the primary's to slow the primary) or all (every secondary)`,
		"unslow=primary":     `"unslow=primary": unslow takes a member`,
		"slow=node3":         `"slow=node3": member "node3" is not a member name such as n2, nor all`,
		"slow=n3:0ms":        `"slow=n3:0ms": slow's delay "0ms" must be whole milliseconds from 1ms to 1h`,
		"slow=n3:-5ms":       `slow's delay "-5ms" must be`,
		"slow=n3:1500us":     `slow's delay "1500us" must be`,
		"slow=n3:61m":        `slow's delay "61m" must be`,
		"slow=n3:fast":       `slow's delay "fast" must be`,
		"slow=n3:150":        `slow's delay "150" must be`,
		"unslow=n3:150ms":    `"unslow=n3:150ms": unslow takes no delay (unslow=n3)`,
		"slow=n3:150ms:10ms": `slow's delay "150ms:10ms" must be`,
	} {
		if _, ok, err := ParseAction(in); !ok || err == nil || !strings.Contains(err.Error(), say) {
			t.Errorf("ParseAction(%q): %v, %v; want an error saying %q", in, ok, err, say)
		}
	}
	got, err := ParseSchedule("15s:slow=n3:150ms;45s:unslow=n3,slow=all")
	want := []Step{{At: 15 * time.Second, Actions: []Action{{Kind: Slow, Member: "n3", Delay: 150 * ms}}},
		{At: 45 * time.Second, Actions: []Action{{Kind: Unslow, Member: "n3"}, {Kind: Slow, Member: "all", Delay: 200 * ms}}}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("ParseSchedule: %+v, %v; want %+v", got, err, want)
	}
	if err := CheckMembers(got, []string{"n1", "n2"}); !errors.Is(err, ErrBadActions) || !strings.Contains(err.Error(), "slow=n3:150ms at 15s: the cluster has no member n3") {
		t.Errorf("CheckMembers: %v", err)
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
