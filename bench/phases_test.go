package bench

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/decongestant/decongestant/faults"
	"github.com/decongestant/decongestant/results"
)

func TestParsePhases(t *testing.T) {
	s := time.Second
	tests := []struct {
		in   string
		want []Phase
	}{
		{"", nil},
		{"0s:workload=a,clients=180; 620s:workload=b ;700s:clients=20",
			[]Phase{{At: 0, Mix: "a", Clients: 180}, {At: 620 * s, Mix: "b"}, {At: 700 * s, Clients: 20}}},
		{"60s:pause=n3;120s:resume=n3", []Phase{
			{At: 60 * s, Actions: []faults.Action{{Kind: faults.Pause, Member: "n3"}}},
			{At: 120 * s, Actions: []faults.Action{{Kind: faults.Resume, Member: "n3"}}}}},
		{"30s:stepdown;50s:kill=n2;80s:restart=n2", []Phase{
			{At: 30 * s, Actions: []faults.Action{{Kind: faults.StepDown}}},
			{At: 50 * s, Actions: []faults.Action{{Kind: faults.Kill, Member: "n2"}}},
			{At: 80 * s, Actions: []faults.Action{{Kind: faults.Restart, Member: "n2"}}}}},
		{"60s:clients=100,pause=n3", []Phase{{At: 60 * s, Clients: 100, Actions: []faults.Action{{Kind: faults.Pause, Member: "n3"}}}}},
		{"1s:pause=all,Stop=n2, stepdown ;2s:resume=all,restart=n2", []Phase{
			{At: s, Actions: []faults.Action{{Kind: faults.Pause, Member: "all"}, {Kind: faults.Stop, Member: "n2"}, {Kind: faults.StepDown}}},
			{At: 2 * s, Actions: []faults.Action{{Kind: faults.Resume, Member: "all"}, {Kind: faults.Restart, Member: "n2"}}}}},
		{"1s:kill=primary;2s:restart=primary;3s:stop=primary;4s:restart=primary", []Phase{
			{At: s, Actions: []faults.Action{{Kind: faults.Kill, Member: "primary"}}}, {At: 2 * s, Actions: []faults.Action{{Kind: faults.Restart, Member: "primary"}}},
			{At: 3 * s, Actions: []faults.Action{{Kind: faults.Stop, Member: "primary"}}}, {At: 4 * s, Actions: []faults.Action{{Kind: faults.Restart, Member: "primary"}}}}},
		{"1s:kill=primary,restart=primary", []Phase{{At: s, Actions: []faults.Action{{Kind: faults.Kill, Member: "primary"}, {Kind: faults.Restart, Member: "primary"}}}}},
		{"15s:clients=64,slow=n3:150ms;45s:unslow=n3;50s:slow=all", []Phase{
			{At: 15 * s, Clients: 64, Actions: []faults.Action{{Kind: faults.Slow, Member: "n3", Delay: 150 * time.Millisecond}}},
			{At: 45 * s, Actions: []faults.Action{{Kind: faults.Unslow, Member: "n3"}}},
			{At: 50 * s, Actions: []faults.Action{{Kind: faults.Slow, Member: "all", Delay: faults.DefaultSlowDelay}}}}},
		{"5s:restart=n12", []Phase{{At: 5 * s, Actions: []faults.Action{{Kind: faults.Restart, Member: "n12"}}}}},
		{"5s:reads=n2,readoffset=500;9s:readoffset=0", []Phase{{At: 5 * s, Reads: "n2", ReadOffset: offset(500)}, {At: 9 * s, ReadOffset: offset(0)}}},
		{"200s:workload=a,clients=20,rate=250;300s:rate=0", []Phase{{At: 200 * s, Mix: "a", Clients: 20, Rate: rate(250)}, {At: 300 * s, Rate: rate(0)}}},
		{"1s:rate=0.5", []Phase{{At: s, Rate: rate(0.5)}}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParsePhases(tt.in)
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("ParsePhases(%q):\n got %+v, %v\nwant %+v", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestParsePhasesRejects(t *testing.T) {
	tests := []struct{ in, say string }{
		{"620s", "want TIME:key=value"},
		{"x:workload=a", `time "x"`},
		{"-1s:clients=3", `time "-1s"`},
		{"1s:clients=0", "clients \"0\" must be a whole number >= 1"},
		{"1s:clients=many", "clients \"many\""},
		{"1s:readoffset=-5", "readoffset \"-5\" must be a key number >= 0"},
		{"1s:readoffset=x", "readoffset \"x\""},
		{"1s:rate=-3", `rate "-3" must be operations a second, 0 or more`},
		{"1s:rate=NaN", `rate "NaN" must be operations a second`},
		{"1s:rate=+Inf", `rate "+Inf" must be operations a second`},
		{"1s:rate=fast", `rate "fast"`},
		{"1s:color=red", `unknown key "color" (known: workload, clients, rate, reads, readoffset, pause, resume, isolate, rejoin, slow, unslow, stepdown, kill, stop, restart)`},
		{"15s:slow=n3:0ms", `slow's delay "0ms" must be whole milliseconds`},
		{"15s:slow=primary", "slow takes a member"},
		{"1s:workload", `"workload" is not key=value`},
		{"1s:workload=", `"workload=" is not key=value`},
		{"1s:speed", `"speed" is not key=value`},
		{"1s:", `"" is not key=value`},
		{"1s:clients=2,", `"" is not key=value`},
		{"2s:clients=3;1s:clients=4", "phase times must increase"},
		{"1s:clients=2;1s:clients=3", "phase times must increase"},
		{";", "holds no phase"},
		{"1s:pause", "pause needs a member: pause=n2 or pause=all"},
		{"1s:pause=", "pause needs a member"},
		{"1s:kill", "kill needs a member: kill=n2 or kill=primary"},
		{"1s:restart=", "restart needs a member"},
		{"1s:pause=primary", "a primary fetches and applies no oplog to pause"},
		{"1s:resume=primary", `"resume=primary": resume takes a member (n2) or all`},
		{"1s:kill=all", `"kill=all": kill takes one member (n2) or primary`},
		{"1s:restart=all", "restart takes one member"},
		{"1s:stop=all", "stop takes one member"},
		{"1s:pause=node3", `member "node3" is not a member name such as n2, nor all`},
		{"1s:kill=n0", `member "n0" is not a member name such as n2, nor primary`},
		{"1s:kill=N2", `member "N2"`},
		{"1s:stepdown=n1", "stepdown takes no member"},
		{"1s:stepdown=", "stepdown takes no member"},
		{"1s:restart=primary", "restart=primary at 1s: no earlier kill=primary or stop=primary"},
		{"1s:kill=n1;2s:restart=primary", "no earlier kill=primary"},
		{"1s:kill=primary;2s:restart=primary;3s:restart=primary", "restart=primary at 3s"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			_, err := ParsePhases(tt.in)
			if !errors.Is(err, ErrBadPhases) || !strings.Contains(err.Error(), tt.say) {
				t.Fatalf("ParsePhases(%q): %v; want ErrBadPhases saying %q", tt.in, err, tt.say)
			}
		})
	}
}

func TestCheckMembers(t *testing.T) {
	names := []string{"n1", "n2", "n3"}
	tests := []struct{ in, say string }{
		{"1s:pause=n3;2s:resume=n3;3s:kill=primary;4s:restart=primary;5s:pause=all;6s:stepdown", ""},
		{"1s:clients=3", ""},
		{"1s:pause=n4", "pause=n4 at 1s: the cluster has no member n4 (members: n1, n2, n3)"},
		{"1s:clients=2,kill=n2;2s:restart=n9", "restart=n9 at 2s: the cluster has no member n9"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			phases, err := ParsePhases(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			err = faults.CheckMembers(steps(phases), names)
			if tt.say == "" && err != nil || tt.say != "" && (!errors.Is(err, faults.ErrBadActions) || !strings.Contains(err.Error(), tt.say)) {
				t.Fatalf("checkMembers: %v; want %q", err, tt.say)
			}
		})
	}
}

func TestPhaseSpecsRecordActions(t *testing.T) {
	phases, err := ParsePhases("0s:workload=a,clients=8;60s:clients=100,pause=n3,stepdown;120s:resume=n3")
	if err != nil {
		t.Fatal(err)
	}
	want := []results.PhaseSpec{{AtS: 0, Workload: "a", Clients: 8}, {AtS: 60, Clients: 100, Actions: []string{"pause=n3", "stepdown"}},
		{AtS: 120, Actions: []string{"resume=n3"}}}
	if got := phaseSpecs(phases); !reflect.DeepEqual(got, want) {
		t.Errorf("phaseSpecs: %+v, want %+v", got, want)
	}
	if got := actions(phases); !reflect.DeepEqual(got, []string{"pause=n3", "stepdown", "resume=n3"}) {
		t.Errorf("actions: %v", got)
	}
	if got := faults.ActionKind(0).String(); got != "ActionKind(0)" {
		t.Errorf("zero ActionKind prints %q", got)
	}
}

func offset(n int64) *int64   { return &n }
func rate(r float64) *float64 { return &r }
