package reproduce

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/decongestant/decongestant/results"
	"gonum.org/v1/gonum/stat"
)

// The papers' load regimes ("a low load of between 10 to 50 clients") are
// relative to their machines: a count of clients that leaves an r4.2xlarge
// primary room to spare saturates a member capped at 0.35 CPU. So an
// experiment whose claims depend on the regime first measures where this
// set's primary stops gaining throughput (a primary-only client sweep, the
// probe) and runs the paper's client counts scaled by ours over the
// paper's saturation point. DESIGN.md ("Load scaled to the members") says
// why this rule and which point each paper gives.

// Saturation is how an experiment scales its client counts.
type Saturation struct {
	// Paper is the paper's saturation point in clients: the most clients
	// its primary served without falling behind.
	Paper int
	// Source is the paper's line that gives it.
	Source Source
	// Probe is the primary-only client sweep run before the experiment's
	// steps; its Output is read back to find this set's point.
	Probe func(quick bool) Step
}

// SaturationShare is the rule's threshold: the saturation point is the
// fewest clients whose fitted throughput reaches this share of the fit's
// best (NewScaling).
const SaturationShare = 0.9

// Scaling is the mapping one run used, recorded in the index.
type Scaling struct {
	// Ours is this set's saturation point in clients; Paper the paper's.
	Ours  int `json:"saturation_clients"`
	Paper int `json:"paper_saturation_clients"`
	// PaperSource quotes the paper's line the point is read from.
	PaperSource string `json:"paper_source"`
	// Reached is false when the probe's throughput still grew at its most
	// clients: Ours is then a lower bound and the scaled counts too small.
	Reached bool `json:"reached"`
	// Probe is the probe's throughput (operations/s) by client count.
	Probe []ProbePoint `json:"probe"`
	// Mapping is the paper's counts and ours: "20→3, 100→16, 180→29".
	Mapping string `json:"mapping,omitempty"`
}

// ProbePoint is the probe's mean throughput at one client count, and the
// non-decreasing fit's value there, which the rule reads.
type ProbePoint struct {
	Clients int     `json:"clients"`
	Tput    float64 `json:"ops_per_s"`
	Fit     float64 `json:"fit_ops_per_s"`
}

// Scale maps one of the paper's client counts to this set: in proportion
// to the two saturation points, at least one client.
func (s *Scaling) Scale(paper int) int {
	return max(1, int(math.Round(float64(paper)*float64(s.Ours)/float64(s.Paper))))
}

// String is the scaling for people, one line.
func (s *Scaling) String() string {
	reached := ""
	if !s.Reached {
		reached = " (still rising at the probe's most clients: a lower bound)"
	}
	line := fmt.Sprintf("this set's primary stops gaining at %d clients%s, the paper's at %d (%s)", s.Ours, reached, s.Paper, s.PaperSource)
	if s.Mapping != "" {
		line += "; the paper's clients run as " + s.Mapping
	}
	return line
}

// NewScaling finds this set's saturation point in the probe's results: the
// fewest clients whose throughput (reads and writes, the mean of a count's
// runs) reaches SaturationShare of the best on the probe's non-decreasing
// fit. The fit (the closest non-decreasing curve in least squares) pools a
// fall after a peak with the peak, so the plateau's level is the mean of
// its points rather than its one luckiest: on a flat, noisy top one high
// point no longer sets a bar the knee misses by a per cent. Every run of
// the probe must be of `primary`, and it must have swept at least three
// counts.
func NewScaling(sat *Saturation, probe *results.Results) (*Scaling, error) {
	by := map[int][]float64{}
	for _, r := range probe.Runs {
		if r.Policy != "primary" {
			return nil, fmt.Errorf("saturation probe: a run of %q: the probe runs primary only", r.Policy)
		}
		by[r.Clients] = append(by[r.Clients], r.Summary.ReadTput+r.Summary.WriteTput)
	}
	if len(by) < 3 {
		return nil, fmt.Errorf("saturation probe: %d client counts, want at least 3", len(by))
	}
	s := &Scaling{Paper: sat.Paper, PaperSource: fmt.Sprintf("line %d: %q", sat.Source.Line, sat.Source.Quote)}
	var tput []float64
	for _, c := range slices.Sorted(maps.Keys(by)) {
		s.Probe = append(s.Probe, ProbePoint{Clients: c, Tput: stat.Mean(by[c], nil)})
		tput = append(tput, s.Probe[len(s.Probe)-1].Tput)
	}
	fit := nonDecreasing(tput)
	best := fit[len(fit)-1]
	if best <= 0 {
		return nil, fmt.Errorf("saturation probe: no throughput at any client count")
	}
	for i := range s.Probe {
		s.Probe[i].Fit = fit[i]
	}
	for i, p := range s.Probe {
		if p.Fit >= SaturationShare*best {
			s.Ours, s.Reached = p.Clients, i < len(s.Probe)-1
			break
		}
	}
	return s, nil
}

