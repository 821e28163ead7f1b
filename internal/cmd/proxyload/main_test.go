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
