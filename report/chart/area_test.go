package chart

import (
	"math"
	"strings"
	"testing"

	"github.com/decongestant/decongestant/internal/svgtest"
)

// TestStackSeries: each band starts where the one below ends; a value
// missing in some series counts as 0, missing in all is a gap.
func TestStackSeries(t *testing.T) {
	nan := math.NaN()
	tops, bases := Stack([][]float64{{10, nan, nan, 30}, {90, 50, nan, 70}})
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
	if tops, bases := Stack(nil); tops != nil || bases != nil {
		t.Error("no series: want no bands")
	}
}

// TestWriteArea: a band is a filled path per run of drawable points (a gap
// splits it), a lone point a bar; the y cap keeps a stack of rounded
// percentages (100.1) from stretching the axis past 100; areas are drawn
// before the warm-up band, which stays visible over them.
func TestWriteArea(t *testing.T) {
	nan := math.NaN()
	pts := []Point{{10, 50}, {20, 100.1}, {30, nan}, {40, 60}, {50, nan}, {60, 40}, {70, 40}}
	c := &Line{ID: "a", YInclude: []float64{0, 100}, YCap: 100, Bands: []Band{{X0: 0, X1: 15, Label: "warm-up"}},
		Series: []Series{{Class: "area", Color: "#123456", Points: pts, Base: []float64{0, 0, 0, 0, 0, 0, 0}}}}
	var b strings.Builder
	c.render(&b, 0, 0, true)
	svg := b.String()
	svgtest.Check(t, svg)
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
