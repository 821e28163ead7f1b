package chart

import (
	"encoding/xml"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

const fontFamily = "system-ui, -apple-system, 'Segoe UI', Helvetica, Arial, sans-serif"

// finite reports whether v is neither NaN nor infinite.
func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// textWidth estimates the rendered width in pixels of s in a sans-serif font
// of the given size; good enough to lay out legends and margins.
func textWidth(s string, size float64) float64 {
	return float64(utf8.RuneCountInString(s)) * size * 0.6
}

// num formats a pixel coordinate. Callers only pass finite values; the guard
// keeps NaN and Inf out of the SVG regardless.
func num(v float64) string {
	if !finite(v) {
		return "0"
	}
	v = math.Round(v*10) / 10
	if v == 0 {
		v = 0 // no "-0"
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// esc escapes s for XML text and attribute values (and so for HTML),
// replacing characters XML cannot carry.
func esc(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s)) // a strings.Builder never fails
	return b.String()
}

func dashAttr(s Style) string {
	if d := s.dashArray(); d != "" {
		return ` stroke-dasharray="` + d + `"`
	}
	return ""
}

// writeMarker draws a filled marker of the given shape centred on (x, y).
func writeMarker(b *strings.Builder, shape Shape, x, y, r float64, color, class string) {
	cls := ""
	if class != "" {
		cls = ` class="` + esc(class) + `"`
	}
	paint := fmt.Sprintf(` fill="%s" stroke="#ffffff" stroke-width="1"`, esc(color))
	switch shape {
	case Square:
		fmt.Fprintf(b, `<rect%s x="%s" y="%s" width="%s" height="%s"%s/>`, cls, num(x-r), num(y-r), num(2*r), num(2*r), paint)
	case triangle:
		fmt.Fprintf(b, `<path%s d="M%s %sL%s %sL%s %sZ"%s/>`, cls,
			num(x), num(y-r*1.2), num(x+r*1.1), num(y+r*0.8), num(x-r*1.1), num(y+r*0.8), paint)
	case diamond:
		fmt.Fprintf(b, `<path%s d="M%s %sL%s %sL%s %sL%s %sZ"%s/>`, cls,
			num(x), num(y-r*1.3), num(x+r*1.3), num(y), num(x), num(y+r*1.3), num(x-r*1.3), num(y), paint)
	default:
		fmt.Fprintf(b, `<circle%s cx="%s" cy="%s" r="%s"%s/>`, cls, num(x), num(y), num(r), paint)
	}
}

// halo outlines text drawn over data in white so it stays legible.
const halo = ` stroke="#ffffff" stroke-width="3" stroke-linejoin="round" paint-order="stroke"`
