package reproduce

import (
	"fmt"
	"strings"
)

// Status says whether a figure can be reproduced on this machine.
type Status int

const (
	// Runs at the paper's shape, scaled to this machine's members.
	Runs Status = iota + 1
	// Scaled runs with a smaller load, data or time than the paper's; Note
	// says what differs.
	Scaled
	// CannotRun needs a testbed this machine does not have; Note says what
	// it would take.
	CannotRun
	// Diagram is an architecture drawing: nothing to measure.
	Diagram
)

// String is the status as `reproduce list` prints it.
func (s Status) String() string {
	switch s {
	case Runs:
		return "runs"
	case Scaled:
		return "runs scaled down"
	case CannotRun:
		return "cannot run here"
	case Diagram:
		return "diagram"
	}
	return fmt.Sprintf("status(%d)", int(s))
}

// Source is where in a paper's text a number or caption comes from: the
// line (1-based) of its plain-text copy and a phrase on that line, quoted
// exactly, so a test can check every transcription against the paper.
type Source struct {
	Line  int
	Quote string
}

// Claim is one of a paper's statements about a figure, with the number it
// gives (Paper, as published in PaperText) and how our counterpart is
// measured and compared.
type Claim struct {
	Text      string // the claim, paraphrased
	PaperText string // the paper's number or words, as published
	Source    Source
	Kind      Kind
	Paper     float64 // the paper's number (Approx), the bound (AtMost)
	Ref       float64 // the reference (Approx's side, Above/Below/Similar)
	Tol       float64 // Approx's tolerance (relative unless Abs), Similar's
	Abs       bool
	Factor    float64 // Approx: within this factor of Paper instead of Tol (> 1; 0: Tol)
	Unit      string  // of our measure
	Measure   func(Outputs) (Estimate, error)
	// Cause is why the claim does not agree on this machine, as a run
	// established it (naming the run): a difference of environment, or of
	// our implementation. Shown beside a verdict of disagrees or same
	// direction, never used to judge.
	Cause string
}

// Figure is a figure or table of a paper.
type Figure struct {
	Paper   *Paper
	ID      string // fig2, table1, sec4.6 (a section without a figure)
	Caption string // short, ours
	Source  Source // the caption's line
	Status  Status
	// Note says what is scaled, or what running it would take.
	Note string
	// Experiment runs it (nil for CannotRun and Diagram); figures that
	// come from one run share it.
	Experiment *Experiment
	Claims     []Claim
	// Plots are the report's plots that draw the figure, in the paper's
	// order of panels.
	Plots []Plot
}

// Plot is one plot of a step's report: the step's Output and the file in
// its plots directory.
type Plot struct{ Output, File string }

// Path is the plot's path relative to the experiment's directory.
func (p Plot) Path() string { return p.Output + "_plots/" + p.File }

// plots names files of one output's report.
func plots(output string, files ...string) []Plot {
	out := make([]Plot, len(files))
	for i, f := range files {
		out[i] = Plot{Output: output, File: f + ".svg"}
	}
	return out
}

// Name is "<paper> <figure>", the CLI's way of naming it.
func (f *Figure) Name() string { return f.Paper.ID + " " + f.ID }

// Runnable reports whether the figure has an experiment here.
func (f *Figure) Runnable() bool { return f.Experiment != nil }

// Figures is every figure and table of the papers, in paper order.
func Figures() []*Figure {
	var out []*Figure
	out = append(out, decongestantFigures()...)
	out = append(out, rpmFigures()...)
	out = append(out, tpccFigures()...)
	out = append(out, thesisFigures()...)
	out = append(out, readHintsFigures()...)
	return out
}

// ErrUnknown reports an unknown paper or figure; its message lists the
// valid ones.
type ErrUnknown struct{ msg string }

func (e *ErrUnknown) Error() string { return e.msg }

// Find returns the figure of paper named id ("fig5", "5", "table1").
func Find(paper, id string) (*Figure, error) {
	p := PaperByID(paper)
	if p == nil {
		ids := make([]string, len(Papers))
		for i, p := range Papers {
			ids[i] = p.ID
		}
		return nil, &ErrUnknown{fmt.Sprintf("unknown paper %q: the papers are %s", paper, strings.Join(ids, ", "))}
	}
	want := strings.ToLower(id)
	if _, err := fmt.Sscanf(want, "%d", new(int)); err == nil && !strings.ContainsAny(want, "abcdefghijklmnopqrstuvwxyz") {
		want = "fig" + want
	}
	var valid []string
	for _, f := range Figures() {
		if f.Paper != p {
			continue
		}
		if f.ID == want {
			return f, nil
		}
		valid = append(valid, f.ID)
	}
	return nil, &ErrUnknown{fmt.Sprintf("%s has no figure %q: its figures are %s", p.Short, id, strings.Join(valid, ", "))}
}

// Experiments are the distinct experiments of figs, in order.
func Experiments(figs []*Figure) []*Experiment {
	seen := map[*Experiment]bool{}
	var out []*Experiment
	for _, f := range figs {
		if f.Experiment != nil && !seen[f.Experiment] {
			seen[f.Experiment] = true
			out = append(out, f.Experiment)
		}
	}
	return out
}

// FiguresOf are the figures e reproduces.
func FiguresOf(e *Experiment) []*Figure {
	var out []*Figure
	for _, f := range Figures() {
		if f.Experiment == e {
			out = append(out, f)
		}
	}
	return out
}
