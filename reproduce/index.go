package reproduce

import (
	"fmt"
	"html/template"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/decongestant/decongestant/report/chart"
)

// Entry is one figure in an index of reproductions.
type Entry struct {
	Figure  string   `json:"figure"` // "decongestant fig5"
	Paper   string   `json:"paper"`  // the paper's title and venue
	Caption string   `json:"caption"`
	Status  string   `json:"status"`
	Note    string   `json:"note,omitempty"`
	Verdict string   `json:"verdict"` // Summary of Rows; "" when not run
	Rows    []Row    `json:"claims,omitempty"`
	Report  string   `json:"report,omitempty"` // the runs' report, relative to the index
	Ran     []string `json:"commands,omitempty"`
	// OtherShape: the runs judged were made in another shape than this
	// code's (Experiment.RanThisShape): Note describes this code's, Ran
	// what ran.
	OtherShape bool `json:"other_shape,omitempty"`
	// Plots are the figure's plots, relative to the index.
	Plots []string `json:"plots,omitempty"`
	// TookS is how long the experiment's runs took, in seconds.
	TookS float64 `json:"took_s,omitempty"`
	Error string  `json:"error,omitempty"`
	// Quick: the runs judged had the --quick shape.
	Quick bool `json:"quick"`
	// MongodVersion is the local set's mongod ("db version v6.0.5").
	MongodVersion string `json:"mongod_version,omitempty"`
	// Version is `decongestant version` of the binary that made the runs
	// (an index resumed over several sittings may hold several).
	Version string `json:"decongestant_version,omitempty"`
	// Scaling is how the runs' client counts were scaled to the set (the
	// saturation probe's result); nil when they ran the paper's.
	Scaling *Scaling `json:"scaling,omitempty"`
	// Commands are Ran filled in: the local set's URI and directories, the
	// output paths, as they ran (credentials redacted).
	Commands []string `json:"commands_filled,omitempty"`
}

// Environment is what the runs were made with and on, so a verdict can be
// traced to a build and a machine.
type Environment struct {
	// Version is `decongestant version`: the release, and the commit when
	// the binary was built from a checkout.
	Version string `json:"decongestant_version"`
	Go      string `json:"go"`
	OS      string `json:"os"` // GOOS/GOARCH and the kernel release
	CPUs    int    `json:"cpus"`
	// CPUModel is the processor's name (/proc/cpuinfo's model name), ""
	// when unknown: runs on one machine compare, across machines they may
	// not (a host twice as fast moves every throughput).
	CPUModel string `json:"cpu_model,omitempty"`
	// MemoryMB is the machine's memory (MemTotal), 0 when unknown.
	MemoryMB int64 `json:"memory_mb,omitempty"`
	// Disk is the output directory's filesystem: its size and free space.
	Disk string `json:"disk,omitempty"`
}

// String is the environment on one line.
func (e Environment) String() string {
	s := fmt.Sprintf("%s, %s, %d CPUs", e.Version, e.OS, e.CPUs)
	if e.CPUModel != "" {
		s += " (" + e.CPUModel + ")"
	}
	if e.MemoryMB > 0 {
		s += fmt.Sprintf(", %.1f GiB memory", float64(e.MemoryMB)/1024)
	}
	if e.Disk != "" {
		s += ", disk " + e.Disk
	}
	return s + ", " + e.Go
}

// Index is what `decongestant reproduce` writes: every figure it was asked
// for, the paper's numbers beside ours, and the verdicts.
type Index struct {
	// Quick: every figure judged had the --quick shape.
	Quick   bool   `json:"quick"`
	Started string `json:"started_at"` // when the runs began; "" when judged from runs kept elsewhere
	// Judged is when `--judge-only` judged the kept runs again (with the
	// code of that build); "" for an index written by the runs themselves.
	Judged string `json:"judged_at,omitempty"`
	// Machine is Environment on one line (older indexes have only this).
	Machine     string       `json:"machine,omitempty"`
	Environment *Environment `json:"environment,omitempty"`
	Entries     []Entry      `json:"figures"`
}

