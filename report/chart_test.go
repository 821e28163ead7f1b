package report

import (
	"encoding/xml"
	"math"
	"strconv"
	"strings"
	"testing"
)

func TestNiceAxis(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	tests := []struct {
		name           string
		lo, hi         float64
		n              int
		wantLo, wantHi float64
		wantStep       float64
	}{
		{"percent", 0, 100, 6, 0, 100, 20},
		{"unit", 0, 1, 6, 0, 1, 0.2},
		{"time", 0, 60, 8, 0, 60, 10},
		{"throughput", 0, 7910, 6, 0, 8000, 2000},
		{"large", 0, 123456, 6, 0, 150000, 50000},
		{"negative", -3, 7, 6, -4, 8, 2},
		{"swapped", 3, 1, 5, 1, 3, 0.5},
		{"all zero", 0, 0, 6, 0, 1, 0.2},
		{"constant", 5, 5, 6, 4.4, 5.6, 0.2},
		{"float steps", 0.2, 0.6, 3, 0.2, 0.6, 0.2},
		{"NaN", nan, 1, 6, 0, 1, 0.2},
		{"Inf", 0, inf, 6, 0, 1, 0.2},
		{"n below 2", 0, 10, 0, 0, 10, 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := niceAxis(tt.lo, tt.hi, tt.n)
			if !near(a.lo, tt.wantLo) || !near(a.hi, tt.wantHi) || !near(a.step, tt.wantStep) {
				t.Errorf("niceAxis(%v, %v, %d) = %v..%v step %v, want %v..%v step %v",
					tt.lo, tt.hi, tt.n, a.lo, a.hi, a.step, tt.wantLo, tt.wantHi, tt.wantStep)
			}
			checkAxis(t, a)
		})
	}
}

// TestNiceAxisCovers checks the invariants over many ranges: the axis covers
// the range, ticks are finite, increasing, inside the axis, and few.
func TestNiceAxisCovers(t *testing.T) {
	for _, lo := range []float64{-1e6, -7.3, 0, 1e-9, 0.37, 12, 999.9, 1e9} {
		for _, span := range []float64{0, 1e-12, 1e-6, 0.01, 0.7, 3, 42, 1234, 1e7, 1e15} {
			hi := lo + span
			a := niceAxis(lo, hi, 6)
			checkAxis(t, a)
			if tol := a.step * 1e-6; a.lo > lo+tol || a.hi < hi-tol {
				t.Errorf("niceAxis(%v, %v) = %v..%v does not cover the range", lo, hi, a.lo, a.hi)
			}
		}
	}
}

