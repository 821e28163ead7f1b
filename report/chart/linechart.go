package chart

import (
	"fmt"
	"math"
	"strings"
)

// Series is one line of a line chart, broken where a value is not finite;
// up to 24 points, a solid line also gets a dot per point.
type Series struct {
	Class   string // CSS class, which callers' tests may count
	Tip     string // tooltip
	Color   string
	Style   Style
	Width   float64 // stroke width in pixels
	Opacity float64 // 0 or 1: opaque
	Points  []Point
	// Bars are optional error bars (errbar.go).
	Bars []ErrBar
	// Base, when set (one value per point), makes the series a stacked
	// area: the band from Base up to the points, filled (area.go, Stack).
	Base []float64
}

// Line is a chart of lines over a shared x axis, with shaded bands,
// labelled vertical and horizontal lines, and a legend.
type Line struct {
	ID             string // the data-plot attribute
	Title          string
	XTitle, YTitle string
	Series         []Series
	Legend         []LegendItem
	Bands          []Band
	VLines         []VLine
	HLines         []HLine
	// XInclude and YInclude are values the axes must cover even without
	// data (e.g. 0, or 100 for a percentage).
	XInclude, YInclude []float64
	// YCap, when above 0, is the highest value the y axis extends to: a
	// stack of percentages rounded to 100.1 must not stretch the axis to 150.
	YCap float64
}

// axes computes the x and y axes of a line chart from its data and the
// values it must include.
func (c *Line) axes() (axis, axis, bool) {
	xs := append([]float64(nil), c.XInclude...)
	ys := append([]float64(nil), c.YInclude...)
	hasData := false
	for _, s := range c.Series {
		for _, p := range s.Points {
			if finite(p.X) && finite(p.Y) {
				y := p.Y
				if c.YCap > 0 {
					y = min(y, c.YCap)
				}
				xs, ys, hasData = append(xs, p.X), append(ys, y), true
			}
		}
		ys = append(ys, errBarValues(s)...)
	}
	// A reference line far above the data (a 10 s bound over 100 ms of
	// staleness) would flatten the data into the floor: leave it out of the
	// range and label it as off scale instead.
	dataMax := 0.0
	for _, y := range ys {
		dataMax = max(dataMax, y)
	}
	for _, h := range c.HLines {
		if !hasData || dataMax <= 0 || h.Y <= 4*dataMax {
			ys = append(ys, h.Y)
		}
	}
	if !hasData {
		for _, bd := range c.Bands {
			xs = append(xs, bd.X0, bd.X1)
		}
		for _, v := range c.VLines {
			xs = append(xs, v.X)
		}
	}
	xlo, xhi, _ := dataRange(xs)
	ylo, yhi, _ := dataRange(ys)
	ya := niceAxis(ylo, yhi, 6)
	// When the maximum lands on the top of the frame (a round number), add
	// half a step of headroom so the line stays visible; not when an
	// included value (100 %) is the top anyway.
	if _, incHi, ok := dataRange(c.YInclude); hasData && (!ok || yhi > incHi) &&
		yhi >= ya.hi-0.005*(ya.hi-ya.lo) {
		ya = niceAxis(ya.lo, ya.hi+ya.step/2, 6)
	}
	return niceAxis(xlo, xhi, 8), ya, hasData
}

func (c *Line) height() float64 {
	x, y, _ := c.axes()
	return newFrame(x, y, c.Legend).h
}

// render writes the chart as an <svg> element at (x, y): stacked areas
// first, then the bands, so that the warm-up stays shaded over them and the
// grid and the lines draw over both, then the grid, the phase switches, the
// bounds, the lines and the legend.
func (c *Line) render(b *strings.Builder, x, y float64, standalone bool) {
	xa, ya, hasData := c.axes()
	f := newFrame(xa, ya, c.Legend)
	f.open(b, c.ID, c.Title, x, y, standalone)
	for _, s := range c.Series {
		if s.Base != nil {
			writeArea(b, f, s)
		}
	}
	for _, bd := range c.Bands {
		writeBand(b, f, bd)
	}
	f.grid(b, c.XTitle, c.YTitle)
	for _, v := range c.VLines {
		writePhase(b, f, v)
	}
	for _, h := range c.HLines {
		writeHBound(b, f, h)
	}
	for _, s := range c.Series {
		if s.Base == nil {
			writeErrBars(b, f, s)
			writeSeries(b, f, s)
		}
	}
	f.close(b, hasData, c.Legend)
}

