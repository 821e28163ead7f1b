package report

import (
	"math"
	"strings"
	"testing"
)

// TestStackSeries: each band starts where the one below ends; a value
// missing in some series counts as 0, missing in all is a gap.
func TestStackSeries(t *testing.T) {
	nan := math.NaN()
	tops, bases := stackSeries([][]float64{{10, nan, nan, 30}, {90, 50, nan, 70}})
	want := []struct{ tops, bases []float64 }{
		{[]float64{10, 0, nan, 30}, []float64{0, 0, nan, 0}},
		{[]float64{100, 50, nan, 100}, []float64{10, 0, nan, 30}},
	}
	for i, w := range want {
		for k := range w.tops {
			if !nearOrNaN(tops[i][k], w.tops[k]) || !nearOrNaN(bases[i][k], w.bases[k]) {
				t.Errorf("band %d, x %d: %v..%v, want %v..%v", i, k, bases[i][k], tops[i][k], w.bases[k], w.tops[k])
			}
		}
	}
	if tops, bases := stackSeries(nil); tops != nil || bases != nil {
		t.Error("no series: want no bands")
	}
}

// TestWriteArea: a band is a filled path per run of drawable points (a gap
// splits it), a lone point a bar; the y cap keeps a stack of rounded
// percentages (100.1) from stretching the axis past 100; areas are drawn
// before the warm-up band, which stays visible over them.
func TestWriteArea(t *testing.T) {
	nan := math.NaN()
	pts := []point{{10, 50}, {20, 100.1}, {30, nan}, {40, 60}, {50, nan}, {60, 40}, {70, 40}}
	c := &lineChart{id: "a", yInclude: []float64{0, 100}, yCap: 100, bands: []band{{x0: 0, x1: 15, label: "warm-up"}},
		series: []series{{class: "area", color: "#123456", pts: pts, base: []float64{0, 0, 0, 0, 0, 0, 0}}}}
	var b strings.Builder
	c.render(&b, 0, 0, true)
	svg := b.String()
	checkSVG(t, svg)
	if got := strings.Count(svg, `<path class="area"`); got != 2 {
		t.Errorf("%d filled runs, want 2 (10-20 and 60-70)", got)
	}
	if got := strings.Count(svg, `<line class="area"`); got != 1 {
		t.Errorf("%d bars, want 1 (the lone point at 40)", got)
	}
	if _, ya, _ := c.axes(); ya.hi != 100 {
		t.Errorf("y axis up to %v, want 100", ya.hi)
	}
	if a, w := strings.Index(svg, `class="area"`), strings.Index(svg, `class="band"`); a < 0 || w < a {
		t.Error("the warm-up band is drawn before the areas")
	}
}
