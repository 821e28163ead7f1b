package report

import (
	"fmt"
	"math"
	"strings"
)

// series is one line of a line chart.
type series struct {
	class   string // CSS class, also used by tests to count lines
	tip     string // tooltip
	color   string
	style   lineStyle
	width   float64
	opacity float64
	pts     []point
	// bars are optional error bars (errbar.go).
	bars []errBar
	// base, when set (one value per point), makes the series a stacked
	// area: the band from base up to the points (area.go).
	base []float64
}

// lineChart is a chart of lines over a shared x axis.
type lineChart struct {
	id             string // data-plot attribute
	title          string
	xTitle, yTitle string
	series         []series
	legend         []legendItem
	bands          []band
	vlines         []vline
	hlines         []hline
	// xInclude and yInclude are values the axes must cover even without
	// data (e.g. 0, or 100 for a percentage).
	xInclude, yInclude []float64
	// yCap, when above 0, is the highest value the y axis extends to: a
	// stack of percentages rounded to 100.1 must not stretch the axis to 150.
	yCap float64
}

// axes computes the x and y axes of a line chart from its data and the
// values it must include.
func (c *lineChart) axes() (axis, axis, bool) {
	xs := append([]float64(nil), c.xInclude...)
	ys := append([]float64(nil), c.yInclude...)
	hasData := false
	for _, s := range c.series {
		for _, p := range s.pts {
			if finite(p.x) && finite(p.y) {
				y := p.y
				if c.yCap > 0 {
					y = min(y, c.yCap)
				}
				xs, ys, hasData = append(xs, p.x), append(ys, y), true
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
	for _, h := range c.hlines {
		if !hasData || dataMax <= 0 || h.y <= 4*dataMax {
			ys = append(ys, h.y)
		}
	}
	if !hasData {
		for _, bd := range c.bands {
			xs = append(xs, bd.x0, bd.x1)
		}
		for _, v := range c.vlines {
			xs = append(xs, v.x)
		}
	}
	xlo, xhi, _ := dataRange(xs)
	ylo, yhi, _ := dataRange(ys)
	ya := niceAxis(ylo, yhi, 6)
	// When the maximum lands on the top of the frame (a round number), add
	// half a step of headroom so the line stays visible; not when an
	// included value (100 %) is the top anyway.
	if _, incHi, ok := dataRange(c.yInclude); hasData && (!ok || yhi > incHi) &&
		yhi >= ya.hi-0.005*(ya.hi-ya.lo) {
		ya = niceAxis(ya.lo, ya.hi+ya.step/2, 6)
	}
	return niceAxis(xlo, xhi, 8), ya, hasData
}

func (c *lineChart) height() float64 {
	x, y, _ := c.axes()
	return newFrame(x, y, c.legend).h
}

// render writes the chart as an <svg> element at (x, y): stacked areas
// first, then the bands, so that the warm-up stays shaded over them and the
// grid and the lines draw over both, then the grid, the phase switches, the
// bounds, the lines and the legend.
func (c *lineChart) render(b *strings.Builder, x, y float64, standalone bool) {
	xa, ya, hasData := c.axes()
	f := newFrame(xa, ya, c.legend)
	f.open(b, c.id, c.title, x, y, standalone)
	for _, s := range c.series {
		if s.base != nil {
			writeArea(b, f, s)
		}
	}
	for _, bd := range c.bands {
		writeBand(b, f, bd)
	}
	f.grid(b, c.xTitle, c.yTitle)
	for _, v := range c.vlines {
		writePhase(b, f, v)
	}
	for _, h := range c.hlines {
		writeHBound(b, f, h)
	}
	for _, s := range c.series {
		if s.base == nil {
			writeErrBars(b, f, s)
			writeSeries(b, f, s)
		}
	}
	f.close(b, hasData, c.legend)
}

// writeBand shades the part of band bd inside the x axis, with its label at
// the bottom left.
func writeBand(b *strings.Builder, f *frame, bd band) {
	x0, x1 := math.Max(bd.x0, f.x.lo), math.Min(bd.x1, f.x.hi)
	if !finite(x0) || !finite(x1) || x1 <= x0 {
		return
	}
	fmt.Fprintf(b, `<rect class="band" x="%s" y="%s" width="%s" height="%s" fill="#000000" fill-opacity="0.06"/>`+"\n",
		num(f.px(x0)), num(f.top), num(f.px(x1)-f.px(x0)), num(plotHeight))
	fmt.Fprintf(b, `<text x="%s" y="%s" font-size="%s" fill="#777">%s</text>`+"\n",
		num(f.px(x0)+4), num(f.bottom-6), num(smallFont), esc(bd.label))
}

// writePhase draws a phase switch as a dashed vertical line labelled at the
// top: to its right, or to its left near the right edge. A switch at the
// start of the axis (or outside it) is not drawn.
func writePhase(b *strings.Builder, f *frame, v vline) {
	if !finite(v.x) || v.x <= f.x.lo || v.x > f.x.hi {
		return
	}
	px := f.px(v.x)
	fmt.Fprintf(b, `<line class="phase" x1="%s" y1="%s" x2="%s" y2="%s" stroke="#555" stroke-width="1.2" stroke-dasharray="5 4"/>`+"\n",
		num(px), num(f.top), num(px), num(f.bottom))
	anchor, lx := "start", px+4
	if px+textWidth(v.label, smallFont)+4 > f.right {
		anchor, lx = "end", px-4
	}
	fmt.Fprintf(b, `<text x="%s" y="%s" font-size="%s" fill="#555" text-anchor="%s"%s>%s</text>`+"\n",
		num(lx), num(f.top+11), num(smallFont), anchor, halo, esc(v.label))
}

// writeHBound draws a bound as a red dashed horizontal line labelled at the
// right; a bound above the y axis (left out of its range by axes) gets only
// a label saying so.
func writeHBound(b *strings.Builder, f *frame, h hline) {
	if !finite(h.y) {
		return
	}
	py := f.py(h.y)
	if py < f.top {
		fmt.Fprintf(b, `<text class="bound" x="%s" y="%s" font-size="%s" fill="#c00000" text-anchor="end"%s>%s (above the plot)</text>`+"\n",
			num(f.right-4), num(f.top+11), num(smallFont), halo, esc(h.label))
		return
	}
	fmt.Fprintf(b, `<line class="bound" x1="%s" y1="%s" x2="%s" y2="%s" stroke="#c00000" stroke-width="1.2" stroke-dasharray="8 4"/>`+"\n",
		num(f.left), num(py), num(f.right), num(py))
	fmt.Fprintf(b, `<text x="%s" y="%s" font-size="%s" fill="#c00000" text-anchor="end"%s>%s</text>`+"\n",
		num(f.right-4), num(py-4), num(smallFont), halo, esc(h.label))
}

// writeSeries draws one series as a single <path>; a non-finite value breaks
// the line rather than being drawn. Short series also get a dot per point,
// so that a single period is visible at all.
func writeSeries(b *strings.Builder, f *frame, s series) {
	var d strings.Builder
	var dots []point
	pen := false
	for _, p := range s.pts {
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
		dots = append(dots, point{x, y})
	}
	if len(dots) == 0 {
		return
	}
	opacity := ""
	if s.opacity > 0 && s.opacity < 1 {
		opacity = ` stroke-opacity="` + num(s.opacity) + `"`
	}
	fmt.Fprintf(b, `<path class="%s" d="%s" fill="none" stroke="%s" stroke-width="%s" stroke-linejoin="round" stroke-linecap="round"%s%s><title>%s</title></path>`+"\n",
		esc(s.class), d.String(), esc(s.color), num(s.width), dashAttr(s.style), opacity, esc(s.tip))
	if len(dots) <= markerMax && s.style == solid {
		r := s.width + 0.8
		if len(dots) == 1 {
			r = s.width + 2.5 // a lone point must be visible
		}
		fillOpacity := ""
		if opacity != "" {
			fillOpacity = ` fill-opacity="` + num(s.opacity) + `"`
		}
		for _, p := range dots {
			fmt.Fprintf(b, `<circle cx="%s" cy="%s" r="%s" fill="%s"%s/>`, num(p.x), num(p.y), num(r), esc(s.color), fillOpacity)
		}
		b.WriteString("\n")
	}
}
