package chart

import (
	"fmt"
	"html/template"
	"math"
	"strings"
)

// ClaimStrip is one claim of a paper drawn on its own axis: the values the
// claim allows (a shaded band, open to one side for "above" or "below"),
// the paper's number when it gives one (a diamond), and ours, the mean (a
// dot) with its 95 % interval (a line). reproduce's index draws one beside
// every judged claim. Unlike the charts, it is drawn small and inline, for a
// table cell.
type ClaimStrip struct {
	// BandLo and BandHi bound the values the claim allows; ±Inf is open.
	BandLo, BandHi float64
	// Paper is the paper's number; NaN when it gives none.
	Paper float64
	// Mean, Lo and Hi are ours; Mean NaN draws no measure.
	Mean, Lo, Hi float64
	// Color is our measure's colour (the verdict's).
	Color string
}

// Claim strips' size and colours.
const (
	stripW, stripH = 240.0, 40.0
	stripPad       = 14.0
	bandColor      = "#dbe8d2"
	paperColor     = "#6a3d9a"
)

// HTML returns the strip as an inline <svg> element, or "" when it has
// nothing to draw (no finite value). Its text is escaped, so it is safe to
// embed as is.
func (s ClaimStrip) HTML() template.HTML {
	return template.HTML(s.svg())
}

func (s ClaimStrip) svg() string {
	vals := []float64{s.BandLo, s.BandHi, s.Paper}
	if finite(s.Mean) {
		vals = append(vals, s.Mean, s.Lo, s.Hi)
	}
	var vs []float64
	for _, v := range vals {
		if finite(v) {
			vs = append(vs, v)
		}
	}
	lo, hi, ok := dataRange(vs)
	if !ok {
		return ""
	}
	pad := (hi - lo) * 0.15
	if pad == 0 {
		pad = math.Max(math.Abs(lo)*0.1, 1)
	}
	ax := niceAxis(lo-pad, hi+pad, 4)
	x := func(v float64) float64 {
		v = math.Max(ax.lo, math.Min(ax.hi, v)) // an open band ends at the axis
		return stripPad + (v-ax.lo)/(ax.hi-ax.lo)*(stripW-2*stripPad)
	}
	const mid, axisY = 13.0, 26.0
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%s" height="%s" viewBox="0 0 %s %s" font-family="%s" font-size="9">`,
		num(stripW), num(stripH), num(stripW), num(stripH), esc(fontFamily))
	if !math.IsNaN(s.BandLo) && !math.IsNaN(s.BandHi) {
		x0, x1 := x(s.BandLo), x(s.BandHi)
		fmt.Fprintf(&b, `<rect x="%s" y="4" width="%s" height="18" fill="%s"><title>the claim</title></rect>`, num(x0), num(math.Max(x1-x0, 1)), bandColor)
	}
	fmt.Fprintf(&b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#999" stroke-width="1"/>`, num(stripPad), num(axisY), num(stripW-stripPad), num(axisY))
	for _, t := range ax.ticks {
		fmt.Fprintf(&b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#999"/><text x="%s" y="%s" text-anchor="middle" fill="#555">%s</text>`,
			num(x(t)), num(axisY), num(x(t)), num(axisY+3), num(x(t)), num(axisY+12), esc(ax.label(t)))
	}
	if finite(s.Paper) {
		var m strings.Builder
		writeMarker(&m, diamond, x(s.Paper), mid, 4, paperColor, "")
		b.WriteString(strings.Replace(m.String(), "/>", "><title>the paper</title></path>", 1))
	}
	if finite(s.Mean) {
		color := s.Color
		if color == "" {
			color = "#333"
		}
		if finite(s.Lo) && finite(s.Hi) {
			fmt.Fprintf(&b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="2"/>`, num(x(s.Lo)), num(mid), num(x(s.Hi)), num(mid), esc(color))
		}
		fmt.Fprintf(&b, `<circle cx="%s" cy="%s" r="3.5" fill="%s" stroke="#fff"><title>ours</title></circle>`, num(x(s.Mean)), num(mid), esc(color))
	}
	b.WriteString(`</svg>`)
	return b.String()
}
