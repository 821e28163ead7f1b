package chart

import (
	"fmt"
	"strings"
)

// ScatterPoint is one labelled point of a scatter plot, with optional error
// bars (0 for none) and marker radius in pixels (0 for the default).
type ScatterPoint struct {
	X, Y       float64
	XErr, YErr float64
	Label, Tip string
	Color      string
	Shape      Shape
	Radius     float64
}

// defaultRadius is a scatter marker's radius unless the point sets one.
const defaultRadius = 6.0

// Scatter is a scatter plot of labelled points; both axes start at 0.
type Scatter struct {
	ID             string // the data-plot attribute
	Title          string
	XTitle, YTitle string
	Points         []ScatterPoint
	Legend         []LegendItem
	// Bounds are labelled red dashed vertical lines (staleness bounds).
	Bounds []VLine
	// Empty replaces "no data" on a plot without points (e.g. why there
	// are none).
	Empty string
}

// axes computes the axes of a scatter plot: both start at 0 (throughput and
// staleness are non-negative) and cover the error bars.
func (c *Scatter) axes() (axis, axis, bool) {
	xs, ys := []float64{0}, []float64{0}
	hasData := false
	for _, p := range c.Points {
		if !finite(p.X) || !finite(p.Y) {
			continue
		}
		hasData = true
		xs = append(xs, p.X, p.X+errOrZero(p.XErr), p.X-errOrZero(p.XErr))
		ys = append(ys, p.Y, p.Y+errOrZero(p.YErr), p.Y-errOrZero(p.YErr))
	}
	for _, v := range c.Bounds {
		xs = append(xs, v.X)
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

func (c *Scatter) height() float64 {
	x, y, _ := c.axes()
	return newFrame(x, y, c.Legend).h
}

// render writes the scatter plot as an <svg> element at (x, y): grid,
// bounds, then the points with their labels.
func (c *Scatter) render(b *strings.Builder, x, y float64, standalone bool) {
	xa, ya, hasData := c.axes()
	f := newFrame(xa, ya, c.Legend)
	f.emptyNote = c.Empty
	f.open(b, c.ID, c.Title, x, y, standalone)
	f.grid(b, c.XTitle, c.YTitle)
	for i, v := range c.Bounds {
		writeVBound(b, f, v, i)
	}
	var labels labelPlacer
	for _, p := range c.Points {
		writePoint(b, f, p, &labels)
	}
	f.close(b, hasData, c.Legend)
}

// writeVBound draws the i-th bound as a red dashed vertical line; its label
// sits at the top, one line below the previous bound's.
func writeVBound(b *strings.Builder, f *frame, v VLine, i int) {
	if !finite(v.X) || v.X < f.xa.lo || v.X > f.xa.hi {
		return
	}
	px := f.px(v.X)
	fmt.Fprintf(b, `<line class="bound" x1="%s" y1="%s" x2="%s" y2="%s" stroke="#c00000" stroke-width="1.2" stroke-dasharray="8 4"/>`+"\n",
		num(px), num(f.top), num(px), num(f.bottom))
	fmt.Fprintf(b, `<text x="%s" y="%s" font-size="%s" fill="#c00000"%s>%s</text>`+"\n",
		num(px+4), num(f.top+11+float64(i)*12), num(smallFont), halo, esc(v.Label))
}

// writePoint draws p as a group: tooltip, error bars, marker and label. The
// label goes to the right of the point (left near the right edge) and is
// nudged down when it would overlap an earlier label.
func writePoint(b *strings.Builder, f *frame, p ScatterPoint, labels *labelPlacer) {
	px, py, ok := f.project(Point{p.X, p.Y})
	if !ok {
		return
	}
	b.WriteString(`<g class="point">`)
	fmt.Fprintf(b, "<title>%s</title>", esc(p.Tip))
	writeErrorBars(b, f, p, px, py)
	r := p.Radius
	if r <= 0 {
		r = defaultRadius
	}
	writeMarker(b, p.Shape, px, py, r, p.Color, "")
	w := textWidth(p.Label, fontSize)
	lx, anchor := px+r+4, "start"
	if lx+w > f.right {
		lx, anchor = px-r-4, "end"
	}
	bx := labelBox{lx, py - 8, lx + w, py + 5}
	if anchor == "end" {
		bx.x0, bx.x1 = lx-w, lx
	}
	bx = labels.place(bx)
	fmt.Fprintf(b, `<text x="%s" y="%s" text-anchor="%s" fill="#222"%s>%s</text>`, num(lx), num(bx.y1-1), anchor, halo, esc(p.Label))
	b.WriteString("</g>\n")
}

// writeErrorBars draws p's ±YErr and ±XErr bars, with caps, around its
// projection (px, py); a zero or invalid error draws nothing.
func writeErrorBars(b *strings.Builder, f *frame, p ScatterPoint, px, py float64) {
	if e := errOrZero(p.YErr); e > 0 {
		fmt.Fprintf(b, `<path d="M%s %sV%sM%s %sH%sM%s %sH%s" stroke="%s" stroke-width="1.2" fill="none"/>`,
			num(px), num(f.py(p.Y-e)), num(f.py(p.Y+e)),
			num(px-4), num(f.py(p.Y-e)), num(px+4), num(px-4), num(f.py(p.Y+e)), num(px+4), esc(p.Color))
	}
	if e := errOrZero(p.XErr); e > 0 {
		fmt.Fprintf(b, `<path d="M%s %sH%sM%s %sV%sM%s %sV%s" stroke="%s" stroke-width="1.2" fill="none"/>`,
			num(f.px(p.X-e)), num(py), num(f.px(p.X+e)),
			num(f.px(p.X-e)), num(py-4), num(py+4), num(f.px(p.X+e)), num(py-4), num(py+4), esc(p.Color))
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
