package report

import (
	"fmt"
	"strings"
)

// scatterPoint is one labelled point of a scatter plot, with optional error
// bars (0 for none) and marker radius in pixels (0 for the default).
type scatterPoint struct {
	x, y       float64
	xErr, yErr float64
	label, tip string
	color      string
	shape      markerShape
	radius     float64
}

// defaultRadius is a scatter marker's radius unless the point sets one.
const defaultRadius = 6.0

// scatterChart is a scatter plot of labelled points.
type scatterChart struct {
	id             string
	title          string
	xTitle, yTitle string
	points         []scatterPoint
	legend         []legendItem
	// bounds are labelled dashed vertical lines (staleness bounds).
	bounds []vline
	// empty replaces "no data" on a plot without points (e.g. why there
	// are none).
	empty string
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

// render writes the scatter plot as an <svg> element at (x, y): grid,
// bounds, then the points with their labels.
func (c *scatterChart) render(b *strings.Builder, x, y float64, standalone bool) {
	xa, ya, hasData := c.axes()
	f := newFrame(xa, ya, c.legend)
	f.emptyNote = c.empty
	f.open(b, c.id, c.title, x, y, standalone)
	f.grid(b, c.xTitle, c.yTitle)
	for i, v := range c.bounds {
		writeVBound(b, f, v, i)
	}
	var labels labelPlacer
	for _, p := range c.points {
		writePoint(b, f, p, &labels)
	}
	f.close(b, hasData, c.legend)
}

// writeVBound draws the i-th bound as a red dashed vertical line; its label
// sits at the top, one line below the previous bound's.
func writeVBound(b *strings.Builder, f *frame, v vline, i int) {
	if !finite(v.x) || v.x < f.x.lo || v.x > f.x.hi {
		return
	}
	px := f.px(v.x)
	fmt.Fprintf(b, `<line class="bound" x1="%s" y1="%s" x2="%s" y2="%s" stroke="#c00000" stroke-width="1.2" stroke-dasharray="8 4"/>`+"\n",
		num(px), num(f.top), num(px), num(f.bottom))
	fmt.Fprintf(b, `<text x="%s" y="%s" font-size="%s" fill="#c00000"%s>%s</text>`+"\n",
		num(px+4), num(f.top+11+float64(i)*12), num(smallFont), halo, esc(v.label))
}

// writePoint draws p as a group: tooltip, error bars, marker and label. The
// label goes to the right of the point (left near the right edge) and is
// nudged down when it would overlap an earlier label.
func writePoint(b *strings.Builder, f *frame, p scatterPoint, labels *labelPlacer) {
	px, py, ok := f.project(point{p.x, p.y})
	if !ok {
		return
	}
	b.WriteString(`<g class="point">`)
	fmt.Fprintf(b, "<title>%s</title>", esc(p.tip))
	writeErrorBars(b, f, p, px, py)
	r := p.radius
	if r <= 0 {
		r = defaultRadius
	}
	writeMarker(b, p.shape, px, py, r, p.color, "")
	w := textWidth(p.label, fontSize)
	lx, anchor := px+r+4, "start"
	if lx+w > f.right {
		lx, anchor = px-r-4, "end"
	}
	bx := labelBox{lx, py - 8, lx + w, py + 5}
	if anchor == "end" {
		bx.x0, bx.x1 = lx-w, lx
	}
	bx = labels.place(bx)
	fmt.Fprintf(b, `<text x="%s" y="%s" text-anchor="%s" fill="#222"%s>%s</text>`, num(lx), num(bx.y1-1), anchor, halo, esc(p.label))
	b.WriteString("</g>\n")
}

// writeErrorBars draws p's ±yErr and ±xErr bars, with caps, around its
// projection (px, py); a zero or invalid error draws nothing.
func writeErrorBars(b *strings.Builder, f *frame, p scatterPoint, px, py float64) {
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
}

// labelBox is the space a point label takes, in pixels.
type labelBox struct{ x0, y0, x1, y1 float64 }

// labelPlacer remembers the labels placed so far in one plot.
type labelPlacer struct{ placed []labelBox }

// place moves n down a line at a time (at most six) while it overlaps an
// earlier label, records where it ends up and returns that.
func (l *labelPlacer) place(n labelBox) labelBox {
	for i := 0; i < 6 && l.overlaps(n); i++ {
		n.y0, n.y1 = n.y0+14, n.y1+14
	}
	l.placed = append(l.placed, n)
	return n
}

func (l *labelPlacer) overlaps(n labelBox) bool {
	for _, o := range l.placed {
		if n.x0 < o.x1 && o.x0 < n.x1 && n.y0 < o.y1 && o.y0 < n.y1 {
			return true
		}
	}
	return false
}