// writeBand shades the part of band bd inside the x axis, with its label at
// the bottom left.
func writeBand(b *strings.Builder, f *frame, bd Band) {
	x0, x1 := math.Max(bd.X0, f.xa.lo), math.Min(bd.X1, f.xa.hi)
	if !finite(x0) || !finite(x1) || x1 <= x0 {
		return
	}
	fmt.Fprintf(b, `<rect class="band" x="%s" y="%s" width="%s" height="%s" fill="#000000" fill-opacity="0.06"/>`+"\n",
		num(f.px(x0)), num(f.top), num(f.px(x1)-f.px(x0)), num(plotHeight))
	fmt.Fprintf(b, `<text x="%s" y="%s" font-size="%s" fill="#777">%s</text>`+"\n",
		num(f.px(x0)+4), num(f.bottom-6), num(smallFont), esc(bd.Label))
}

// writePhase draws a phase switch as a dashed vertical line labelled at the
// top: to its right, or to its left near the right edge. A switch at the
// start of the axis (or outside it) is not drawn.
func writePhase(b *strings.Builder, f *frame, v VLine) {
	if !finite(v.X) || v.X <= f.xa.lo || v.X > f.xa.hi {
		return
	}
	px := f.px(v.X)
	fmt.Fprintf(b, `<line class="phase" x1="%s" y1="%s" x2="%s" y2="%s" stroke="#555" stroke-width="1.2" stroke-dasharray="5 4"/>`+"\n",
		num(px), num(f.top), num(px), num(f.bottom))
	anchor, lx := "start", px+4
	if px+textWidth(v.Label, smallFont)+4 > f.right {
		anchor, lx = "end", px-4
	}
	fmt.Fprintf(b, `<text x="%s" y="%s" font-size="%s" fill="#555" text-anchor="%s"%s>%s</text>`+"\n",
		num(lx), num(f.top+11), num(smallFont), anchor, halo, esc(v.Label))
}

// writeHBound draws a bound as a red dashed horizontal line labelled at the
// right; a bound above the y axis (left out of its range by axes) gets only
// a label saying so.
func writeHBound(b *strings.Builder, f *frame, h HLine) {
	if !finite(h.Y) {
		return
	}
	py := f.py(h.Y)
	if py < f.top {
		fmt.Fprintf(b, `<text class="bound" x="%s" y="%s" font-size="%s" fill="#c00000" text-anchor="end"%s>%s (above the plot)</text>`+"\n",
			num(f.right-4), num(f.top+11), num(smallFont), halo, esc(h.Label))
		return
	}
	fmt.Fprintf(b, `<line class="bound" x1="%s" y1="%s" x2="%s" y2="%s" stroke="#c00000" stroke-width="1.2" stroke-dasharray="8 4"/>`+"\n",
		num(f.left), num(py), num(f.right), num(py))
	fmt.Fprintf(b, `<text x="%s" y="%s" font-size="%s" fill="#c00000" text-anchor="end"%s>%s</text>`+"\n",
		num(f.right-4), num(py-4), num(smallFont), halo, esc(h.Label))
}

// writeSeries draws one series as a single <path>; a non-finite value breaks
// the line rather than being drawn. Short series also get a dot per point,
// so that a single period is visible at all.
func writeSeries(b *strings.Builder, f *frame, s Series) {
	var d strings.Builder
	var dots []Point
	pen := false
	for _, p := range s.Points {
		x, y, ok := f.project(p)
		if !ok {
			pen = false
			continue
		}
		cmd := "L"
		if !pen {
			cmd = "M"
		}
		d.WriteString(cmd + num(x) + " " + num(y))
		pen = true
		dots = append(dots, Point{x, y})
	}
	if len(dots) == 0 {
		return
	}
	opacity := ""
	if s.Opacity > 0 && s.Opacity < 1 {
		opacity = ` stroke-opacity="` + num(s.Opacity) + `"`
	}
	fmt.Fprintf(b, `<path class="%s" d="%s" fill="none" stroke="%s" stroke-width="%s" stroke-linejoin="round" stroke-linecap="round"%s%s><title>%s</title></path>`+"\n",
		esc(s.Class), d.String(), esc(s.Color), num(s.Width), dashAttr(s.Style), opacity, esc(s.Tip))
	if len(dots) <= markerMax && s.Style == Solid {
		r := s.Width + 0.8
		if len(dots) == 1 {
			r = s.Width + 2.5 // a lone point must be visible
		}
		fillOpacity := ""
		if opacity != "" {
			fillOpacity = ` fill-opacity="` + num(s.Opacity) + `"`
		}
		for _, p := range dots {
			fmt.Fprintf(b, `<circle cx="%s" cy="%s" r="%s" fill="%s"%s/>`, num(p.X), num(p.Y), num(r), esc(s.Color), fillOpacity)
		}
		b.WriteString("\n")
	}
}
