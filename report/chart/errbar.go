package chart

import (
	"fmt"
	"strings"
)

// ErrBar is a vertical bar at X from Lo to Hi, in data units: the spread of
// the values a line's point stands for (e.g. min-max over repetitions).
type ErrBar struct{ X, Lo, Hi float64 }

// errBarValues returns the y values the bars of s reach, so the axis covers
// them.
func errBarValues(s Series) []float64 {
	var ys []float64
	for _, e := range s.Bars {
		if finite(e.X) && finite(e.Lo) && finite(e.Hi) {
			ys = append(ys, e.Lo, e.Hi)
		}
	}
	return ys
}

// writeErrBars draws the bars of s as one <path> of capped vertical
// segments in the series' colour; a bar of zero height, or with a value that
// cannot be drawn, is left out.
func writeErrBars(b *strings.Builder, f *frame, s Series) {
	var d strings.Builder
	for _, e := range s.Bars {
		x, lo, ok1 := f.project(Point{e.X, e.Lo})
		_, hi, ok2 := f.project(Point{e.X, e.Hi})
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
		d.String(), esc(s.Color), esc(s.Tip+", spread"))
}
