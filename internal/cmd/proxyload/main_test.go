package main

import (
	"slices"
	"strings"
	"testing"
)

func TestParseVias(t *testing.T) {
	for _, c := range []struct {
		in, mode string
		want     []string
		err      string
	}{
		{"tcp", "ops", []string{"tcp"}, ""},
		{"tcp,unix", "ops", []string{"tcp", "unix"}, ""},
		{"unix", "conns", []string{"unix"}, ""},
		{"tcp,unix", "conns", nil, "one proxy at a time"},
		{"tcp,tcp", "ops", nil, "twice"},
		{"udp", "ops", nil, "want tcp, unix"},
		{"", "ops", nil, "want tcp, unix"},
	} {
		got, err := parseVias(c.in, c.mode)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("parseVias(%q, %s) = %v, %v; want an error saying %q", c.in, c.mode, got, err, c.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("parseVias(%q, %s) = %v, %v; want %v", c.in, c.mode, got, err, c.want)
		}
	}
}

func TestTargetsNameEachVariant(t *testing.T) {
	var names []string
	var vs []variant
	for _, tg := range targetsOf(variantsOf([]string{"tcp", "unix"}, []int{0, 1}), []string{"rw"}) {
		names, vs = append(names, tg.Name), append(vs, tg.variant)
	}
	want := []string{"direct",
		"proxy-primary", "proxy-routed", "relay",
		"proxy-primary-procs1", "proxy-routed-procs1", "relay-procs1",
		"proxy-primary-unix", "proxy-routed-unix", "relay-unix",
		"proxy-primary-unix-procs1", "proxy-routed-unix-procs1", "relay-unix-procs1"}
	if !slices.Equal(names, want) {
		t.Errorf("names %v, want %v", names, want)
	}
	wantVs := []variant{{}, {"tcp", 0}, {"tcp", 0}, {"tcp", 0}, {"tcp", 1}, {"tcp", 1}, {"tcp", 1},
		{"unix", 0}, {"unix", 0}, {"unix", 0}, {"unix", 1}, {"unix", 1}, {"unix", 1}}
	if !slices.Equal(vs, wantVs) {
		t.Errorf("variants %v, want %v", vs, wantVs)
	}
	if n := len(targetsOf(variantsOf([]string{"tcp"}, []int{0}), nil)); n != 3 {
		t.Errorf("without the floor %d targets, want direct and the two proxied", n)
	}
	var relays []string
	for _, tg := range targetsOf(variantsOf([]string{"unix"}, []int{0}), []string{"rw", "splice"}) {
		if tg.relay != "" {
			relays = append(relays, tg.Name+":"+tg.relay)
		}
	}
	if want := []string{"relay-unix:rw", "relay-splice-unix:splice"}; !slices.Equal(relays, want) {
		t.Errorf("relays %v, want %v", relays, want)
	}
	if got := profileTarget(targetsOf(variantsOf([]string{"unix"}, []int{2}), []string{"rw"})); got != "proxy-routed-unix-procs2" {
		t.Errorf("profiled target %q, want the first routed one", got)
	}
}

func TestParseFloor(t *testing.T) {
	for in, want := range map[string][]string{"rw,splice": {"rw", "splice"}, "splice": {"splice"}, "none": nil} {
		if got, err := parseFloor(in); err != nil || !slices.Equal(got, want) {
			t.Errorf("parseFloor(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"true", "", "rw,rw", "copy"} {
		if got, err := parseFloor(in); err == nil {
			t.Errorf("parseFloor(%q) = %v; want an error", in, got)
		}
	}
}

func TestParseProcs(t *testing.T) {
	for _, c := range []struct {
		in, mode string
		want     []int
		err      string
	}{
		{"0", "ops", []int{0}, ""},
		{"0, 1", "ops", []int{0, 1}, ""},
		{"2", "conns", []int{2}, ""},
		{"0,1", "conns", nil, "one proxy at a time"},
		{"1,1", "ops", nil, "names 1 twice"},
		{"-1", "ops", nil, "0 (Go's default) or more"},
		{"x", "ops", nil, "0 (Go's default) or more"},
	} {
		got, err := parseProcs(c.in, c.mode)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("parseProcs(%q, %s) = %v, %v; want an error saying %q", c.in, c.mode, got, err, c.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("parseProcs(%q, %s) = %v, %v; want %v", c.in, c.mode, got, err, c.want)
		}
	}
}

func TestProxyURI(t *testing.T) {
	if got := (&proxyProc{Network: "unix", Addr: "/tmp/proxyload-1/proxy.sock"}).URI(); got != "mongodb://%2Ftmp%2Fproxyload-1%2Fproxy.sock/" {
		t.Errorf("unix URI %q", got)
	}
	if got := (&proxyProc{Network: "tcp", Addr: "127.0.0.1:5"}).URI(); got != "mongodb://127.0.0.1:5/" {
		t.Errorf("tcp URI %q", got)
	}
}

func TestLabelledReadsTheMembersReads(t *testing.T) {
	page := `# HELP decongestant_member_reads_total Routed reads the member served.
# TYPE decongestant_member_reads_total counter
decongestant_member_reads_total{member="127.0.0.1:27017"} 12
decongestant_member_reads_total{member="127.0.0.1:27018"} 3.5e+06
decongestant_member_reads_totally{member="x:1"} 9
decongestant_member_info{member="127.0.0.1:27017",name="n1",role="primary"} 1
`
	got := labelled(page, "decongestant_member_reads_total", "member")
	if len(got) != 2 || got["127.0.0.1:27017"] != 12 || got["127.0.0.1:27018"] != 3.5e6 {
		t.Errorf("labelled = %v", got)
	}
}

func TestPrimaryInTheMembersInfo(t *testing.T) {
	page := `decongestant_member_info{member="127.0.0.1:27017",name="n1",role="secondary"} 1
decongestant_member_info{member="127.0.0.1:27018",name="n2",role="primary"} 1
decongestant_member_reads_total{member="127.0.0.1:27019"} 3
`
	if got := primaryIn(page); got != "127.0.0.1:27018" {
		t.Errorf("primaryIn = %q, want n2's address", got)
	}
	if got := primaryIn(strings.ReplaceAll(page, `"primary"`, `"unknown"`)); got != "" {
		t.Errorf("primaryIn with no primary = %q", got)
	}
}

func TestServedSharesPerRepetition(t *testing.T) {
	g := []measurement{
		{ServedBy: map[string]int64{"b:2": 50, "a:1": 25, "c:3": 25}},
		{},
		{ServedBy: map[string]int64{"a:1": 1, "b:2": 2, "c:3": 1}, Primary: "c:3"},
	}
	if got, want := servedShares(g), "25/50/25, 25/25/50"; got != want {
		t.Errorf("servedShares = %q, want %q", got, want)
	}
}
