package chart

import (
	"fmt"
	"math"
	"strings"
)

// Stacked areas: a series with a base is drawn as the band between its
// base and its points, filled in its colour (Stack builds the bands).

// Stack stacks the values of several series, given per series and
// per x: each band's base is the top of the band below it (the first
// starts at 0). Where every series lacks a value the stack has a gap (NaN);
// where only some do, they count as 0.
func Stack(values [][]float64) (tops, bases [][]float64) {
	if len(values) == 0 {
		return nil, nil
	}
	n := len(values[0])
	tops, bases = make([][]float64, len(values)), make([][]float64, len(values))
	for i := range values {
		tops[i], bases[i] = make([]float64, n), make([]float64, n)
	}
	for k := range n {
		gap := true
		for i := range values {
			gap = gap && !finite(values[i][k])
		}
		sum := 0.0
		for i := range values {
			v := values[i][k]
			if !finite(v) {
				v = 0
			}
			bases[i][k], tops[i][k] = sum, sum+v
			if gap {
				bases[i][k], tops[i][k] = math.NaN(), math.NaN()
			}
			sum += v
		}
	}
	return tops, bases
}

// writeArea draws series s as the band between s.Base and its points: a
// filled <path> per run of points that can be drawn (a gap splits it), with
// a thin white outline between neighbouring bands. A run of a single point
// is drawn as a short vertical bar.
func writeArea(b *strings.Builder, f *frame, s Series) {
	var top, bottom []Point
	flush := func() {
		writeAreaRun(b, s, top, bottom)
		top, bottom = top[:0], bottom[:0]
	}
	for k, p := range s.Points {
		x, yt, ok1 := f.project(p)
		_, yb, ok2 := f.project(Point{p.X, s.Base[k]})
		if !ok1 || !ok2 {
			flush()
			continue
		}
		top, bottom = append(top, Point{x, yt}), append(bottom, Point{x, yb})
	}
	flush()
}

// writeAreaRun draws one run of a band from its top and bottom edges, in
// pixels.
func writeAreaRun(b *strings.Builder, s Series, top, bottom []Point) {
	switch len(top) {
	case 0:
		return
	case 1:
		fmt.Fprintf(b, `<line class="%s" x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="8"><title>%s</title></line>`+"\n",
			esc(s.Class), num(top[0].X), num(top[0].Y), num(bottom[0].X), num(bottom[0].Y), esc(s.Color), esc(s.Tip))
		return
	}
	var d strings.Builder
	for i, p := range top {
		cmd := "L"
		if i == 0 {
			cmd = "M"
		}
		d.WriteString(cmd + num(p.X) + " " + num(p.Y))
	}
	for i := len(bottom) - 1; i >= 0; i-- {
		d.WriteString("L" + num(bottom[i].X) + " " + num(bottom[i].Y))
	}
	fmt.Fprintf(b, `<path class="%s" d="%sZ" fill="%s" fill-opacity="0.85" stroke="#ffffff" stroke-width="0.8" stroke-linejoin="round"><title>%s</title></path>`+"\n",
		esc(s.Class), d.String(), esc(s.Color), esc(s.Tip))
}
