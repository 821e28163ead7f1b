package chart

import (
	"math"
	"strings"
	"testing"

	"github.com/decongestant/decongestant/internal/svgtest"
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

// nearOrNaN is near, with NaN equal to NaN (a value that is not there).
func nearOrNaN(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return near(a, b)
}

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
	line := func(pts ...Point) *Line {
		return &Line{ID: "x", Title: "t", XTitle: "x (s)", YTitle: "y (ms)",
			Series: []Series{{Class: "s-main", Color: "#000", Width: 2, Points: pts}},
			Legend: []LegendItem{{Label: "p", Color: "#000", Shape: NoMarker}}}
	}
	tests := []struct {
		name     string
		c        Chart
		wantDots int // circles drawn for points; -1 to skip the check
		noData   bool
	}{
		{"no series", &Line{ID: "x", Title: "empty"}, 0, true},
		{"no points", line(), 0, true},
		{"single point", line(Point{10, 5}), 1, false},
		{"all zero", line(Point{0, 0}, Point{10, 0}, Point{20, 0}), 3, false},
		{"non-finite values", line(Point{0, nan}, Point{10, 3}, Point{20, inf}, Point{30, 4}, Point{nan, 1}), 2, false},
		{"only non-finite", line(Point{nan, nan}, Point{inf, 1}), 0, true},
		{"huge", line(Point{0, 1e300}, Point{1, -1e300}), 2, false},
		{"band vline hline without data", &Line{ID: "x", Bands: []Band{{0, 10, "warm-up"}},
			VLines: []VLine{{30, "phase"}, {nan, "bad"}}, HLines: []HLine{{500, "bound"}, {inf, "bad"}}}, 0, true},
		{"scatter empty", &Scatter{ID: "s"}, -1, true},
		{"scatter zero point", &Scatter{ID: "s", Points: []ScatterPoint{{Label: "a", Color: "#000"}}}, -1, false},
		{"scatter non-finite", &Scatter{ID: "s", Points: []ScatterPoint{
			{X: nan, Y: 1, Label: "nan"}, {X: 1, Y: 2, XErr: inf, YErr: nan, Label: "ok"}}}, -1, false},
		{"scatter same labels", &Scatter{ID: "s", Points: []ScatterPoint{
			{X: 0, Y: 100, Label: "a"}, {X: 0, Y: 100, Label: "b"}, {X: 0, Y: 100, Label: "c"}}}, -1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svg := svgDocument([]Chart{tt.c})
			svgtest.Check(t, svg)
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
			c := &Line{YInclude: tt.include, Series: []Series{{}}}
			for i, y := range tt.ys {
				c.Series[0].Points = append(c.Series[0].Points, Point{float64(i), y})
			}
			if _, ya, _ := c.axes(); !near(ya.hi, tt.wantYMax) {
				t.Errorf("y axis %v..%v step %v, want top %v", ya.lo, ya.hi, ya.step, tt.wantYMax)
			}
		})
	}
}

