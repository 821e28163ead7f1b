package routermetrics

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestMetricsDocumented: the metrics table of docs/production.md names every
// metric the collector serves, with its labels, and nothing else.
func TestMetricsDocumented(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "production.md"))
	if err != nil {
		t.Fatal(err)
	}
	documented := documentedMetrics(string(doc))
	if len(documented) == 0 {
		t.Fatal("no metrics table in docs/production.md (rows starting with | `decongestant_)")
	}
	descRE := regexp.MustCompile(`fqName: "([^"]+)".*variableLabels: \{([^}]*)\}`)
	served := map[string]bool{}
	for _, d := range all {
		m := descRE.FindStringSubmatch(d.String())
		if m == nil {
			t.Fatalf("cannot read %s", d)
		}
		name, labels := m[1], strings.Split(m[2], ",")
		if m[2] == "" {
			labels = nil
		}
		served[name] = true
		got, ok := documented[name]
		if !ok {
			t.Errorf("%s is served but not in docs/production.md's metrics table", name)
			continue
		}
		slices.Sort(labels)
		if !slices.Equal(got, labels) {
			t.Errorf("%s: docs/production.md gives the labels %v, the collector %v", name, got, labels)
		}
	}
	for name := range documented {
		if !served[name] {
			t.Errorf("docs/production.md's metrics table names %s, which the collector does not serve", name)
		}
	}
}

// documentedMetrics reads the metrics table's rows: | `name`, `name2` |
// type | `label`, `label2` (remarks) |, with `a_{b,c}_d` standing for a_b_d
// and a_c_d. It returns each name's labels, sorted.
func documentedMetrics(doc string) map[string][]string {
	tick := regexp.MustCompile("`([^`]+)`")
	out := map[string][]string{}
	for line := range strings.Lines(doc) {
		if !strings.HasPrefix(line, "| `decongestant_") {
			continue
		}
		cells := strings.Split(line, "|")
		if len(cells) < 4 {
			continue
		}
		var labels []string
		for _, m := range tick.FindAllStringSubmatch(withoutParens(cells[3]), -1) {
			labels = append(labels, m[1])
		}
		slices.Sort(labels)
		for _, m := range tick.FindAllStringSubmatch(cells[1], -1) {
			for _, name := range expandBraces(m[1]) {
				out[name] = labels
			}
		}
	}
	return out
}

// withoutParens drops the parenthesised remarks of a cell (label values).
func withoutParens(s string) string {
	var b strings.Builder
	depth := 0
	for _, r := range s {
		switch {
		case r == '(':
			depth++
		case r == ')':
			depth = max(depth-1, 0)
		case depth == 0:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// expandBraces expands one {a,b} group: x_{a,b}_y is x_a_y and x_b_y.
func expandBraces(s string) []string {
	open, end := strings.Index(s, "{"), strings.Index(s, "}")
	if open < 0 || end < open {
		return []string{s}
	}
	var out []string
	for alt := range strings.SplitSeq(s[open+1:end], ",") {
		out = append(out, s[:open]+alt+s[end+1:])
	}
	return out
}
