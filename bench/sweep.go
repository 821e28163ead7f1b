package bench

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/decongestant/decongestant/balancer"
	"github.com/decongestant/decongestant/hints"
)

// ErrBadClients is wrapped by ParseClients' errors.
var ErrBadClients = errors.New("invalid client counts")

// ParseClients parses one client count ("64") or a comma-separated
// client-count sweep ("20,60,100,140,180"), as --clients takes them. Every
// item must be a whole number of at least 1, and no count may repeat.
func ParseClients(s string) ([]int, error) {
	items := strings.Split(s, ",")
	counts := make([]int, 0, len(items))
	for i, item := range items {
		item = strings.TrimSpace(item)
		if item == "" {
			return nil, fmt.Errorf("%w: %q: item %d is empty", ErrBadClients, s, i+1)
		}
		n, err := strconv.Atoi(item)
		if err != nil {
			return nil, fmt.Errorf("%w: %q: %q is not a whole number", ErrBadClients, s, item)
		}
		counts = append(counts, n)
	}
	if err := checkCounts(counts); err != nil {
		return nil, fmt.Errorf("%w: %q: %w", ErrBadClients, s, err)
	}
	return counts, nil
}

// checkCounts rejects counts below 1 and repeated counts.
func checkCounts(counts []int) error {
	seen := map[int]bool{}
	for _, n := range counts {
		if n < 1 {
			return fmt.Errorf("clients %d must be at least 1", n)
		}
		if seen[n] {
			return fmt.Errorf("clients %d appears twice (a sweep runs each count once; use --repeat for repetitions)", n)
		}
		seen[n] = true
	}
	return nil
}

// validateSweep checks Sweep: two or more distinct counts of at least 1,
// Clients unset, and no phase that changes the client count (it would
// override the sweep's count in every run).
func (o *Options) validateSweep() error {
	if len(o.Sweep) == 0 {
		return nil
	}
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s", ErrBadOptions, fmt.Sprintf(format, a...))
	}
	switch {
	case len(o.Sweep) == 1:
		return bad("a client-count sweep needs two or more counts (set Clients for one)")
	case o.Clients != 0:
		return bad("set Clients (one count) or Sweep (several), not both")
	}
	if err := checkCounts(o.Sweep); err != nil {
		return bad("client-count sweep %v: %v", o.Sweep, err)
	}
	for _, ph := range o.Phases {
		if ph.Clients > 0 {
			return bad("the phase at %v sets clients=%d, which would override the sweep's client count in every run: "+
				"sweep without clients phases (phases may still switch the workload), or run one count per invocation",
				ph.At, ph.Clients)
		}
	}
	return nil
}

// sweeping reports whether the invocation is a client-count sweep.
func (o *Options) sweeping() bool { return len(o.Sweep) > 1 }

// plannedRun is one run of an invocation: a policy's repetition at a
// client count.
type plannedRun struct {
	clients int
	rep     int
	spec    balancer.Spec
	proxied bool          // through the proxy (Options.ViaProxy)
	hints   *hints.Config // nil: off
}

// name is the run's policy name with its hints.
func (p plannedRun) name() string { return runName(p.spec.String(), p.proxied, p.hints) }

// plan orders the invocation's runs: for each client count (one without a
// sweep), every repetition of every policy in turn, so the policies
// compared at one count ran close together in time on a drifting host.
func (o *Options) plan() []plannedRun {
	counts := o.Sweep
	if !o.sweeping() {
		counts = []int{o.Clients}
	}
	runs := make([]plannedRun, 0, len(counts)*o.Repeat*len(o.Policies)*len(o.proxyVariants())*len(o.hintVariants()))
	for _, c := range counts {
		for rep := range o.Repeat {
			for _, spec := range o.Policies {
				for _, px := range o.proxyVariants() {
					for _, h := range o.hintVariants() {
						runs = append(runs, plannedRun{clients: c, rep: rep, spec: spec, proxied: px, hints: h})
					}
				}
			}
		}
	}
	return runs
}

// options returns the invocation's options with the run's client count.
func (p plannedRun) options(o *Options) *Options {
	oc := *o
	oc.Clients = p.clients
	return &oc
}

// label names the run in progress lines: "3/10 primary", with the client
// count in a sweep ("3/10 primary, 20 clients").
func (p plannedRun) label(n, total int, sweep bool) string {
	s := fmt.Sprintf("%d/%d %s", n, total, p.name())
	if sweep {
		s += fmt.Sprintf(", %d clients", p.clients)
	}
	return s
}

// clientsLabel is " at 20 clients" in a sweep, "" otherwise.
func clientsLabel(clients int, sweep bool) string {
	if !sweep {
		return ""
	}
	return fmt.Sprintf(" at %d clients", clients)
}
