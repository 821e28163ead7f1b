package report

import (
	"sort"
	"strings"
)

// Member colours: Okabe and Ito's colour-blind-safe set (without its
// yellow, too light on white), then further distinct hues.
var memberColors = []string{
	"#0072b2", "#e69f00", "#009e73", "#cc79a7", "#d55e00", "#56b4e9", "#000000",
	"#8c564b", "#7f7f7f", "#bcbd22", "#17becf", "#9467bd",
}

// newMemberPalette gives every member of every input a colour, the same in
// every plot of the report: members in natural order of their keys (n1, n2,
// n3...), colours in order, cycling when there are more members.
func newMemberPalette(in []Input) palette {
	seen := map[string]bool{}
	var keys []string
	for _, x := range in {
		for i := range x.Results.Runs {
			for _, k := range memberKeys(&x.Results.Runs[i]) {
				if !seen[k] {
					seen[k] = true
					keys = append(keys, k)
				}
			}
		}
	}
	sort.Slice(keys, func(i, j int) bool { return naturalLess(keys[i], keys[j]) })
	p := palette{}
	for i, k := range keys {
		p[k] = memberColors[i%len(memberColors)]
	}
	return p
}

// naturalLess orders strings with their runs of digits compared as
// numbers: n2 < n10, host:999 < host:1000.
func naturalLess(a, b string) bool {
	for a != "" && b != "" {
		ca, cb := leadChunk(a), leadChunk(b)
		if ca != cb {
			if isDigit(ca[0]) && isDigit(cb[0]) {
				na, nb := strings.TrimLeft(ca, "0"), strings.TrimLeft(cb, "0")
				if len(na) != len(nb) {
					return len(na) < len(nb)
				}
				if na != nb {
					return na < nb
				}
			}
			return ca < cb
		}
		a, b = a[len(ca):], b[len(cb):]
	}
	return len(a) < len(b)
}

// leadChunk is the leading run of digits or of non-digits of a non-empty s.
func leadChunk(s string) string {
	d := isDigit(s[0])
	i := 1
	for i < len(s) && isDigit(s[i]) == d {
		i++
	}
	return s[:i]
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
