package chart

import (
	"fmt"
	"strings"
)

// LegendItem is one entry of a legend: a line swatch in Color and Style, or
// a marker when Shape is not NoMarker.
type LegendItem struct {
	Label string
	Color string
	Style Style
	Shape Shape
}

// legendSwatch is the width of a legend item's swatch plus its gap.
const legendSwatch = 26.0

// layoutLegend places legend items left to right from x0, wrapping at maxX;
// it returns the position of each item (relative to the first row) and the
// number of rows.
func layoutLegend(items []LegendItem, x0, maxX float64) ([]Point, int) {
	if len(items) == 0 {
		return nil, 0
	}
	pos := make([]Point, len(items))
	x, row := x0, 0
	for i, it := range items {
		w := legendSwatch + textWidth(it.Label, fontSize) + 16
		if x+w > maxX && x > x0 {
			x, row = x0, row+1
		}
		pos[i] = Point{x, float64(row) * legendRow}
		x += w
	}
	return pos, row + 1
}

// legend writes the legend items at the positions computed by newFrame.
func (f *frame) legend(b *strings.Builder, items []LegendItem) {
	if len(items) == 0 {
		return
	}
	b.WriteString(`<g class="legend">` + "\n")
	y0 := titleHeight + 8
	for i, it := range items {
		x, y := f.legendPos[i].X, y0+f.legendPos[i].Y
		if it.Shape == NoMarker {
			fmt.Fprintf(b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="2.5"%s/>`,
				num(x), num(y-4), num(x+20), num(y-4), esc(it.Color), dashAttr(it.Style))
		} else {
			writeMarker(b, it.Shape, x+10, y-4, 4.5, it.Color, "")
		}
		fmt.Fprintf(b, `<text x="%s" y="%s" fill="#222">%s</text>`+"\n", num(x+legendSwatch), num(y), esc(it.Label))
	}
	b.WriteString("</g>\n")
}
