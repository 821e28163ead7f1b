package report

// A small SVG chart renderer: line charts and scatter plots with "nice" axis
// ticks, grid lines, axis titles and a legend. It knows nothing about bench
// results; plots.go turns results into charts.
//
// Every number written into the SVG goes through num, and every string through
// esc, so the output is valid XML whatever the data: non-finite values are
// dropped before projection, and strings are escaped.
//
// This file holds what the chart kinds share (points, styles, reference lines,
// the chart interface) and stacks charts into one SVG document; axis.go picks
// the ticks, frame.go lays out and draws the plot area, legend.go the legend,
// svg.go the SVG primitives, linechart.go and scatter.go the two chart kinds.

import (
	"fmt"
	"strings"
)

// point is a data point, in data units.
type point struct{ x, y float64 }

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