// TestChartEscapes checks that strings from the data cannot inject markup:
// every string a chart draws (titles, labels, tooltips, classes, colours)
// comes out escaped, in text and in attributes, and the SVG stays
// well-formed, control characters included.
func TestChartEscapes(t *testing.T) {
	const raw = `t<&"'x`
	const escaped = `t&lt;&amp;&#34;&#39;x`
	evil := raw + "\x01"
	bar := []Bar{{V: 1, OK: true, Tip: evil}, {Absent: evil}}
	tests := []struct {
		name string
		svg  string
		min  int // strings set: each must appear escaped at least once
	}{
		{"line", svgDocument([]Chart{&Line{ID: evil, Title: evil, XTitle: evil, YTitle: evil,
			Series: []Series{{Class: evil, Tip: evil, Color: evil, Width: 1, Points: []Point{{0, 1}, {1, 2}},
				Bars: []ErrBar{{X: 0, Lo: 0, Hi: 2}}}, {Class: evil, Tip: evil, Color: evil, Points: []Point{{0, 1}}, Base: []float64{0}}},
			Legend: []LegendItem{{Label: evil, Color: evil, Shape: NoMarker}, {Label: evil, Color: evil, Shape: Square}},
			VLines: []VLine{{1, evil}}, HLines: []HLine{{1, evil}}, Bands: []Band{{0, 1, evil}}}}), 17},
		{"scatter", svgDocument([]Chart{&Scatter{ID: evil, Title: evil, XTitle: evil, YTitle: evil,
			Points: []ScatterPoint{{X: 1, Y: 1, XErr: 1, YErr: 1, Label: evil, Tip: evil, Color: evil, Shape: triangle}},
			Legend: []LegendItem{{Label: evil, Color: evil, Shape: diamond}}, Bounds: []VLine{{1, evil}}}}), 10},
		{"empty scatter", svgDocument([]Chart{&Scatter{ID: evil, Empty: evil}}), 2},
		{"bars", svgDocument([]Chart{&Bars{ID: evil, Title: evil, XTitle: evil, YTitle: evil, Groups: []string{evil, evil},
			Series: []BarSeries{{Name: evil, Color: evil, Values: bar}}}}), 10},
		{"claim strip", string(ClaimStrip{BandLo: 1, BandHi: 2, Paper: 1.5, Mean: 1, Lo: 0.5, Hi: 1.5, Color: evil}.HTML()), 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svgtest.Check(t, strings.TrimPrefix(tt.svg, `<?xml version="1.0" encoding="UTF-8"?>`+"\n"))
			if strings.Contains(tt.svg, raw) || strings.Contains(tt.svg, "\x01") {
				t.Errorf("unescaped string in:\n%s", tt.svg)
			}
			if n := strings.Count(tt.svg, escaped); n < tt.min {
				t.Errorf("%d escaped strings, want at least %d, in:\n%s", n, tt.min, tt.svg)
			}
		})
	}
}

// TestRenderSVGStacked checks that several charts nest in one document whose
// height is the sum of theirs.
func TestRenderSVGStacked(t *testing.T) {
	a := &Line{ID: "a", Series: []Series{{Class: "s-main", Points: []Point{{0, 1}, {1, 2}}}}}
	b := &Scatter{ID: "b", Points: []ScatterPoint{{X: 1, Y: 1, Label: "p"}}}
	svg := svgDocument([]Chart{a, b})
	svgtest.Check(t, svg)
	want := `height="` + num(a.height()+b.height()) + `"`
	if !strings.Contains(svg, want) {
		t.Errorf("stacked SVG lacks outer %s", want)
	}
	if got := strings.Count(svg, "<svg"); got != 3 {
		t.Errorf("got %d <svg> elements, want 3", got)
	}
}

// TestFrameProjection checks that data map onto the plotting area: axis ends
// on its edges, a value in the middle in the middle.
func TestFrameProjection(t *testing.T) {
	f := newFrame(niceAxis(0, 60, 8), niceAxis(0, 100, 6), []LegendItem{{Label: "p", Shape: NoMarker}})
	for _, tt := range []struct {
		p            Point
		wantX, wantY float64
	}{
		{Point{0, 0}, f.left, f.bottom},
		{Point{60, 100}, f.right, f.top},
		{Point{30, 50}, (f.left + f.right) / 2, (f.top + f.bottom) / 2},
	} {
		x, y, ok := f.project(tt.p)
		if !ok || !near(x, tt.wantX) || !near(y, tt.wantY) {
			t.Errorf("project(%v) = %v, %v, %v; want %v, %v", tt.p, x, y, ok, tt.wantX, tt.wantY)
		}
	}
	if _, _, ok := f.project(Point{math.NaN(), 1}); ok {
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
		c := &Line{ID: "st", YInclude: []float64{0}, Series: []Series{{}},
			HLines: []HLine{{tt.bound, "bound"}}}
		for i, y := range []float64{20, 90, 110} {
			c.Series[0].Points = append(c.Series[0].Points, Point{float64(i), y})
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
