// Package chart draws the report's plots as SVG: line charts (optionally
// stacked areas, with error bars), scatter plots of labelled points, grouped
// bar charts and the small claim strips, each with "nice" axis ticks, grid
// lines, axis titles and a legend. It knows nothing about bench results:
// package report turns results into charts.
//
// A chart is a value ([Line], [Scatter], [Bars]) filled in by the caller and
// drawn on demand: [HTML] returns it as an inline <svg> element for an
// html/template page, [WriteSVG] writes one or more, stacked, as a standalone
// SVG file. [ClaimStrip.HTML] draws a claim strip for a table cell.
//
// Whatever the data, the output is well-formed XML: every number written goes
// through one formatter that keeps NaN and ±Inf out (non-finite values are
// dropped before they are projected, and break a line rather than being
// drawn), and every string (titles, labels, tooltips, colours, classes) is
// escaped for XML text and attributes, with the characters XML cannot carry
// replaced. That is why [HTML] may return [template.HTML]: the markup is the
// package's own and nothing in it comes from the data unescaped.
//
// Usage, in a page:
//
//	plot := &chart.Line{ID: "read_tput", Title: "Read throughput", XTitle: "time (s)", YTitle: "ops/s",
//		Series: []chart.Series{{Class: "s-main", Tip: "primary", Color: "#e15759", Width: 2,
//			Points: []chart.Point{{X: 10, Y: 950}, {X: 20, Y: 1010}}}},
//		Legend: []chart.LegendItem{{Label: "primary", Color: "#e15759", Shape: chart.NoMarker}},
//	}
//	page := template.Must(template.New("page").Parse(`<h2>{{.Title}}</h2>{{.Plot}}`))
//	err := page.Execute(w, struct {
//		Title string
//		Plot  template.HTML
//	}{"Reads", chart.HTML(plot)})
//
// and as a file:
//
//	err := chart.WriteSVG(f, plot)
package chart
