package chart

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/decongestant/decongestant/internal/svgtest"
)

var (
	barRE    = regexp.MustCompile(`<rect class="bar" x="([^"]+)" y="([^"]+)" width="([^"]+)" height="([^"]+)" fill="([^"]+)"><title>([^<]*)</title>`)
	errbarRE = regexp.MustCompile(`<path class="errbar" d="M([^ ]+) ([^V]+)V([^M]+)M`)
)

type drawnBar struct {
	x, y, w, h float64
	fill, tip  string
}

func drawnBars(t *testing.T, svg string) []drawnBar {
	t.Helper()
	var out []drawnBar
	for _, m := range barRE.FindAllStringSubmatch(svg, -1) {
		var f [4]float64
		for i := range f {
			v, err := strconv.ParseFloat(m[i+1], 64)
			if err != nil {
				t.Fatalf("bar attribute %q: %v", m[i+1], err)
			}
			f[i] = v
		}
		out = append(out, drawnBar{f[0], f[1], f[2], f[3], m[5], m[6]})
	}
	return out
}

// TestBarChart: a bar per present value, in its series' colour and its
// group's slot, heights in proportion to the values from a shared base,
// error bars spanning the spread, and absent values labelled, not drawn.
func TestBarChart(t *testing.T) {
	c := &Bars{ID: "bars", Title: "Read latency", XTitle: "(w, rc)", YTitle: "ms",
		Groups: []string{"w:1\nrc:local", "w:1\nrc:linearizable", "w:majority\nrc:local"},
		Series: []BarSeries{
			{Name: "primary", Color: "#e15759", Values: []Bar{
				{V: 2, Lo: 1, Hi: 3, OK: true, Tip: "p1"}, {V: 8, Lo: 8, Hi: 8, OK: true, Tip: "p2"}, {V: 4, Lo: 3, Hi: 6, OK: true, Tip: "p3"}}},
			{Name: "secondary", Color: "#59a14f", Values: []Bar{
				{V: 1, Lo: 0.5, Hi: 1.5, OK: true, Tip: "s1"}, {Absent: "n/a"}, {V: 0, OK: true, Tip: "s3"}}},
		}}
	var b strings.Builder
	c.render(&b, 0, 0, true)
	svg := b.String()
	svgtest.Check(t, svg)
	bars := drawnBars(t, svg)
	if len(bars) != 5 {
		t.Fatalf("%d bars, want 5 (one absent):\n%s", len(bars), svg)
	}
	byTip := map[string]drawnBar{}
	for _, br := range bars {
		byTip[br.tip] = br
	}
	p1, p2, p3, s1, s3 := byTip["p1"], byTip["p2"], byTip["p3"], byTip["s1"], byTip["s3"]
	if p1.fill != "#e15759" || s1.fill != "#59a14f" {
		t.Errorf("colours %s %s", p1.fill, s1.fill)
	}
	// Same base; heights in proportion (8 is 4 x 2); zero stays flat.
	base := p1.y + p1.h
	for _, br := range []drawnBar{p2, p3, s1, s3} {
		if math.Abs(br.y+br.h-base) > 0.15 {
			t.Errorf("bar %s ends at %v, base %v", br.tip, br.y+br.h, base)
		}
	}
	if r := p2.h / p1.h; math.Abs(r-4) > 0.1 {
		t.Errorf("heights %v and %v: ratio %v, want 4", p2.h, p1.h, r)
	}
	if s3.h != 0 || strings.Count(svg, `<rect class="zero"`) != 1 {
		t.Errorf("a zero value drawn %v high, with %d zero slivers", s3.h, strings.Count(svg, `<rect class="zero"`))
	}
	// Series side by side within a group, groups left to right.
	if !(p1.x < s1.x && s1.x < p2.x && p2.x < p3.x && p3.x < s3.x) {
		t.Errorf("bar order: p1 %v s1 %v p2 %v p3 %v s3 %v", p1.x, s1.x, p2.x, p3.x, s3.x)
	}
	// Error bars only where lo < Hi: p1, p3, s1; p1's spans 1..3 around 2.
	ebs := errbarRE.FindAllStringSubmatch(svg, -1)
	if len(ebs) != 3 {
		t.Fatalf("%d error bars, want 3", len(ebs))
	}
	lo, _ := strconv.ParseFloat(ebs[0][2], 64)
	hi, _ := strconv.ParseFloat(ebs[0][3], 64)
	if unit := p1.h / 2; math.Abs((lo-hi)-2*unit) > 0.2 || math.Abs(lo-(base-unit)) > 0.2 {
		t.Errorf("p1's error bar %v..%v, want %v..%v", lo, hi, base-unit, base-3*unit)
	}
	for _, want := range []string{">n/a</text>", ">w:majority</text>", ">rc:linearizable</text>", ">(w, rc)</text>", ">secondary</text>"} {
		if !strings.Contains(svg, want) {
			t.Errorf("chart lacks %s", want)
		}
	}
	if c.height() <= plotHeight {
		t.Errorf("height %v", c.height())
	}
}

// TestBarChartAxis: the y axis covers the bars and their error bars, and
// a chart without a present value says so.
func TestBarChartAxis(t *testing.T) {
	c := &Bars{Groups: []string{"a"}, Series: []BarSeries{{Name: "x", Color: "#000", Values: []Bar{{V: 10, Lo: 5, Hi: 47, OK: true}}}}}
	ya, has := c.yAxis()
	if !has || ya.lo != 0 || ya.hi < 47 {
		t.Errorf("axis %v..%v (data %v)", ya.lo, ya.hi, has)
	}
	empty := &Bars{Groups: []string{"a", "b"}, Series: []BarSeries{{Name: "x", Values: []Bar{{Absent: "n/a"}, {}}}}}
	var b strings.Builder
	empty.render(&b, 0, 0, true)
	svgtest.Check(t, b.String())
	if !strings.Contains(b.String(), ">no data</text>") || strings.Contains(b.String(), `class="bar"`) {
		t.Errorf("empty chart:\n%s", b.String())
	}
}
