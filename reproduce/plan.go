package reproduce

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// Placeholders in a step's arguments, filled in by the runner.
const (
	// PhURI is the local set's URI, with the driver's localThresholdMS
	// raised so `secondary` reads use both secondaries, as on the papers'
	// testbeds where members answer equally fast (see DESIGN.md).
	PhURI = "{uri}"
	// PhDir is the local set's directory (for fault actions and caps).
	PhDir = "{dir}"
	// PhOut is the experiment's output directory.
	PhOut = "{out}"
)

// Step is one `decongestant` command of an experiment.
type Step struct {
	// Args are the command line after "decongestant", with placeholders.
	Args []string
	// Output names the results file the step writes (under {out}), read
	// back by the claims; "" when it writes none to read.
	Output string
	// Report asks for the step's results to be drawn (report --out).
	Report bool
	// Cluster, when set, replaces the local set with a new one of these
	// settings before the step (fig. 10's cache sizes).
	Cluster *Cluster
	// Resumable: the command keeps a journal of its own and takes
	// --resume to continue it; the runner passes it when the reproduction
	// is resumed (the consistency thesis' matrix, hours long).
	Resumable bool
}

// Cluster is the local replica set an experiment starts.
type Cluster struct {
	// Args are `cluster up` flags besides --dir (caps, memory, cache).
	Args []string
}

// Experiment is a set of commands that produces one or more figures.
type Experiment struct {
	Name string // a file-safe name: decongestant-fig2
	// Cluster is the set to start, nil when the steps start their own.
	Cluster func(quick bool) *Cluster
	Steps   func(quick bool) []Step
	// Saturate, when set, runs its probe before the steps and scales
	// their client-count placeholders (Clients) to the set.
	Saturate *Saturation
	// Estimate is a rough duration of the quick and the full run.
	Quick, Full time.Duration
}

// AllSteps are the saturation probe, when the experiment has one, and
// its steps: every command it runs, for the outputs to keep.
func (e *Experiment) AllSteps(quick bool) []Step {
	steps := e.Steps(quick)
	if e.Saturate != nil {
		steps = append([]Step{e.Saturate.Probe(quick)}, steps...)
	}
	return steps
}

// Takes is the rough duration of a quick or a full run, for people: "5
// min", "1 h 10 min".
func (e *Experiment) Takes(quick bool) string {
	d := scale(quick, e.Quick, e.Full).Round(time.Minute)
	h, m := int(d.Hours()), int(d.Minutes())%60
	switch {
	case h == 0:
		return fmt.Sprintf("%d min", m)
	case m == 0:
		return fmt.Sprintf("%d h", h)
	}
	return fmt.Sprintf("%d h %d min", h, m)
}

// Command is a step's command line for people, with the placeholders.
func (s Step) Command() string {
	var b strings.Builder
	b.WriteString("decongestant")
	for _, a := range s.Args {
		b.WriteByte(' ')
		if strings.ContainsAny(a, " ;&|*?$\"'") {
			fmt.Fprintf(&b, "%q", a)
		} else {
			b.WriteString(a)
		}
	}
	return b.String()
}

// Fill replaces the placeholders in args.
func Fill(args []string, uri, dir, out string) []string {
	r := strings.NewReplacer(PhURI, uri, PhDir, dir, PhOut, out)
	filled := make([]string, len(args))
	for i, a := range args {
		filled[i] = r.Replace(a)
	}
	return filled
}

// scale picks the quick or the full value.
func scale[T any](quick bool, q, full T) T {
	if quick {
		return q
	}
	return full
}

// flags builds an argument list from name, value pairs.
func flags(kv ...string) []string {
	out := make([]string, 0, len(kv))
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, "--"+kv[i], kv[i+1])
	}
	return out
}

// withFlags is args with each "--name", value pair of set (as flags makes
// them) set: in place where args already give the flag, appended where
// they do not, so that a step's command line names every flag once, with
// the value that runs.
func withFlags(args, set []string) []string {
	out := slices.Clone(args)
	for i := 0; i+1 < len(set); i += 2 {
		if j := slices.Index(out, set[i]); j >= 0 && j+1 < len(out) && !strings.HasPrefix(out[j+1], "--") {
			out[j+1] = set[i+1]
			continue
		}
		out = append(out, set[i], set[i+1])
	}
	return out
}

// join concatenates argument lists.
func join(parts ...[]string) []string {
	var out []string
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// secs formats whole seconds as a Go duration.
func secs(s int) string { return fmt.Sprintf("%ds", s) }

// RanThisShape reports whether ran, a run's commands as written (its
// sets' `cluster up` lines and its steps'), are e's steps in the quick or
// full shape this code defines, or the first of them (a run that stopped
// early). A run made by older code may not be: judged again, its verdicts
// use this code's claims, but the figure's note describes this code's
// shape, not the one that ran.
func (e *Experiment) RanThisShape(ran []string, quick bool) bool {
	var steps []string
	for _, c := range ran {
		if !strings.HasPrefix(c, "decongestant cluster up ") {
			steps = append(steps, c)
		}
	}
	want := e.AllSteps(quick)
	if len(steps) > len(want) {
		return false
	}
	for i, c := range steps {
		if !SameCommand(c, want[i].Command()) {
			return false
		}
	}
	return true
}

// SameCommand reports whether two command lines as written run the same:
// the same words before the first flag and the same value of every flag,
// the last given winning as on any command line, in any order. A line
// that named a flag twice (older code appended a figure's own values to
// the shared ones) is the same as the line that names it once.
func SameCommand(a, b string) bool {
	wa, fa := commandFlags(a)
	wb, fb := commandFlags(b)
	return slices.Equal(wa, wb) && maps.Equal(fa, fb)
}

// commandFlags splits a command line as written into its words before the
// first flag and its flags' values ("" for a flag followed by another).
func commandFlags(line string) ([]string, map[string]string) {
	var words []string
	flags := map[string]string{}
	f := strings.Fields(line)
	for i := 0; i < len(f); i++ {
		if !strings.HasPrefix(f[i], "--") {
			if len(flags) == 0 {
				words = append(words, f[i])
			}
			continue
		}
		name, value, ok := strings.Cut(f[i], "=")
		if !ok && i+1 < len(f) && !strings.HasPrefix(f[i+1], "--") {
			value = f[i+1]
			i++
		}
		flags[name] = value
	}
	return words, flags
}
