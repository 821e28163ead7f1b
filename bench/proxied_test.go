package bench

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/decongestant/decongestant/balancer"
	"github.com/decongestant/decongestant/hints"
)

// TestPlanViaProxy: with ViaProxy both, every policy runs in the library
// and then through the proxy, named proxy:<policy>; on, through the proxy
// only.
func TestPlanViaProxy(t *testing.T) {
	o := sweepOptions(t)
	specs, err := balancer.ParseSpecs("primary,spillway", o.Settings)
	if err != nil {
		t.Fatal(err)
	}
	o.Policies, o.Sweep, o.Clients, o.Repeat, o.ViaProxy = specs, nil, 8, 1, ProxyBoth
	if err := o.validate(); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range o.plan() {
		got = append(got, p.name())
	}
	if want := []string{"primary", "proxy:primary", "spillway", "proxy:spillway"}; !slices.Equal(got, want) {
		t.Fatalf("plan %v, want %v", got, want)
	}
	if names := o.specNames(); !slices.Equal(names, got) {
		t.Fatalf("recorded policies %v, want %v", names, got)
	}
	o.ViaProxy = ProxyOnly
	got = got[:0]
	for _, p := range o.plan() {
		got = append(got, p.name())
	}
	if want := []string{"proxy:primary", "proxy:spillway"}; !slices.Equal(got, want) {
		t.Fatalf("plan %v, want %v", got, want)
	}
}

func TestViaProxyRefusesWhatTheProxyCannotRun(t *testing.T) {
	o := sweepOptions(t) // primary,secondary
	o.ViaProxy = ProxyBoth
	if err := o.validate(); !errors.Is(err, ErrBadOptions) || !strings.Contains(err.Error(), "secondary cannot run through the proxy") {
		t.Fatalf("secondary through the proxy: %v", err)
	}
	o = sweepOptions(t)
	o.Policies = o.Policies[:1]
	o.ViaProxy = ProxyOnly
	h := hints.DefaultConfig()
	o.Hints = []*hints.Config{nil, &h}
	if err := o.validate(); !errors.Is(err, ErrBadOptions) || !strings.Contains(err.Error(), "hints") {
		t.Fatalf("hints through the proxy: %v", err)
	}
	o.Hints = []*hints.Config{nil}
	if err := o.validate(); err != nil {
		t.Fatalf("hints off through the proxy: %v", err)
	}
}

func TestProxyPolicy(t *testing.T) {
	s := balancer.DefaultSettings()
	for spec, want := range map[string]string{"primary": "weights:primary=1", "spillway": "spillway", "weights:primary=0.5,n2=0.5": "weights:primary=0.5,n2=0.5"} {
		p, err := balancer.Parse(spec, s)
		if err != nil {
			t.Fatal(err)
		}
		got, err := proxyPolicy(p)
		if err != nil || got.Selection().Mode != balancer.PerMember || !strings.HasPrefix(got.Name(), strings.SplitN(want, "=", 2)[0]) {
			t.Fatalf("%s: %v, %v; want a per-member %s", spec, got, err, want)
		}
	}
	for _, m := range []string{"off", "on", "both"} {
		if _, err := ParseProxyMode(m); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := ParseProxyMode("yes"); err == nil {
		t.Fatal("ParseProxyMode accepted yes")
	}
}
