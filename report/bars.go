package report

import (
	"fmt"
	"math"
	"strings"
)

// barChart is a grouped bar chart: categories along the x axis, one bar per
// series in each, with optional error bars, as the consistency thesis draws its
// figures 4.3-4.23 (a (w, rc) pair per category, here a bar per read target). A
// value that is absent (a skipped cell) leaves a gap labelled with the series'
// note, so an empty slot is never mistaken for zero, and a measured zero is a
// sliver on the axis.
type barChart struct {
	id, title      string
	xTitle, yTitle string
	// groups are the categories; a label may hold a "\n" for two lines.
	groups []string
	series []barSeries
	// yInclude are values the y axis must cover (0, or 100 for a share).
	yInclude []float64
}

// barSeries is one bar per category in one colour.
type barSeries struct {
	name, color string
	values      []barValue // one per group
}

// barValue is one bar: its height and the spread it stands for.
type barValue struct {
	v      float64
	lo, hi float64 // error bar, drawn when lo < hi
	ok     bool    // false: no bar (absent)
	absent string  // the gap's label when !ok ("n/a")
	tip    string
}

var _ chart = (*barChart)(nil)

// bar layout: the share of a category's width the bars take, and the
// two-line category labels below the plot.
const (
	barFill     = 0.8
	barLabelRow = 13.0
)

func (c *barChart) legend() []legendItem {
	items := make([]legendItem, len(c.series))
	for i, s := range c.series {
		items[i] = legendItem{label: s.name, color: s.color, shape: square}
	}
	return items
}

// yAxis covers zero, the included values, the bars and their error bars,
// with headroom above the tallest.
func (c *barChart) yAxis() (axis, bool) {
	ys := append([]float64{0}, c.yInclude...)
	has := false
	for _, s := range c.series {
		for _, v := range s.values {
			if !v.ok || !finite(v.v) {
				continue
			}
			has = true
			ys = append(ys, v.v)
			if finite(v.lo) && finite(v.hi) {
				ys = append(ys, v.lo, v.hi)
			}
		}
	}
	lo, hi, _ := dataRange(ys)
	a := niceAxis(lo, hi, 6)
	if _, incHi, ok := dataRange(c.yInclude); has && (!ok || hi > incHi) && hi >= a.hi-0.005*(a.hi-a.lo) {
		a = niceAxis(a.lo, a.hi+a.step/2, 6)
	}
	return a, has
}

// layout is the chart's frame: an x axis of one unit per category without
// ticks (the categories are labelled by render), and room for two-line
// labels.
func (c *barChart) layout() (*frame, bool) {
	ya, has := c.yAxis()
	xa := axis{lo: 0, hi: math.Max(1, float64(len(c.groups))), step: 1}
	f := newFrame(xa, ya, c.legend())
	f.h += barLabelRow
	return f, has
}

func (c *barChart) height() float64 {
	f, _ := c.layout()
	return f.h
}

// render writes the chart: grid, bars, error bars, gap labels, category
// labels, the x title below them, and the legend.
func (c *barChart) render(b *strings.Builder, x, y float64, standalone bool) {
	f, has := c.layout()
	f.open(b, c.id, c.title, x, y, standalone)
	f.grid(b, "", c.yTitle)
	n := len(c.series)
	slot := (f.right - f.left) / math.Max(1, float64(len(c.groups)))
	barW := slot * barFill / math.Max(1, float64(n))
	base := f.py(math.Max(f.y.lo, 0))
	for gi := range c.groups {
		x0 := f.left + float64(gi)*slot + slot*(1-barFill)/2
		for si, s := range c.series {
			if gi >= len(s.values) {
				continue
			}
			v := s.values[gi]
			bx := x0 + float64(si)*barW
			if !v.ok || !finite(v.v) {
				if v.absent != "" {
					fmt.Fprintf(b, `<text class="absent" x="%s" y="%s" text-anchor="middle" font-size="%s" fill="#999">%s</text>`+"\n",
						num(bx+barW/2), num(base-4), num(smallFont), esc(v.absent))
				}
				continue
			}
			top := f.py(v.v)
			h := math.Max(base-top, 0)
			if v.v > 0 {
				h = math.Max(h, 1) // a small positive value stays visible
			}
			fmt.Fprintf(b, `<rect class="bar" x="%s" y="%s" width="%s" height="%s" fill="%s"><title>%s</title></rect>`+"\n",
				num(bx+0.5), num(base-h), num(math.Max(barW-1, 1)), num(h), esc(s.color), esc(v.tip))
			if h == 0 {
				// A measured zero: a sliver on the axis, so it reads as
				// zero rather than as a gap.
				fmt.Fprintf(b, `<rect class="zero" x="%s" y="%s" width="%s" height="2" fill="%s"/>`+"\n",
					num(bx+0.5), num(base-2), num(math.Max(barW-1, 1)), esc(s.color))
			}
			if finite(v.lo) && finite(v.hi) && v.hi > v.lo {
				cx, lo, hi := bx+barW/2, f.py(v.lo), f.py(v.hi)
				cw := math.Min(4, barW/3)
				fmt.Fprintf(b, `<path class="errbar" d="M%s %sV%sM%s %sH%sM%s %sH%s" fill="none" stroke="#333" stroke-width="1"/>`+"\n",
					num(cx), num(lo), num(hi), num(cx-cw), num(lo), num(cx+cw), num(cx-cw), num(hi), num(cx+cw))
			}
		}
	}
	fmt.Fprintf(b, `<g class="categories" font-size="%s" fill="#444" text-anchor="middle">`+"\n", num(tickFontSize))
	for gi, g := range c.groups {
		cx := f.left + (float64(gi)+0.5)*slot
		for li, line := range strings.Split(g, "\n") {
			fmt.Fprintf(b, `<text x="%s" y="%s">%s</text>`+"\n", num(cx), num(f.bottom+15+float64(li)*barLabelRow), esc(line))
		}
	}
	b.WriteString("</g>\n")
	fmt.Fprintf(b, `<text x="%s" y="%s" text-anchor="middle" fill="#333">%s</text>`+"\n",
		num((f.left+f.right)/2), num(f.bottom+36+barLabelRow), esc(c.xTitle))
	f.close(b, has, c.legend())
}
