package reproduce

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"

	"github.com/decongestant/decongestant/results"
	"gonum.org/v1/gonum/stat"
)

// An offered rate scaled to the set: a phase in which the paper's clients
// left its primary room ("few clients") runs here at the same share of
// this primary's capacity for that phase's workload, held there by bench's
// --rate (a phase's rate=). The capacity is a step of the experiment's own
// (a primary-only run of that workload, its Output), run before the step
// that uses it. Scaling the clients alone does not keep such a phase light
// when its workload costs this primary more than the probe's: YCSB-A's
// updates fill a 0.35-CPU primary with one client (the Decongestant
// paper's fig. 3). DESIGN.md ("Load scaled to the members") says why.

// ratePh matches the rate placeholder: {rate:0.4:capacity-a}.
var ratePh = regexp.MustCompile(`\{rate:([0-9.]+):([a-z0-9-]+)\}`)

// Rate is the placeholder for share of the throughput the step whose Output
// is capacity measured (reads and writes a second at its best client
// count), filled in by the runner (FillRate) once that step has run.
func Rate(share float64, capacity string) string {
	return "{rate:" + strconv.FormatFloat(share, 'f', -1, 64) + ":" + capacity + "}"
}

// FillRate replaces the rate placeholders in args with operations a second
// (whole, at least 1) from the capacity outputs in dir.
func FillRate(args []string, dir string) ([]string, error) {
	out := make([]string, len(args))
	var err error
	for i, a := range args {
		out[i] = ratePh.ReplaceAllStringFunc(a, func(m string) string {
			sub := ratePh.FindStringSubmatch(m)
			share, perr := strconv.ParseFloat(sub[1], 64)
			if perr != nil || share <= 0 {
				err = fmt.Errorf("%s: the share must be a positive number", m)
				return m
			}
			res, rerr := results.Read(filepath.Join(dir, sub[2]+".json"))
			if rerr != nil {
				err = fmt.Errorf("%s needs the output of the step that measures %s first: %w", m, sub[2], rerr)
				return m
			}
			c, cerr := capacity(res)
			if cerr != nil {
				err = fmt.Errorf("%s: %w", m, cerr)
				return m
			}
			return strconv.Itoa(max(1, int(share*c+0.5)))
		})
	}
	return out, err
}

// capacity is the best client count's mean throughput (reads and writes
// a second) in a capacity step's runs, every one of `primary`: what this
// primary serves of the step's workload when clients keep it busy.
func capacity(res *results.Results) (float64, error) {
	by := map[int][]float64{}
	for _, r := range res.Runs {
		if r.Policy != "primary" {
			return 0, fmt.Errorf("a capacity run of %q: capacity is measured with primary only", r.Policy)
		}
		c := r.Clients
		if c == 0 {
			c = res.Config.Clients
		}
		by[c] = append(by[c], r.Summary.ReadTput+r.Summary.WriteTput)
	}
	best := 0.0
	for _, tp := range by {
		best = max(best, stat.Mean(tp, nil))
	}
	if best <= 0 {
		return 0, fmt.Errorf("the capacity step measured no throughput")
	}
	return best, nil
}

// rateOutputs are the capacity outputs args' rate placeholders read.
func rateOutputs(args []string) []string {
	var out []string
	for _, a := range args {
		for _, m := range ratePh.FindAllStringSubmatch(a, -1) {
			out = append(out, m[2])
		}
	}
	return out
}
