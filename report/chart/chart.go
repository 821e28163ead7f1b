package chart

// This file holds what the chart kinds share (points, styles, reference
// lines, the Chart interface) and puts charts on a page (HTML) or in a file
// (WriteSVG); axis.go picks the ticks, frame.go lays out and draws the plot
// area, legend.go the legend, svg.go the SVG primitives, linechart.go,
// scatter.go and bars.go the chart kinds, strip.go the strip.

import (
	"fmt"
	"html/template"
	"io"
	"strings"
)

// Point is a data point, in data units.
type Point struct{ X, Y float64 }

// Style is how a line is stroked.
type Style int

// The line styles; the zero value is solid.
const (
	Solid Style = iota
	Dashed
	Dotted
)

func (s Style) dashArray() string {
	switch s {
	case Dashed:
		return "7 4"
	case Dotted:
		return "1.5 3"
	}
	return ""
}

// Shape is a marker's shape: it tells inputs apart in a scatter plot, and
// makes a legend item a marker rather than a line.
type Shape int

// The marker shapes; NoMarker (a legend item drawn as a line) is not the
// zero value, so a point is a circle unless told otherwise. NthShape also
// gives a triangle and a diamond.
const (
	NoMarker Shape = iota - 1
	Circle
	Square
	triangle
	diamond
	numShapes = 4
)

// NthShape returns the i-th of the marker shapes (circle, square, triangle,
// diamond), cycling: the marker of the i-th input.
func NthShape(i int) Shape {
	return Shape((i%numShapes + numShapes) % numShapes)
}

// VLine is a labelled dashed vertical line (a phase switch, a bound), HLine a
// horizontal one (a bound), Band a shaded x range (the warm-up).
type (
	VLine struct {
		X     float64
		Label string
	}
	HLine struct {
		Y     float64
		Label string
	}
	Band struct {
		X0, X1 float64
		Label  string
	}
)

// Chart is a chart this package draws: *Line, *Scatter or *Bars.
type Chart interface {
	height() float64
	// render writes the chart as an SVG element at (x, y); standalone
	// adds the namespace needed by an SVG file (harmless inline in HTML).
	render(b *strings.Builder, x, y float64, standalone bool)
}

var (
	_ Chart = (*Line)(nil)
	_ Chart = (*Scatter)(nil)
	_ Chart = (*Bars)(nil)
)

// HTML returns c as an inline <svg> element for an HTML page. The markup is
// the package's own and every string in it is escaped, so it is safe to
// embed as is.
func HTML(c Chart) template.HTML {
	var b strings.Builder
	c.render(&b, 0, 0, false)
	return template.HTML(b.String())
}

// WriteSVG writes charts stacked vertically as one standalone SVG document.
// A single chart is written as is; several are nested in an outer <svg>.
func WriteSVG(w io.Writer, charts ...Chart) error {
	_, err := io.WriteString(w, svgDocument(charts))
	return err
}

func svgDocument(charts []Chart) string {
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
