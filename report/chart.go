package report

// A small SVG chart renderer: line charts and scatter plots with "nice" axis
// ticks, grid lines, axis titles and a legend. It knows nothing about bench
// results; plots.go turns results into charts.
//
// Every number written into the SVG goes through num, and every string through
// esc, so the output is valid XML whatever the data: non-finite values are
// dropped before projection, and strings are escaped.

import (
	"encoding/xml"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Layout, in pixels.
const (
	chartWidth    = 720.0
	plotHeight    = 200.0 // height of the plotting area
	marginRight   = 20.0
	minMarginLeft = 68.0
	marginBottom  = 44.0 // x tick labels and x axis title
	titleHeight   = 26.0
	legendRow     = 16.0
	fontSize      = 12.0
	tickFontSize  = 11.0
	smallFont     = 10.0
	// markerMax is the number of points up to which a line also gets a dot
	// per point; beyond that dots only clutter.
	markerMax = 24
)

const fontFamily = "system-ui, -apple-system, 'Segoe UI', Helvetica, Arial, sans-serif"

// axis is a nice numeric axis: it spans lo..hi, with ticks every step.
type axis struct {
	lo, hi, step float64
	ticks        []float64
}

// niceAxis returns an axis covering [lo, hi] with about n ticks placed at
// multiples of 1, 2 or 5 × 10^k (Heckbert, "Nice numbers for graph labels",
// Graphics Gems, 1990). The axis always has a positive span: an empty range
// is widened, and non-finite bounds fall back to 0..1.
func niceAxis(lo, hi float64, n int) axis {
	if n < 2 {
		n = 2
	}
	if !finite(lo) || !finite(hi) {
		lo, hi = 0, 1
	}
	if lo > hi {
		lo, hi = hi, lo
	}
	if lo == hi {
		if lo == 0 {
			hi = 1
		} else {
			d := math.Abs(lo) * 0.1
			lo, hi = lo-d, hi+d
		}
	}
	span := niceNum(hi-lo, false)
	step := niceNum(span/float64(n-1), true)
	if !finite(span) || !finite(step) || step <= 0 {
		return axis{lo: 0, hi: 1, step: 1, ticks: []float64{0, 1}}
	}
	// The epsilon keeps 0.6/0.2 = 3.0000000000000004 from adding a tick.
	const eps = 1e-9
	a := axis{lo: math.Floor(lo/step+eps) * step, hi: math.Ceil(hi/step-eps) * step, step: step}
	count := int(math.Round((a.hi-a.lo)/step)) + 1
	if count < 2 || count > 1000 || a.hi <= a.lo {
		// Rounding broke down (span tiny relative to the magnitude): keep
		// the raw range with ticks at its ends.
		return axis{lo: lo, hi: hi, step: hi - lo, ticks: []float64{lo, hi}}
	}
	a.ticks = make([]float64, count)
	for i := range a.ticks {
		// Multiply rather than accumulate, so 0.1 steps stay exact-ish.
		a.ticks[i] = a.lo + float64(i)*step
	}
	return a
}

// niceNum returns a nice number close to x: 1, 2, 5 or 10 × 10^k, rounded
// to the nearest when round, else the smallest not below x.
func niceNum(x float64, round bool) float64 {
	if x <= 0 || !finite(x) {
		return 0
	}
	exp := math.Floor(math.Log10(x))
	f := x / math.Pow(10, exp)
	var nf float64
	if round {
		switch {
		case f < 1.5:
			nf = 1
		case f < 3:
			nf = 2
		case f < 7:
			nf = 5
		default:
			nf = 10
		}
	} else {
		switch {
		case f <= 1:
			nf = 1
		case f <= 2:
			nf = 2
		case f <= 5:
			nf = 5
		default:
			nf = 10
		}
	}
	return nf * math.Pow(10, exp)
}

// label formats tick v of a: as many decimals as the step needs, and a k/M
// suffix when the numbers get long (12k rather than 12000).
func (a axis) label(v float64) string {
	if math.Abs(v) < a.step*1e-9 {
		v = 0 // avoid "-0" and 1e-17 from floating error
	}
	maxAbs := math.Max(math.Abs(a.lo), math.Abs(a.hi))
	step, suffix := a.step, ""
	switch {
	case maxAbs >= 1e7 && step >= 1e5:
		v, step, suffix = v/1e6, step/1e6, "M"
	case maxAbs >= 1e4 && step >= 100:
		v, step, suffix = v/1e3, step/1e3, "k"
	}
	dec := 0
	if step > 0 && step < 1 {
		dec = int(math.Ceil(-math.Log10(step) - 1e-9))
		if dec > 10 {
			dec = 10
		}
		// A step of 2.5 × 10^-k needs one more digit than its decade.
		if r := step * math.Pow(10, float64(dec)); math.Abs(r-math.Round(r)) > 1e-6 {
			dec++
		}
	} else if step >= 1 && step != math.Trunc(step) {
		dec = 1
	}
	return strconv.FormatFloat(v, 'f', dec, 64) + suffix
}

// lineStyle is how a line is stroked.
type lineStyle int

const (
	solid lineStyle = iota
	dashed
	dotted
)

func (s lineStyle) dashArray() string {
	switch s {
	case dashed:
		return "7 4"
	case dotted:
		return "1.5 3"
	}
	return ""
}

// point is a data point, in data units.
type point struct{ x, y float64 }

// series is one line of a line chart.
type series struct {
	class   string // CSS class, also used by tests to count lines
	tip     string // tooltip
	color   string
	style   lineStyle
	width   float64
	opacity float64
	pts     []point
}

// markerShape distinguishes inputs in a scatter plot.
type markerShape int

const (
	noMarker markerShape = iota - 1
	circle
	square
	triangle
	diamond
	numShapes = 4
)

// legendItem is one entry of a legend: a line swatch, or a marker when
// shape is not noMarker.
type legendItem struct {
	label string
	color string
	style lineStyle
	shape markerShape
}

// vline is a labelled dashed vertical line (a phase switch), hline a
// horizontal one (a bound), band a shaded x range (the warm-up).
type (
	vline struct {
		x     float64
		label string
	}
	hline struct {
		y     float64
		label string
	}
	band struct {
		x0, x1 float64
		label  string
	}
)

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
}

