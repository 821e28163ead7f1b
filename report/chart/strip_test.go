package chart

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/decongestant/decongestant/internal/svgtest"
)

// TestClaimStrip: the band, the paper's diamond and our dot with its
// interval are drawn where their values lie on the strip's own axis, an
// open band runs to the axis' end, and nothing is drawn for nothing.
func TestClaimStrip(t *testing.T) {
	svg := string(ClaimStrip{BandLo: 60, BandHi: 80, Paper: 70, Mean: 45, Lo: 40, Hi: 50, Color: "#b00020"}.HTML())
	svgtest.Check(t, svg)
	for _, want := range []string{"<title>the claim</title>", "<title>the paper</title>", "<title>ours</title>", `stroke="#b00020"`} {
		if !strings.Contains(svg, want) {
			t.Errorf("strip lacks %q:\n%s", want, svg)
		}
	}
	// ours left of the band, the paper inside it
	x := func(marker string) float64 {
		i := strings.Index(svg, marker)
		if i < 0 {
			t.Fatalf("no %q", marker)
		}
		rest := svg[i+len(marker):]
		v, err := strconv.ParseFloat(rest[:strings.IndexByte(rest, '"')], 64)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	band, dot := x(`<rect x="`), x(`<circle cx="`)
	if dot >= band {
		t.Errorf("our dot at %v is not left of the band at %v", dot, band)
	}
	open := string(ClaimStrip{BandLo: 1, BandHi: math.Inf(1), Paper: math.NaN(), Mean: 1.2, Lo: 1.1, Hi: 1.3}.HTML())
	svgtest.Check(t, open)
	if strings.Contains(open, "the paper") {
		t.Error("a diamond for a paper that gives no number")
	}
	if string(ClaimStrip{BandLo: math.NaN(), BandHi: math.NaN(), Paper: math.NaN(), Mean: math.NaN()}.HTML()) != "" {
		t.Error("a strip with nothing to draw")
	}
}
