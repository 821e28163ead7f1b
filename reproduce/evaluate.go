package reproduce

import "math"

// Row is one claim of a figure beside our measure and the verdict.
type Row struct {
	Figure string `json:"figure"`
	Claim  string `json:"claim"`
	Paper  string `json:"paper"`
	Source int    `json:"source_line,omitempty"`
	// Quote is the paper's words on its source line the claim rests on.
	Quote   string `json:"source_quote,omitempty"`
	Ours    string `json:"ours"`
	Unit    string `json:"unit,omitempty"`
	Verdict string `json:"verdict"`
	// Rule is how the verdict follows from the estimate, in words: the
	// interval, n, and the band or side it was held to; or why the claim
	// was not exercised.
	Rule string `json:"rule,omitempty"`
	// Detail says why a claim was not measured, or the finding's own
	// verdict text.
	Detail string `json:"detail,omitempty"`
	// Cause is the established cause of a disagreement (Claim.Cause),
	// present only when the verdict is disagrees or same direction.
	Cause    string    `json:"cause,omitempty"`
	Estimate *Estimate `json:"estimate,omitempty"`
	// BandLow and BandHigh bound the values the claim allows (absent on an
	// open side); PaperValue is the paper's number, when it gives one.
	BandLow    *float64 `json:"band_low,omitempty"`
	BandHigh   *float64 `json:"band_high,omitempty"`
	PaperValue *float64 `json:"paper_value,omitempty"`
}

// finitePtr is &v, nil when v is not finite.
func finitePtr(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// Evaluate measures every claim of f on o and judges it.
func Evaluate(f *Figure, o Outputs) []Row {
	var rows []Row
	for _, c := range f.Claims {
		r := Row{Figure: f.Name(), Claim: c.Text, Paper: c.PaperText, Source: c.Source.Line, Quote: c.Source.Quote, Unit: c.Unit}
		lo, hi := c.Band()
		r.BandLow, r.BandHigh = finitePtr(lo), finitePtr(hi)
		if c.Kind == Approx || c.Kind == AtMost {
			r.PaperValue = finitePtr(c.Paper)
		}
		e, err := c.Measure(o)
		if err != nil {
			r.Ours, r.Verdict, r.Detail = "-", NotMeasured, err.Error()
		} else {
			r.Verdict, r.Rule = Judge(c, e)
			r.Ours, r.Detail = e.String(), e.Note
			if r.Verdict == Disagrees || r.Verdict == SameDirection {
				r.Cause = c.Cause
			}
			if e.Measured() {
				r.Estimate = &e
			}
		}
		rows = append(rows, r)
	}
	return rows
}

// Tally counts rows by verdict.
func Tally(rows []Row) map[string]int {
	t := map[string]int{}
	for _, r := range rows {
		t[r.Verdict]++
	}
	return t
}

// Summary is a figure's overall verdict over its claims, the first of
// disagrees, same direction, inconclusive, agrees and not exercised that
// any claim has: a figure agrees only when every claim put to the test
// agrees. Not measured when no claim was.
func Summary(rows []Row) string {
	t := Tally(rows)
	for _, v := range []string{Disagrees, SameDirection, Inconclusive, Agrees, NotExercised} {
		if t[v] > 0 {
			return v
		}
	}
	return NotMeasured
}