// NewEntry is f's entry before anything ran.
func NewEntry(f *Figure) Entry {
	return Entry{Figure: f.Name(), Paper: f.Paper.Title + " (" + f.Paper.Venue + ")", Caption: f.Caption,
		Status: f.Status.String(), Note: f.Note}
}

// WriteText prints the index as a table: figure, status, verdict, then
// every claim with the paper's number beside ours.
func (ix *Index) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "figure\tstatus\tverdict\tclaim\tpaper\tours")
	for _, e := range ix.Entries {
		verdict := e.Verdict
		if e.Error != "" {
			verdict = "failed: " + e.Error
		}
		if verdict == "" {
			verdict = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t\t\t\n", e.Figure, e.Status, verdict)
		if e.Scaling != nil {
			fmt.Fprintf(tw, "\t\t\t\t\tscaled: %s\n", e.Scaling)
		}
		for _, r := range e.Rows {
			ours := r.Ours
			if r.Unit != "" && ours != "-" {
				ours += " " + r.Unit
			}
			fmt.Fprintf(tw, "\t\t  %s\t%s\t%s\t%s\n", r.Verdict, r.Claim, r.Paper, ours)
			if r.Rule != "" {
				fmt.Fprintf(tw, "\t\t\t\t\t%s\n", r.Rule) // after the last tab: widens no column
			}
			if r.Cause != "" {
				fmt.Fprintf(tw, "\t\t\t\t\tcause: %s\n", r.Cause)
			}
		}
	}
	return tw.Flush()
}

// WriteHTML writes the index as one page: per paper, its figures with
// their status, verdict, claims and a link to the runs' report.
func (ix *Index) WriteHTML(w io.Writer) error {
	type paper struct {
		Title   string
		Entries []Entry
	}
	var papers []paper
	for _, e := range ix.Entries {
		if len(papers) == 0 || papers[len(papers)-1].Title != e.Paper {
			papers = append(papers, paper{Title: e.Paper})
		}
		papers[len(papers)-1].Entries = append(papers[len(papers)-1].Entries, e)
	}
	tally := map[string]int{}
	for _, e := range ix.Entries {
		if e.Verdict != "" {
			tally[e.Verdict]++
		}
	}
	return indexPage.Execute(w, map[string]any{"Ix": ix, "Papers": papers, "Tally": tally,
		"Order": []string{Agrees, SameDirection, Inconclusive, Disagrees, NotExercised, NotMeasured}})
}

func verdictClass(v string) string {
	switch v {
	case Agrees:
		return "agree"
	case SameDirection:
		return "partial"
	case Disagrees:
		return "disagree"
	case Inconclusive, NotExercised:
		return "open"
	}
	return "none"
}

// stripColors are the verdicts' colours on a claim's strip.
var stripColors = map[string]string{"agree": "#1d6b2a", "partial": "#b07a00", "disagree": "#b00020", "open": "#2a4d8f", "none": "#888888"}

// claimStrip draws the claim's band, the paper's number and ours on one
// axis (chart.ClaimStrip); nothing for a claim not measured.
func claimStrip(r Row) template.HTML {
	if r.Estimate == nil {
		return ""
	}
	or := func(p *float64, v float64) float64 {
		if p == nil {
			return v
		}
		return *p
	}
	lo, hi := r.Estimate.Interval()
	return chart.ClaimStrip{BandLo: or(r.BandLow, math.Inf(-1)), BandHi: or(r.BandHigh, math.Inf(1)),
		Paper: or(r.PaperValue, math.NaN()), Mean: r.Estimate.V, Lo: lo, Hi: hi, Color: stripColors[verdictClass(r.Verdict)]}.HTML()
}