// nonDecreasing is the least-squares non-decreasing fit of y (pool
// adjacent violators): each run of points that falls is replaced by its
// mean, merged backwards until the fit no longer falls.
func nonDecreasing(y []float64) []float64 {
	type block struct {
		sum float64
		n   int
	}
	var bs []block
	for _, v := range y {
		bs = append(bs, block{v, 1})
		for len(bs) > 1 {
			a, b := bs[len(bs)-2], bs[len(bs)-1]
			if a.sum/float64(a.n) <= b.sum/float64(b.n) {
				break
			}
			bs = append(bs[:len(bs)-2], block{a.sum + b.sum, a.n + b.n})
		}
	}
	fit := make([]float64, 0, len(y))
	for _, b := range bs {
		for range b.n {
			fit = append(fit, b.sum/float64(b.n))
		}
	}
	return fit
}

// clientsPh matches the client-count placeholder: {clients:20,100,180}.
var clientsPh = regexp.MustCompile(`\{clients:([0-9]+(?:,[0-9]+)*)\}`)

// Clients is the placeholder for the paper's client counts, scaled to the
// set by the runner (FillClients).
func Clients(paper ...int) string {
	s := make([]string, len(paper))
	for i, c := range paper {
		s[i] = strconv.Itoa(c)
	}
	return "{clients:" + strings.Join(s, ",") + "}"
}

// FillClients replaces the client-count placeholders in args with the
// scaled counts (a list keeps its order, without repeats), and adds each
// count to sc.Mapping. Placeholders with no scaling are an error: the
// experiment has no Saturation.
func FillClients(args []string, sc *Scaling) ([]string, error) {
	out := make([]string, len(args))
	var err error
	for i, a := range args {
		out[i] = clientsPh.ReplaceAllStringFunc(a, func(m string) string {
			if sc == nil {
				err = fmt.Errorf("%s in %q, but no saturation point to scale it by", m, a)
				return m
			}
			var scaled []string
			for _, f := range strings.Split(clientsPh.FindStringSubmatch(m)[1], ",") {
				c, _ := strconv.Atoi(f)
				n := strconv.Itoa(sc.Scale(c))
				sc.addMapping(c, n)
				if !slices.Contains(scaled, n) {
					scaled = append(scaled, n)
				}
			}
			return strings.Join(scaled, ",")
		})
	}
	return out, err
}

func (s *Scaling) addMapping(paper int, ours string) {
	pair := fmt.Sprintf("%d→%s", paper, ours)
	if slices.Contains(strings.Split(s.Mapping, ", "), pair) {
		return
	}
	if s.Mapping != "" {
		s.Mapping += ", "
	}
	s.Mapping += pair
}

// HasClients reports whether args hold a client-count placeholder.
func HasClients(args []string) bool {
	return slices.ContainsFunc(args, clientsPh.MatchString)
}

// ProbeOutput is the name of the probe's results.
const ProbeOutput = "saturation"

// ScalingOutput is the name of the file the runner writes an experiment's
// Scaling to, beside its results.
const ScalingOutput = "scaling"

// scaledClients is the paper's client count as the run scaled it, the
// count itself when the run was not scaled (no scaling file).
func scaledClients(o Outputs, paper int) (int, error) {
	var sc Scaling
	err := o.JSON(ScalingOutput, &sc)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return paper, nil
	case err != nil:
		return 0, err
	case sc.Ours <= 0 || sc.Paper <= 0:
		return 0, fmt.Errorf("%s: no saturation points (ours %d, the paper's %d)", ScalingOutput, sc.Ours, sc.Paper)
	}
	return sc.Scale(paper), nil
}
