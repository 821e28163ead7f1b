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
		{"tcp,unix", "conns", nil, "one network at a time"},
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

func TestTargetsViaNamesEachNetwork(t *testing.T) {
	var names, vias []string
	for _, tg := range targetsVia([]string{"tcp", "unix"}, true) {
		names, vias = append(names, tg.Name), append(vias, tg.via)
	}
	if want := []string{"direct", "proxy-primary", "proxy-routed", "relay", "proxy-primary-unix", "proxy-routed-unix", "relay-unix"}; !slices.Equal(names, want) {
		t.Errorf("names %v, want %v", names, want)
	}
	if want := []string{"", "tcp", "tcp", "tcp", "unix", "unix", "unix"}; !slices.Equal(vias, want) {
		t.Errorf("vias %v, want %v", vias, want)
	}
	if n := len(targetsVia([]string{"tcp"}, false)); n != 3 {
		t.Errorf("without the floor %d targets, want direct and the two proxied", n)
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

func TestServedSharesPerRepetition(t *testing.T) {
	g := []measurement{
		{ServedBy: map[string]int64{"b:2": 50, "a:1": 25, "c:3": 25}},
		{},
		{ServedBy: map[string]int64{"a:1": 1, "b:2": 2, "c:3": 1}},
	}
	if got, want := servedShares(g), "25/50/25, 25/50/25"; got != want {
		t.Errorf("servedShares = %q, want %q", got, want)
	}
}