// scatterPoint is one labelled point of a scatter plot, with optional error
// bars (0 for none).
type scatterPoint struct {
	x, y       float64
	xErr, yErr float64
	label, tip string
	color      string
	shape      markerShape
}

// scatterChart is a scatter plot of labelled points.
type scatterChart struct {
	id             string
	title          string
	xTitle, yTitle string
	points         []scatterPoint
	legend         []legendItem
	// bounds are labelled dashed vertical lines (staleness bounds).
	bounds []vline
}

// chart is anything that renders as an SVG element at (x, y); standalone adds
// the namespace needed by an SVG file (harmless inline in HTML).
type chart interface {
	height() float64
	render(b *strings.Builder, x, y float64, standalone bool)
}

var (
	_ chart = (*lineChart)(nil)
	_ chart = (*scatterChart)(nil)
)

// frame is the geometry shared by both chart kinds: the plotting area in
// pixels and the axes mapping data to it.
type frame struct {
	h                        float64
	left, top, right, bottom float64
	x, y                     axis
	legendPos                []point
}

// newFrame lays out a chart: title, then the legend rows, then the plot, with
// a left margin wide enough for the y tick labels.
func newFrame(x, y axis, legend []legendItem) *frame {
	f := &frame{x: x, y: y}
	maxLabel := 0.0
	for _, t := range y.ticks {
		maxLabel = math.Max(maxLabel, textWidth(y.label(t), tickFontSize))
	}
	// A fixed minimum keeps the plots of a page aligned on the x axis.
	f.left = math.Max(minMarginLeft, 24+maxLabel+8)
	f.right = chartWidth - marginRight
	pos, rows := layoutLegend(legend, f.left, f.right)
	f.legendPos = pos
	f.top = titleHeight + float64(rows)*legendRow + 10
	f.bottom = f.top + plotHeight
	f.h = f.bottom + marginBottom
	return f
}

