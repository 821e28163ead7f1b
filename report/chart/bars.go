package chart

import (
	"fmt"
	"math"
	"strings"
)

// Bars is a grouped bar chart: categories along the x axis, one bar per
// series in each, with optional error bars, as the consistency thesis draws its
// figures 4.3-4.23 (a (w, rc) pair per category, here a bar per read target). A
// value that is absent (a skipped cell) leaves a gap labelled with the series'
// note, so an empty slot is never mistaken for zero, and a measured zero is a
// sliver on the axis.
type Bars struct {
	ID, Title      string // ID: the data-plot attribute
	XTitle, YTitle string
	// Groups are the categories; a label may hold a "\n" for two lines.
	Groups []string
	Series []BarSeries
	// YInclude are values the y axis must cover (0, or 100 for a share).
	YInclude []float64
}

// BarSeries is one bar per category in one colour.
type BarSeries struct {
	Name, Color string
	Values      []Bar // one per group
}

// Bar is one bar: its height and the spread it stands for.
type Bar struct {
	V      float64
	Lo, Hi float64 // error bar, drawn when Lo < Hi
	OK     bool    // false: no bar (absent)
	Absent string  // the gap's label when !OK ("n/a")
	Tip    string
}

// bar layout: the share of a category's width the bars take, and the
// two-line category labels below the plot.
const (
	barFill     = 0.8
	barLabelRow = 13.0
)

func (c *Bars) legend() []LegendItem {
	items := make([]LegendItem, len(c.Series))
	for i, s := range c.Series {
		items[i] = LegendItem{Label: s.Name, Color: s.Color, Shape: Square}
	}
	return items
}

// yAxis covers zero, the included values, the bars and their error bars,
// with headroom above the tallest.
func (c *Bars) yAxis() (axis, bool) {
	ys := append([]float64{0}, c.YInclude...)
	has := false
	for _, s := range c.Series {
		for _, v := range s.Values {
			if !v.OK || !finite(v.V) {
				continue
			}
			has = true
			ys = append(ys, v.V)
			if finite(v.Lo) && finite(v.Hi) {
				ys = append(ys, v.Lo, v.Hi)
			}
		}
	}
	lo, hi, _ := dataRange(ys)
	a := niceAxis(lo, hi, 6)
	if _, incHi, ok := dataRange(c.YInclude); has && (!ok || hi > incHi) && hi >= a.hi-0.005*(a.hi-a.lo) {
		a = niceAxis(a.lo, a.hi+a.step/2, 6)
	}
	return a, has
}

// layout is the chart's frame: an x axis of one unit per category without
// ticks (the categories are labelled by render), and room for two-line
// labels.
func (c *Bars) layout() (*frame, bool) {
	ya, has := c.yAxis()
	xa := axis{lo: 0, hi: math.Max(1, float64(len(c.Groups))), step: 1}
	f := newFrame(xa, ya, c.legend())
	f.h += barLabelRow
	return f, has
}

func (c *Bars) height() float64 {
	f, _ := c.layout()
	return f.h
}

// render writes the chart: grid, bars, error bars, gap labels, category
// labels, the x title below them, and the legend.
func (c *Bars) render(b *strings.Builder, x, y float64, standalone bool) {
	f, has := c.layout()
	f.open(b, c.ID, c.Title, x, y, standalone)
	f.grid(b, "", c.YTitle)
	n := len(c.Series)
	slot := (f.right - f.left) / math.Max(1, float64(len(c.Groups)))
	barW := slot * barFill / math.Max(1, float64(n))
	base := f.py(math.Max(f.ya.lo, 0))
	for gi := range c.Groups {
		x0 := f.left + float64(gi)*slot + slot*(1-barFill)/2
		for si, s := range c.Series {
			if gi >= len(s.Values) {
				continue
			}
			v := s.Values[gi]
			bx := x0 + float64(si)*barW
			if !v.OK || !finite(v.V) {
				if v.Absent != "" {
					fmt.Fprintf(b, `<text class="absent" x="%s" y="%s" text-anchor="middle" font-size="%s" fill="#999">%s</text>`+"\n",
						num(bx+barW/2), num(base-4), num(smallFont), esc(v.Absent))
				}
				continue
			}
			top := f.py(v.V)
			h := math.Max(base-top, 0)
			if v.V > 0 {
				h = math.Max(h, 1) // a small positive value stays visible
			}
			fmt.Fprintf(b, `<rect class="bar" x="%s" y="%s" width="%s" height="%s" fill="%s"><title>%s</title></rect>`+"\n",
				num(bx+0.5), num(base-h), num(math.Max(barW-1, 1)), num(h), esc(s.Color), esc(v.Tip))
			if h == 0 {
				// A measured zero: a sliver on the axis, so it reads as
				// zero rather than as a gap.
				fmt.Fprintf(b, `<rect class="zero" x="%s" y="%s" width="%s" height="2" fill="%s"/>`+"\n",
					num(bx+0.5), num(base-2), num(math.Max(barW-1, 1)), esc(s.Color))
			}
			if finite(v.Lo) && finite(v.Hi) && v.Hi > v.Lo {
				cx, lo, hi := bx+barW/2, f.py(v.Lo), f.py(v.Hi)
				cw := math.Min(4, barW/3)
				fmt.Fprintf(b, `<path class="errbar" d="M%s %sV%sM%s %sH%sM%s %sH%s" fill="none" stroke="#333" stroke-width="1"/>`+"\n",
					num(cx), num(lo), num(hi), num(cx-cw), num(lo), num(cx+cw), num(cx-cw), num(hi), num(cx+cw))
			}
		}
	}
	fmt.Fprintf(b, `<g class="categories" font-size="%s" fill="#444" text-anchor="middle">`+"\n", num(tickFontSize))
	for gi, g := range c.Groups {
		cx := f.left + (float64(gi)+0.5)*slot
		for li, line := range strings.Split(g, "\n") {
			fmt.Fprintf(b, `<text x="%s" y="%s">%s</text>`+"\n", num(cx), num(f.bottom+15+float64(li)*barLabelRow), esc(line))
		}
	}
	b.WriteString("</g>\n")
	fmt.Fprintf(b, `<text x="%s" y="%s" text-anchor="middle" fill="#333">%s</text>`+"\n",
		num((f.left+f.right)/2), num(f.bottom+36+barLabelRow), esc(c.XTitle))
	f.close(b, has, c.legend())
}
