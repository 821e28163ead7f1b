package chart

import (
	"fmt"
	"math"
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

// frame is the geometry shared by the chart kinds: the plotting area in
// pixels and the axes mapping data to it.
type frame struct {
	h                        float64
	left, top, right, bottom float64
	xa, ya                   axis
	legendPos                []Point
	// emptyNote replaces "no data" on a chart without data.
	emptyNote string
}

// newFrame lays out a chart: title, then the legend rows, then the plot, with
// a left margin wide enough for the y tick labels.
func newFrame(x, y axis, legend []LegendItem) *frame {
	f := &frame{xa: x, ya: y}
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
	return f.left + (v-f.xa.lo)/(f.xa.hi-f.xa.lo)*(f.right-f.left)
}

func (f *frame) py(v float64) float64 {
	return f.bottom - (v-f.ya.lo)/(f.ya.hi-f.ya.lo)*(f.bottom-f.top)
}

// project maps a data point to pixels; ok is false when it cannot be drawn.
func (f *frame) project(p Point) (float64, float64, bool) {
	if !finite(p.X) || !finite(p.Y) {
		return 0, 0, false
	}
	x, y := f.px(p.X), f.py(p.Y)
	return x, y, finite(x) && finite(y)
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
	for _, t := range f.ya.ticks {
		y := f.py(t)
		fmt.Fprintf(b, `<line x1="%s" y1="%s" x2="%s" y2="%s"/>`+"\n", num(f.left), num(y), num(f.right), num(y))
	}
	for _, t := range f.xa.ticks {
		x := f.px(t)
		fmt.Fprintf(b, `<line x1="%s" y1="%s" x2="%s" y2="%s"/>`+"\n", num(x), num(f.top), num(x), num(f.bottom))
	}
	b.WriteString("</g>\n")
	fmt.Fprintf(b, `<g class="ticks" font-size="%s" fill="#444">`+"\n", num(tickFontSize))
	for _, t := range f.ya.ticks {
		fmt.Fprintf(b, `<text x="%s" y="%s" text-anchor="end">%s</text>`+"\n", num(f.left-6), num(f.py(t)+4), esc(f.ya.label(t)))
	}
	for _, t := range f.xa.ticks {
		fmt.Fprintf(b, `<text x="%s" y="%s" text-anchor="middle">%s</text>`+"\n", num(f.px(t)), num(f.bottom+16), esc(f.xa.label(t)))
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

// close ends the <svg> element open started: the "no data" note when there
// is no data, then the legend over everything.
func (f *frame) close(b *strings.Builder, hasData bool, legend []LegendItem) {
	if !hasData {
		f.noData(b)
	}
	f.legend(b, legend)
	b.WriteString("</svg>\n")
}

// noData writes a centred "no data" note (or emptyNote) over an empty plot.
func (f *frame) noData(b *strings.Builder) {
	note := "no data"
	if f.emptyNote != "" {
		note = f.emptyNote
	}
	fmt.Fprintf(b, `<text x="%s" y="%s" text-anchor="middle" fill="#888" font-size="14">%s</text>`+"\n",
		num((f.left+f.right)/2), num((f.top+f.bottom)/2), esc(note))
}