func (f *frame) px(v float64) float64 {
	return f.left + (v-f.x.lo)/(f.x.hi-f.x.lo)*(f.right-f.left)
}

func (f *frame) py(v float64) float64 {
	return f.bottom - (v-f.y.lo)/(f.y.hi-f.y.lo)*(f.bottom-f.top)
}

// project maps a data point to pixels; ok is false when it cannot be drawn.
func (f *frame) project(p point) (float64, float64, bool) {
	if !finite(p.x) || !finite(p.y) {
		return 0, 0, false
	}
	x, y := f.px(p.x), f.py(p.y)
	return x, y, finite(x) && finite(y)
}

// legendSwatch is the width of a legend item's swatch plus its gap.
const legendSwatch = 26.0

// layoutLegend places legend items left to right from x0, wrapping at maxX;
// it returns the position of each item (relative to the first row) and the
// number of rows.
func layoutLegend(items []legendItem, x0, maxX float64) ([]point, int) {
	if len(items) == 0 {
		return nil, 0
	}
	pos := make([]point, len(items))
	x, row := x0, 0
	for i, it := range items {
		w := legendSwatch + textWidth(it.label, fontSize) + 16
		if x+w > maxX && x > x0 {
			x, row = x0, row+1
		}
		pos[i] = point{x, float64(row) * legendRow}
		x += w
	}
	return pos, row + 1
}

// num formats a pixel coordinate. Callers only pass finite values; the guard
// keeps NaN and Inf out of the SVG regardless.
func num(v float64) string {
	if !finite(v) {
		return "0"
	}
	v = math.Round(v*10) / 10
	if v == 0 {
		v = 0 // no "-0"
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// esc escapes s for XML text and attribute values (and so for HTML),
// replacing characters XML cannot carry.
func esc(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s)) // a strings.Builder never fails
	return b.String()
}

// open writes the <svg> element, background and title.
func (f *frame) open(b *strings.Builder, id, title string, x, y float64, standalone bool) {
	b.WriteString("<svg")
	if standalone {
		b.WriteString(` xmlns="http://www.w3.org/2000/svg"`)
	}
	fmt.Fprintf(b, ` x="%s" y="%s" width="%s" height="%s" viewBox="0 0 %s %s" class="chart" data-plot="%s" role="img" aria-label="%s" font-family="%s" font-size="%s">`,
		num(x), num(y), num(chartWidth), num(f.h), num(chartWidth), num(f.h), esc(id), esc(title), esc(fontFamily), num(fontSize))
	fmt.Fprintf(b, "\n<title>%s</title>\n", esc(title))
	fmt.Fprintf(b, `<rect width="%s" height="%s" fill="#ffffff"/>`+"\n", num(chartWidth), num(f.h))
	fmt.Fprintf(b, `<text x="%s" y="18" font-size="14" font-weight="600" fill="#222">%s</text>`+"\n", num(f.left), esc(title))
}

// grid writes the grid lines, tick labels, axis lines and axis titles.
func (f *frame) grid(b *strings.Builder, xTitle, yTitle string) {
	b.WriteString(`<g class="grid" stroke="#e4e4e4" stroke-width="1">` + "\n")
	for _, t := range f.y.ticks {
		y := f.py(t)
		fmt.Fprintf(b, `<line x1="%s" y1="%s" x2="%s" y2="%s"/>`+"\n", num(f.left), num(y), num(f.right), num(y))
	}
	for _, t := range f.x.ticks {
		x := f.px(t)
		fmt.Fprintf(b, `<line x1="%s" y1="%s" x2="%s" y2="%s"/>`+"\n", num(x), num(f.top), num(x), num(f.bottom))
	}
	b.WriteString("</g>\n")
	fmt.Fprintf(b, `<g class="ticks" font-size="%s" fill="#444">`+"\n", num(tickFontSize))
	for _, t := range f.y.ticks {
		fmt.Fprintf(b, `<text x="%s" y="%s" text-anchor="end">%s</text>`+"\n", num(f.left-6), num(f.py(t)+4), esc(f.y.label(t)))
	}
	for _, t := range f.x.ticks {
		fmt.Fprintf(b, `<text x="%s" y="%s" text-anchor="middle">%s</text>`+"\n", num(f.px(t)), num(f.bottom+16), esc(f.x.label(t)))
	}
	b.WriteString("</g>\n")
	fmt.Fprintf(b, `<path d="M%s %sV%sH%s" fill="none" stroke="#888" stroke-width="1"/>`+"\n",
		num(f.left), num(f.top), num(f.bottom), num(f.right))
	fmt.Fprintf(b, `<text x="%s" y="%s" text-anchor="middle" fill="#333">%s</text>`+"\n",
		num((f.left+f.right)/2), num(f.bottom+36), esc(xTitle))
	cy := (f.top + f.bottom) / 2
	fmt.Fprintf(b, `<text x="14" y="%s" text-anchor="middle" fill="#333" transform="rotate(-90 14 %s)">%s</text>`+"\n",
		num(cy), num(cy), esc(yTitle))
}

