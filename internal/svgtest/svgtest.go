// Package svgtest holds the checks the report tests share: that a fragment of
// a page or an SVG is well-formed XML, and that an SVG holds only finite
// coordinates.
//
//	svgtest.Check(t, svg) // fails t unless svg is one <svg> element, finite everywhere
package svgtest

import (
	"encoding/xml"
	"errors"
	"io"
	"math"
	"strconv"
	"strings"
	"testing"
)

// WellFormed parses s as one XML element (strict mode), calling visit (when
// not nil) for every start element with its depth (0 = the root); it fails t
// unless s is exactly one closed element.
func WellFormed(t testing.TB, s string, visit func(e xml.StartElement, depth int)) {
	t.Helper()
	dec := xml.NewDecoder(strings.NewReader(s))
	depth, roots := 0, 0
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v\n%.2000s", err, s)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			if depth == 0 {
				roots++
			}
			if visit != nil {
				visit(e, depth)
			}
			depth++
		case xml.EndElement:
			depth--
		}
	}
	if roots != 1 || depth != 0 {
		t.Errorf("got %d root elements (depth %d at the end), want 1 closed element", roots, depth)
	}
}

// coordAttrs are the attributes that must hold finite numbers.
var coordAttrs = map[string]bool{
	"x": true, "y": true, "x1": true, "y1": true, "x2": true, "y2": true, "cx": true, "cy": true,
	"r": true, "width": true, "height": true, "stroke-width": true, "stroke-opacity": true, "fill-opacity": true,
}

// Check parses svg as XML whose root is an <svg> element and checks that
// coordinates are finite numbers and that no NaN or Inf leaked into paths,
// transforms or view boxes.
func Check(t testing.TB, svg string) {
	t.Helper()
	WellFormed(t, svg, func(e xml.StartElement, depth int) {
		if depth == 0 && e.Name.Local != "svg" {
			t.Errorf("root element %q, want svg", e.Name.Local)
		}
		for _, a := range e.Attr {
			if coordAttrs[a.Name.Local] {
				if v, err := strconv.ParseFloat(a.Value, 64); err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
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
