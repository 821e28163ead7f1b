package main

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// mutation is one planted defect: in File, the first (and only) occurrence
// of From becomes To.
type mutation struct {
	Line     int // in the list
	Name     string
	File     string
	From, To string
}

// parse reads a mutations list: blocks of four lines, "name: ..." (what
// the mutation does), "file: path", "from: text", "to: text" (the text
// after "from: " and "to: " exactly, \t for a tab, \n for a newline), separated by blank
// lines; lines starting with # are comments.
func parse(r io.Reader) ([]mutation, error) {
	var out []mutation
	var cur mutation
	have := 0
	flush := func(line int) error {
		switch have {
		case 0:
			return nil
		case 4:
			out = append(out, cur)
			cur, have = mutation{}, 0
			return nil
		}
		return fmt.Errorf("line %d: a mutation needs name, file, from and to", line)
	}
	sc := bufio.NewScanner(r)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "#"):
			continue
		case strings.TrimSpace(line) == "":
			if err := flush(n); err != nil {
				return nil, err
			}
			continue
		}
		key, val, ok := strings.Cut(line, ": ")
		if !ok {
			return nil, fmt.Errorf("line %d: %q is not \"key: value\"", n, line)
		}
		val = strings.NewReplacer(`\t`, "\t", `\n`, "\n").Replace(val)
		want := []string{"name", "file", "from", "to"}[min(have, 3)]
		if key != want || have == 4 {
			return nil, fmt.Errorf("line %d: %q where %q was expected", n, key, want)
		}
		switch key {
		case "name":
			cur = mutation{Line: n, Name: val}
		case "file":
			cur.File = val
		case "from":
			cur.From = val
		case "to":
			cur.To = val
			if cur.To == cur.From {
				return nil, fmt.Errorf("line %d: from and to are the same", n)
			}
		}
		have++
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if err := flush(n); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no mutations")
	}
	return out, nil
}