func checkAxis(t *testing.T, a axis) {
	t.Helper()
	if !(a.hi > a.lo) || !finite(a.lo) || !finite(a.hi) || !(a.step > 0) {
		t.Fatalf("bad axis %+v", a)
	}
	if len(a.ticks) < 2 || len(a.ticks) > 20 {
		t.Fatalf("axis %v..%v has %d ticks", a.lo, a.hi, len(a.ticks))
	}
	for i, v := range a.ticks {
		if !finite(v) || v < a.lo-a.step*1e-6 || v > a.hi+a.step*1e-6 {
			t.Errorf("tick %v outside %v..%v", v, a.lo, a.hi)
		}
		if i > 0 && v <= a.ticks[i-1] {
			t.Errorf("ticks not increasing: %v", a.ticks)
		}
	}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

func TestAxisLabel(t *testing.T) {
	tests := []struct {
		lo, hi float64
		v      float64
		want   string
	}{
		{0, 1, 0.4, "0.4"},
		{0, 1, 0.6000000000000001, "0.6"},
		{0, 0.2, 0.15, "0.15"},
		{0, 100, 40, "40"},
		{0, 8000, 6000, "6000"},
		{0, 20000, 12000, "12k"},
		{0, 5e7, 2e7, "20M"},
		{-1, 1, -1e-17, "0.0"},
		{-10, 10, -1e-15, "0"},
		{4.5, 5.5, 5, "5.0"},
	}
	for _, tt := range tests {
		a := niceAxis(tt.lo, tt.hi, 6)
		if got := a.label(tt.v); got != tt.want {
			t.Errorf("axis %v..%v step %v: label(%v) = %q, want %q", a.lo, a.hi, a.step, tt.v, got, tt.want)
		}
	}
	if got := (axis{lo: 10000, hi: 15000, step: 500}).label(12500); got != "12.5k" {
		t.Errorf("label(12500) with step 500 = %q, want 12.5k", got)
	}
}

func TestNum(t *testing.T) {
	for v, want := range map[float64]string{
		math.NaN(): "0", math.Inf(1): "0", math.Inf(-1): "0", -0.04: "0", 12.345: "12.3", 720: "720",
	} {
		if got := num(v); got != want {
			t.Errorf("num(%v) = %q, want %q", v, got, want)
		}
	}
}

// TestChartDegenerate renders charts from awkward data: each must be valid
// XML with finite coordinates.
func TestChartDegenerate(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	line := func(pts ...point) *lineChart {
		return &lineChart{id: "x", title: "t", xTitle: "x (s)", yTitle: "y (ms)",
			series: []series{{class: classMain, color: "#000", width: 2, pts: pts}},
			legend: []legendItem{{label: "p", color: "#000", shape: noMarker}}}
	}
	tests := []struct {
		name     string
		c        chart
		wantDots int // circles drawn for points; -1 to skip the check
		noData   bool
	}{
		{"no series", &lineChart{id: "x", title: "empty"}, 0, true},
		{"no points", line(), 0, true},
		{"single point", line(point{10, 5}), 1, false},
		{"all zero", line(point{0, 0}, point{10, 0}, point{20, 0}), 3, false},
		{"non-finite values", line(point{0, nan}, point{10, 3}, point{20, inf}, point{30, 4}, point{nan, 1}), 2, false},
		{"only non-finite", line(point{nan, nan}, point{inf, 1}), 0, true},
		{"huge", line(point{0, 1e300}, point{1, -1e300}), 2, false},
		{"band vline hline without data", &lineChart{id: "x", bands: []band{{0, 10, "warm-up"}},
			vlines: []vline{{30, "phase"}, {nan, "bad"}}, hlines: []hline{{500, "bound"}, {inf, "bad"}}}, 0, true},
		{"scatter empty", &scatterChart{id: "s"}, -1, true},
		{"scatter zero point", &scatterChart{id: "s", points: []scatterPoint{{label: "a", color: "#000"}}}, -1, false},
		{"scatter non-finite", &scatterChart{id: "s", points: []scatterPoint{
			{x: nan, y: 1, label: "nan"}, {x: 1, y: 2, xErr: inf, yErr: nan, label: "ok"}}}, -1, false},
		{"scatter same labels", &scatterChart{id: "s", points: []scatterPoint{
			{x: 0, y: 100, label: "a"}, {x: 0, y: 100, label: "b"}, {x: 0, y: 100, label: "c"}}}, -1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svg := renderSVG([]chart{tt.c})
			checkSVG(t, svg)
			if got := strings.Contains(svg, ">no data<"); got != tt.noData {
				t.Errorf("no data note = %v, want %v", got, tt.noData)
			}
			if tt.wantDots >= 0 {
				if got := strings.Count(svg, "<circle cx="); got != tt.wantDots {
					t.Errorf("got %d point dots, want %d", got, tt.wantDots)
				}
			}
		})
	}
}

// TestLineChartHeadroom checks that a maximum on a round number gets room
// above it, except when the axis must end there anyway (100 %).
func TestLineChartHeadroom(t *testing.T) {
	tests := []struct {
		name     string
		ys       []float64
		include  []float64
		wantYMax float64
	}{
		{"max on a tick", []float64{10, 50}, []float64{0}, 60},
		{"max below a tick", []float64{10, 7910}, []float64{0}, 8000},
		{"percent at 100", []float64{0, 100}, []float64{0, 100}, 100},
		{"percent above 100", []float64{0, 150}, []float64{0, 100}, 200},
		{"all zero", []float64{0, 0}, []float64{0}, 1},
		{"no data", nil, []float64{0, 100}, 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &lineChart{yInclude: tt.include, series: []series{{}}}
			for i, y := range tt.ys {
				c.series[0].pts = append(c.series[0].pts, point{float64(i), y})
			}
			if _, ya, _ := c.axes(); !near(ya.hi, tt.wantYMax) {
				t.Errorf("y axis %v..%v step %v, want top %v", ya.lo, ya.hi, ya.step, tt.wantYMax)
			}
		})
	}
}

// TestChartEscapes checks that strings from the data cannot inject markup.
func TestChartEscapes(t *testing.T) {
	evil := `<script>alert("x")</script>&` + "\x01"
	c := &lineChart{id: evil, title: evil, xTitle: evil, yTitle: evil,
		series: []series{{class: evil, tip: evil, color: `"red`, width: 1, pts: []point{{0, 1}}}},
		legend: []legendItem{{label: evil, color: "#000", shape: noMarker}},
		vlines: []vline{{1, evil}}, hlines: []hline{{1, evil}}, bands: []band{{0, 1, evil}}}
	s := &scatterChart{id: evil, title: evil, points: []scatterPoint{{x: 1, y: 1, label: evil, tip: evil, color: evil}},
		legend: []legendItem{{label: evil, color: evil, shape: diamond}}}
	for _, ch := range []chart{c, s} {
		svg := renderSVG([]chart{ch})
		checkSVG(t, svg)
		if strings.Contains(svg, "<script") {
			t.Errorf("unescaped <script in:\n%s", svg)
		}
	}
}

