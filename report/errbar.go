package report

import (
	"fmt"
	"strings"
)

// errBar is a vertical bar at x from lo to hi, in data units: the spread of
// the values a line's point stands for (e.g. min-max over repetitions).
type errBar struct{ x, lo, hi float64 }

// errBarValues returns the y values the bars of s reach, so the axis covers
// them.
func errBarValues(s series) []float64 {
	var ys []float64
	for _, e := range s.bars {
		if finite(e.x) && finite(e.lo) && finite(e.hi) {
			ys = append(ys, e.lo, e.hi)
		}
	}
	return ys
}

// writeErrBars draws the bars of s as one <path> of capped vertical
// segments in the series' colour; a bar of zero height, or with a value that
// cannot be drawn, is left out.
func writeErrBars(b *strings.Builder, f *frame, s series) {
	var d strings.Builder
	for _, e := range s.bars {
		x, lo, ok1 := f.project(point{e.x, e.lo})
		_, hi, ok2 := f.project(point{e.x, e.hi})
		if !ok1 || !ok2 || lo-hi < 0.5 {
			continue
		}
		fmt.Fprintf(&d, "M%s %sV%sM%s %sH%sM%s %sH%s", num(x), num(lo), num(hi),
			num(x-4), num(lo), num(x+4), num(x-4), num(hi), num(x+4))
	}
	if d.Len() == 0 {
		return
	}
	fmt.Fprintf(b, `<path class="errbar" d="%s" fill="none" stroke="%s" stroke-width="1.2"><title>%s</title></path>`+"\n",
		d.String(), esc(s.color), esc(s.tip+", spread"))
}
