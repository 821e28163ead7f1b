package report

import (
	"fmt"
	"strings"
)

// legendItem is one entry of a legend: a line swatch, or a marker when
// shape is not noMarker.
type legendItem struct {
	label string
	color string
	style lineStyle
	shape markerShape
}

// legendSwatch is the width of a legend item's swatch plus its gap.
const legendSwatch = 26.0

// layoutLegend places legend items left to right from x0, wrapping at maxX;
// it returns the position of each item (relative to the first row) and the
// number of rows.
func layoutLegend(items []legendItem, x0, maxX float64) ([]point, int) {
	if len(items) == 0 {
		return nil, 0
	}
	pos := make([]point, len(items))
	x, row := x0, 0
	for i, it := range items {
		w := legendSwatch + textWidth(it.label, fontSize) + 16
		if x+w > maxX && x > x0 {
			x, row = x0, row+1
		}
		pos[i] = point{x, float64(row) * legendRow}
		x += w
	}
	return pos, row + 1
}

// legend writes the legend items at the positions computed by newFrame.
func (f *frame) legend(b *strings.Builder, items []legendItem) {
	if len(items) == 0 {
		return
	}
	b.WriteString(`<g class="legend">` + "\n")
	y0 := titleHeight + 8
	for i, it := range items {
		x, y := f.legendPos[i].x, y0+f.legendPos[i].y
		if it.shape == noMarker {
			fmt.Fprintf(b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="2.5"%s/>`,
				num(x), num(y-4), num(x+20), num(y-4), esc(it.color), dashAttr(it.style))
		} else {
			writeMarker(b, it.shape, x+10, y-4, 4.5, it.color, "")
		}
		fmt.Fprintf(b, `<text x="%s" y="%s" fill="#222">%s</text>`+"\n", num(x+legendSwatch), num(y), esc(it.label))
	}
	b.WriteString("</g>\n")
}