var indexPage = template.Must(template.New("index").Funcs(template.FuncMap{
	"class": verdictClass,
	"unit": func(r Row) string {
		if r.Unit == "" || r.Ours == "-" {
			return r.Ours
		}
		return r.Ours + " " + r.Unit
	},
	"strip":   claimStrip,
	"lower":   strings.ToLower,
	"minutes": func(s float64) string { return fmt.Sprintf("%.1f min", s/60) },
}).Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>decongestant: the papers reproduced</title>
<style>
body{font-family:system-ui,sans-serif;margin:2em;max-width:1200px;color:#222}
table{border-collapse:collapse;width:100%;margin:0.5em 0 1.5em}
th,td{border-bottom:1px solid #ddd;padding:4px 8px;text-align:left;vertical-align:top;font-size:14px}
th{background:#f4f4f4}
.agree{background:#d9f2d9}.partial{background:#fff2c2}.disagree{background:#f8d4d4}.open{background:#dde6f6}.none{background:#eee}
.v{font-weight:600;white-space:nowrap}.note{color:#555;font-size:13px}.v .note{font-weight:normal;white-space:normal;min-width:16em}.claims td{font-size:13px}
code{font-size:12px}
</style></head><body>
<h1>The papers, reproduced</h1>
<p>{{if .Ix.Quick}}Quick runs (minutes each: a smoke test, not the faithful shape).{{else}}Runs at the faithful shape that fits this machine.{{end}}
{{with .Ix.Started}}Started {{.}}{{with $.Ix.Machine}} on {{.}}{{end}}.{{end}}{{with .Ix.Judged}} Judged again {{.}} by this build's claims; each figure names the build and the set that ran it.{{end}}
Verdicts are computed from our data: each claim's mean over n repetitions and its 95 % confidence interval (Student's t),
held to the claim's band or side as the rule under each verdict says. <em>agrees</em>: the whole interval satisfies the claim;
<em>same direction</em>: the interval lies outside the paper's band but on the paper's side; <em>disagrees</em>: the whole interval
contradicts the claim; <em>inconclusive</em>: the interval covers both, or fewer than three repetitions ran; <em>not exercised</em>:
the runs never put the claim to the test (a bound never approached, a policy that never decided, an input counted);
<em>not measured</em>.</p>
<p>{{range $v := .Order}}{{with index $.Tally $v}}<span class="v {{class $v}}">{{$v}}: {{.}}</span> &nbsp; {{end}}{{end}}</p>
{{range .Papers}}<h2>{{.Title}}</h2>
<table><tr><th>figure</th><th>what it shows</th><th>status</th><th>verdict</th><th>claims: paper beside ours</th></tr>
{{range .Entries}}<tr><td><b>{{.Figure}}</b>{{with .Report}}<br><a href="{{.}}">report</a>{{end}}</td>
<td>{{.Caption}}{{with .Note}}<div class="note">{{.}}</div>{{end}}</td><td>{{.Status}}{{with .TookS}}<div class="note">ran {{minutes .}}</div>{{end}}{{if and .Quick (not $.Ix.Quick)}}<div class="note">quick shape</div>{{end}}{{with .MongodVersion}}<div class="note">mongod {{.}}</div>{{end}}{{with .Version}}<div class="note">{{.}}</div>{{end}}{{with .Scaling}}<div class="note">clients scaled: {{.}}</div>{{end}}{{if .OtherShape}}<div class="note"><b>ran in another shape than this code's</b>: the note beside is this code's; the commands are the run's</div>{{end}}</td>
<td class="v {{class .Verdict}}">{{if .Error}}failed{{else if .Verdict}}{{.Verdict}}{{else}}-{{end}}{{with .Error}}<div class="note">{{.}}</div>{{end}}</td>
<td>{{if .Rows}}<table class="claims"><tr><th>claim</th><th>paper</th><th>ours</th><th>the claim (shaded), the paper ◆, ours ● with its 95 % interval</th><th>verdict</th></tr>
{{range .Rows}}<tr><td>{{.Claim}}{{with .Detail}}<div class="note">{{.}}</div>{{end}}</td><td>{{.Paper}}{{with .Quote}}<div class="note">“{{.}}”</div>{{end}}</td><td>{{unit .}}</td><td>{{strip .}}</td><td class="v {{class .Verdict}}">{{.Verdict}}{{with .Rule}}<div class="note">{{.}}</div>{{end}}{{with .Cause}}<div class="note"><b>cause:</b> {{.}}</div>{{end}}</td></tr>
{{end}}</table>{{end}}</td></tr>
{{with .Plots}}<tr><td></td><td colspan="4">{{range .}}<img src="{{.}}" alt="{{.}}" width="360"> {{end}}</td></tr>{{end}}
{{end}}</table>
{{end}}</body></html>
`))