// legend writes the legend items at the positions computed by newFrame.
func (f *frame) legend(b *strings.Builder, items []legendItem) {
	if len(items) == 0 {
		return
	}
	b.WriteString(`<g class="legend">` + "\n")
	y0 := titleHeight + 8
	for i, it := range items {
		x, y := f.legendPos[i].x, y0+f.legendPos[i].y
		if it.shape == noMarker {
			fmt.Fprintf(b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="2.5"%s/>`,
				num(x), num(y-4), num(x+20), num(y-4), esc(it.color), dashAttr(it.style))
		} else {
			writeMarker(b, it.shape, x+10, y-4, 4.5, it.color, "")
		}
		fmt.Fprintf(b, `<text x="%s" y="%s" fill="#222">%s</text>`+"\n", num(x+legendSwatch), num(y), esc(it.label))
	}
	b.WriteString("</g>\n")
}

func dashAttr(s lineStyle) string {
	if d := s.dashArray(); d != "" {
		return ` stroke-dasharray="` + d + `"`
	}
	return ""
}

// writeMarker draws a filled marker of the given shape centred on (x, y).
func writeMarker(b *strings.Builder, shape markerShape, x, y, r float64, color, class string) {
	cls := ""
	if class != "" {
		cls = ` class="` + esc(class) + `"`
	}
	paint := fmt.Sprintf(` fill="%s" stroke="#ffffff" stroke-width="1"`, esc(color))
	switch shape {
	case square:
		fmt.Fprintf(b, `<rect%s x="%s" y="%s" width="%s" height="%s"%s/>`, cls, num(x-r), num(y-r), num(2*r), num(2*r), paint)
	case triangle:
		fmt.Fprintf(b, `<path%s d="M%s %sL%s %sL%s %sZ"%s/>`, cls,
			num(x), num(y-r*1.2), num(x+r*1.1), num(y+r*0.8), num(x-r*1.1), num(y+r*0.8), paint)
	case diamond:
		fmt.Fprintf(b, `<path%s d="M%s %sL%s %sL%s %sL%s %sZ"%s/>`, cls,
			num(x), num(y-r*1.3), num(x+r*1.3), num(y), num(x), num(y+r*1.3), num(x-r*1.3), num(y), paint)
	default:
		fmt.Fprintf(b, `<circle%s cx="%s" cy="%s" r="%s"%s/>`, cls, num(x), num(y), num(r), paint)
	}
}

// halo outlines text drawn over data in white so it stays legible.
const halo = ` stroke="#ffffff" stroke-width="3" stroke-linejoin="round" paint-order="stroke"`

// noData writes a centred "no data" note over an empty plot.
func (f *frame) noData(b *strings.Builder) {
	fmt.Fprintf(b, `<text x="%s" y="%s" text-anchor="middle" fill="#888" font-size="14">no data</text>`+"\n",
		num((f.left+f.right)/2), num((f.top+f.bottom)/2))
}

// dataRange returns the min and max of the finite values of vs.
func dataRange(vs []float64) (lo, hi float64, ok bool) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, v := range vs {
		if finite(v) {
			lo, hi, ok = math.Min(lo, v), math.Max(hi, v), true
		}
	}
	return lo, hi, ok
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
				xs, ys, hasData = append(xs, p.x), append(ys, p.y), true
			}
		}
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

// render writes the chart as an <svg> element at (x, y).
func (c *lineChart) render(b *strings.Builder, x, y float64, standalone bool) {
	xa, ya, hasData := c.axes()
	f := newFrame(xa, ya, c.legend)
	f.open(b, c.id, c.title, x, y, standalone)

	// Bands first, so grid and lines draw over them.
	for _, bd := range c.bands {
		x0, x1 := math.Max(bd.x0, xa.lo), math.Min(bd.x1, xa.hi)
		if !finite(x0) || !finite(x1) || x1 <= x0 {
			continue
		}
		fmt.Fprintf(b, `<rect class="band" x="%s" y="%s" width="%s" height="%s" fill="#000000" fill-opacity="0.06"/>`+"\n",
			num(f.px(x0)), num(f.top), num(f.px(x1)-f.px(x0)), num(plotHeight))
		fmt.Fprintf(b, `<text x="%s" y="%s" font-size="%s" fill="#777">%s</text>`+"\n",
			num(f.px(x0)+4), num(f.bottom-6), num(smallFont), esc(bd.label))
	}
	f.grid(b, c.xTitle, c.yTitle)
	for _, v := range c.vlines {
		if !finite(v.x) || v.x <= xa.lo || v.x > xa.hi {
			continue
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
	for _, h := range c.hlines {
		if !finite(h.y) {
			continue
		}
		py := f.py(h.y)
		if py < f.top {
			fmt.Fprintf(b, `<text class="bound" x="%s" y="%s" font-size="%s" fill="#c00000" text-anchor="end"%s>%s (above the plot)</text>`+"\n",
				num(f.right-4), num(f.top+11), num(smallFont), halo, esc(h.label))
			continue
		}
		fmt.Fprintf(b, `<line class="bound" x1="%s" y1="%s" x2="%s" y2="%s" stroke="#c00000" stroke-width="1.2" stroke-dasharray="8 4"/>`+"\n",
			num(f.left), num(py), num(f.right), num(py))
		fmt.Fprintf(b, `<text x="%s" y="%s" font-size="%s" fill="#c00000" text-anchor="end"%s>%s</text>`+"\n",
			num(f.right-4), num(py-4), num(smallFont), halo, esc(h.label))
	}
	for _, s := range c.series {
		writeSeries(b, f, s)
	}
	if !hasData {
		f.noData(b)
	}
	f.legend(b, c.legend)
	b.WriteString("</svg>\n")
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

// axes computes the axes of a scatter plot: both start at 0 (throughput and
// staleness are non-negative) and cover the error bars.
func (c *scatterChart) axes() (axis, axis, bool) {
	xs, ys := []float64{0}, []float64{0}
	hasData := false
	for _, p := range c.points {
		if !finite(p.x) || !finite(p.y) {
			continue
		}
		hasData = true
		xs = append(xs, p.x, p.x+errOrZero(p.xErr), p.x-errOrZero(p.xErr))
		ys = append(ys, p.y, p.y+errOrZero(p.yErr), p.y-errOrZero(p.yErr))
	}
	for _, v := range c.bounds {
		xs = append(xs, v.x)
	}
	xlo, xhi, _ := dataRange(xs)
	ylo, yhi, _ := dataRange(ys)
	// Leave headroom so a point at the maximum is not on the frame.
	return niceAxis(xlo, xhi*1.05, 8), niceAxis(ylo, yhi*1.05, 6), hasData
}

func errOrZero(e float64) float64 {
	if !finite(e) || e < 0 {
		return 0
	}
	return e
}

func (c *scatterChart) height() float64 {
	x, y, _ := c.axes()
	return newFrame(x, y, c.legend).h
}

// render writes the scatter plot as an <svg> element at (x, y). Labels go to
// the right of their point (left near the right edge) and are nudged down
// when they would overlap an earlier label.
func (c *scatterChart) render(b *strings.Builder, x, y float64, standalone bool) {
	xa, ya, hasData := c.axes()
	f := newFrame(xa, ya, c.legend)
	f.open(b, c.id, c.title, x, y, standalone)
	f.grid(b, c.xTitle, c.yTitle)
	for i, v := range c.bounds {
		if !finite(v.x) || v.x < xa.lo || v.x > xa.hi {
			continue
		}
		px := f.px(v.x)
		fmt.Fprintf(b, `<line class="bound" x1="%s" y1="%s" x2="%s" y2="%s" stroke="#c00000" stroke-width="1.2" stroke-dasharray="8 4"/>`+"\n",
			num(px), num(f.top), num(px), num(f.bottom))
		fmt.Fprintf(b, `<text x="%s" y="%s" font-size="%s" fill="#c00000"%s>%s</text>`+"\n",
			num(px+4), num(f.top+11+float64(i)*12), num(smallFont), halo, esc(v.label))
	}
	type box struct{ x0, y0, x1, y1 float64 }
	var placed []box
	overlaps := func(n box) bool {
		for _, o := range placed {
			if n.x0 < o.x1 && o.x0 < n.x1 && n.y0 < o.y1 && o.y0 < n.y1 {
				return true
			}
		}
		return false
	}
	for _, p := range c.points {
		px, py, ok := f.project(point{p.x, p.y})
		if !ok {
			continue
		}
		b.WriteString(`<g class="point">`)
		fmt.Fprintf(b, "<title>%s</title>", esc(p.tip))
		if e := errOrZero(p.yErr); e > 0 {
			fmt.Fprintf(b, `<path d="M%s %sV%sM%s %sH%sM%s %sH%s" stroke="%s" stroke-width="1.2" fill="none"/>`,
				num(px), num(f.py(p.y-e)), num(f.py(p.y+e)),
				num(px-4), num(f.py(p.y-e)), num(px+4), num(px-4), num(f.py(p.y+e)), num(px+4), esc(p.color))
		}
		if e := errOrZero(p.xErr); e > 0 {
			fmt.Fprintf(b, `<path d="M%s %sH%sM%s %sV%sM%s %sV%s" stroke="%s" stroke-width="1.2" fill="none"/>`,
				num(f.px(p.x-e)), num(py), num(f.px(p.x+e)),
				num(f.px(p.x-e)), num(py-4), num(py+4), num(f.px(p.x+e)), num(py-4), num(py+4), esc(p.color))
		}
		writeMarker(b, p.shape, px, py, 6, p.color, "")
		w := textWidth(p.label, fontSize)
		lx, anchor := px+10, "start"
		if lx+w > f.right {
			lx, anchor = px-10, "end"
		}
		bx := box{lx, py - 8, lx + w, py + 5}
		if anchor == "end" {
			bx.x0, bx.x1 = lx-w, lx
		}
		for i := 0; i < 6 && overlaps(bx); i++ {
			bx.y0, bx.y1 = bx.y0+14, bx.y1+14
		}
		placed = append(placed, bx)
		fmt.Fprintf(b, `<text x="%s" y="%s" text-anchor="%s" fill="#222"%s>%s</text>`, num(lx), num(bx.y1-1), anchor, halo, esc(p.label))
		b.WriteString("</g>\n")
	}
	if !hasData {
		f.noData(b)
	}
	f.legend(b, c.legend)
	b.WriteString("</svg>\n")
}

// renderSVG renders charts stacked vertically as one standalone SVG document.
// A single chart is written as is; several are nested in an outer <svg>.
func renderSVG(charts []chart) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	if len(charts) == 1 {
		charts[0].render(&b, 0, 0, true)
		return b.String()
	}
	total := 0.0
	for _, c := range charts {
		total += c.height()
	}
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%s" height="%s" viewBox="0 0 %s %s">`+"\n",
		num(chartWidth), num(total), num(chartWidth), num(total))
	y := 0.0
	for _, c := range charts {
		c.render(&b, 0, y, false)
		y += c.height()
	}
	b.WriteString("</svg>\n")
	return b.String()
}