// TestRenderSVGStacked checks that several charts nest in one document whose
// height is the sum of theirs.
func TestRenderSVGStacked(t *testing.T) {
	a := &lineChart{id: "a", series: []series{{class: classMain, pts: []point{{0, 1}, {1, 2}}}}}
	b := &scatterChart{id: "b", points: []scatterPoint{{x: 1, y: 1, label: "p"}}}
	svg := renderSVG([]chart{a, b})
	checkSVG(t, svg)
	want := `height="` + num(a.height()+b.height()) + `"`
	if !strings.Contains(svg, want) {
		t.Errorf("stacked SVG lacks outer %s", want)
	}
	if got := strings.Count(svg, "<svg"); got != 3 {
		t.Errorf("got %d <svg> elements, want 3", got)
	}
}

// coordAttrs are the attributes that must hold finite numbers.
var coordAttrs = map[string]bool{
	"x": true, "y": true, "x1": true, "y1": true, "x2": true, "y2": true, "cx": true, "cy": true,
	"r": true, "width": true, "height": true, "stroke-width": true, "stroke-opacity": true, "fill-opacity": true,
}

// checkSVG parses svg as XML and checks that coordinates are finite numbers
// and that no NaN or Inf leaked into paths or transforms.
func checkSVG(t *testing.T, svg string) {
	t.Helper()
	checkWellFormed(t, svg, func(e xml.StartElement, depth int) {
		if depth == 0 && e.Name.Local != "svg" {
			t.Errorf("root element %q, want svg", e.Name.Local)
		}
		for _, a := range e.Attr {
			if coordAttrs[a.Name.Local] {
				if v, err := strconv.ParseFloat(a.Value, 64); err != nil || !finite(v) {
					t.Errorf("<%s %s=%q>: not a finite number", e.Name.Local, a.Name.Local, a.Value)
				}
			}
			if (a.Name.Local == "d" || a.Name.Local == "transform" || a.Name.Local == "viewBox") &&
				(strings.Contains(a.Value, "NaN") || strings.Contains(a.Value, "Inf")) {
				t.Errorf("<%s %s=%q>: non-finite number", e.Name.Local, a.Name.Local, a.Value)
			}
		}
	})
}

// TestFrameProjection checks that data map onto the plotting area: axis ends
// on its edges, a value in the middle in the middle.
func TestFrameProjection(t *testing.T) {
	f := newFrame(niceAxis(0, 60, 8), niceAxis(0, 100, 6), []legendItem{{label: "p", shape: noMarker}})
	for _, tt := range []struct {
		p            point
		wantX, wantY float64
	}{
		{point{0, 0}, f.left, f.bottom},
		{point{60, 100}, f.right, f.top},
		{point{30, 50}, (f.left + f.right) / 2, (f.top + f.bottom) / 2},
	} {
		x, y, ok := f.project(tt.p)
		if !ok || !near(x, tt.wantX) || !near(y, tt.wantY) {
			t.Errorf("project(%v) = %v, %v, %v; want %v, %v", tt.p, x, y, ok, tt.wantX, tt.wantY)
		}
	}
	if _, _, ok := f.project(point{math.NaN(), 1}); ok {
		t.Error("NaN projected")
	}
	if f.bottom-f.top != plotHeight || f.right-f.left < 600 {
		t.Errorf("plot area %v×%v, want about 630×%v", f.right-f.left, f.bottom-f.top, plotHeight)
	}
}

// TestBoundFarAboveDataIsLabelledNotScaled: a 10 s bound over ~100 ms of
// staleness must not stretch the axis; it is labelled as off scale instead.
func TestBoundFarAboveDataIsLabelledNotScaled(t *testing.T) {
	for _, tt := range []struct {
		bound    float64
		offScale bool
	}{{10000, true}, {300, false}} {
		c := &lineChart{id: "st", yInclude: []float64{0}, series: []series{{}},
			hlines: []hline{{tt.bound, "bound"}}}
		for i, y := range []float64{20, 90, 110} {
			c.series[0].pts = append(c.series[0].pts, point{float64(i), y})
		}
		_, ya, _ := c.axes()
		if tt.offScale != (ya.hi < tt.bound) {
			t.Errorf("bound %v: axis top %v", tt.bound, ya.hi)
		}
		var b strings.Builder
		c.render(&b, 0, 0, true)
		svg := b.String()
		if got := strings.Contains(svg, "(above the plot)"); got != tt.offScale {
			t.Errorf("bound %v: off-scale label %v, want %v", tt.bound, got, tt.offScale)
		}
		if got := strings.Contains(svg, `<line class="bound"`); got == tt.offScale {
			t.Errorf("bound %v: bound line drawn %v", tt.bound, got)
		}
	}
}
