package chart_test

import (
	"bytes"
	"fmt"
	"html/template"
	"log"
	"strings"

	"github.com/decongestant/decongestant/report/chart"
)

// readTput is a line chart of one policy's read throughput over a warm-up
// and three periods.
func readTput() *chart.Line {
	return &chart.Line{
		ID: "read_tput", Title: "Read throughput", XTitle: "time since start (s)", YTitle: "ops/s",
		Series: []chart.Series{{Class: "s-main", Tip: "primary", Color: "#e15759", Width: 2,
			Points: []chart.Point{{X: 10, Y: 950}, {X: 20, Y: 1010}, {X: 30, Y: 990}}}},
		Legend:   []chart.LegendItem{{Label: "primary", Color: "#e15759", Shape: chart.NoMarker}},
		Bands:    []chart.Band{{X0: 0, X1: 10, Label: "warm-up"}},
		XInclude: []float64{0},
		YInclude: []float64{0},
	}
}

// A chart goes into an html/template page as it is: the template escapes
// the page's own text, the chart has escaped its own.
func Example() {
	page := template.Must(template.New("page").Parse("<h2>{{.Title}}</h2>\n{{.Plot}}"))
	var b strings.Builder
	err := page.Execute(&b, struct {
		Title string
		Plot  template.HTML
	}{"Reads & writes", chart.HTML(readTput())})
	if err != nil {
		log.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	fmt.Println(lines[0])
	fmt.Println(lines[1])
	// Output:
	// <h2>Reads &amp; writes</h2>
	// <svg x="0" y="0" width="720" height="296" viewBox="0 0 720 296" class="chart" data-plot="read_tput" role="img" aria-label="Read throughput" font-family="system-ui, -apple-system, &#39;Segoe UI&#39;, Helvetica, Arial, sans-serif" font-size="12">
}

// WriteSVG writes a standalone file; several charts are stacked in one.
func ExampleWriteSVG() {
	var b bytes.Buffer
	if err := chart.WriteSVG(&b, readTput(), readTput()); err != nil {
		log.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	fmt.Println(lines[0])
	fmt.Println(lines[1])
	// Output:
	// <?xml version="1.0" encoding="UTF-8"?>
	// <svg xmlns="http://www.w3.org/2000/svg" width="720" height="592" viewBox="0 0 720 592">
}
