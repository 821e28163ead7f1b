package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// minDocumentedCommands is the fewest decongestant command lines the docs hold: fewer means the
// extraction broke (or the examples went), and the test would pass checking nothing.
const minDocumentedCommands = 75

// sampleURI stands for a --uri the docs write as "$URI", "$(cat uri.txt)" or URI.
const sampleURI = "mongodb://127.0.0.1:27017/?replicaSet=rs0"

// A docCommand is one decongestant command line of the docs.
type docCommand struct {
	file string
	line int
	args []string // after the program: "cluster", "up", "--dir", ...
}

// TestDocumentedCommands: every decongestant command line in the shell blocks of README.md and
// docs/*.md parses as the command table does, without running anything: the command exists, its
// flags exist and take their values, its arguments check out.
func TestDocumentedCommands(t *testing.T) {
	files := []string{filepath.Join("..", "..", "README.md")}
	docs, err := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, docs...)
	cmds := commands()
	n := 0
	for _, f := range files {
		lines, err := documentedCommands(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, dc := range lines {
			n++
			if err := checkDocumented(cmds, dc.args); err != nil {
				t.Errorf("%s:%d: decongestant %s: %v", filepath.ToSlash(strings.TrimPrefix(dc.file, "../../")), dc.line, strings.Join(dc.args, " "), err)
			}
		}
	}
	if n < minDocumentedCommands {
		t.Errorf("found %d decongestant command lines in %d files, want at least %d: has the extraction broken?", n, len(files), minDocumentedCommands)
	}
	t.Logf("%d command lines checked in %d files", n, len(files))
}

// checkDocumented parses a documented command line as the command table would.
func checkDocumented(cmds []*command, args []string) error {
	c, rest, g := lookup(cmds, args)
	if c == nil {
		if g != nil {
			return fmt.Errorf("unknown %s %q", g.noun, strings.Join(args[1:2], ""))
		}
		return fmt.Errorf("unknown command %q", strings.Join(args[:1], ""))
	}
	return c.parse(rest)
}

// shellFences are the info strings of the code blocks that hold commands.
var shellFences = map[string]bool{"": true, "sh": true, "bash": true, "shell": true, "console": true, "zsh": true}

// documentedCommands returns the decongestant command lines of the shell code blocks of the
// Markdown file path: continuations joined, comments dropped, placeholders filled in.
func documentedCommands(path string) ([]docCommand, error) {
	f, err := os.Open(path)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return nil, err
	}
	defer f.Close()
	var out []docCommand
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	inFence, shell := false, false
	joined, start := "", 0
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if trimmed := strings.TrimSpace(line); strings.HasPrefix(trimmed, "```") {
			inFence = !inFence
			shell = inFence && shellFences[strings.TrimSpace(strings.TrimPrefix(trimmed, "```"))]
			joined = ""
			continue
		}
		if !inFence || !shell {
			continue
		}
		if joined == "" {
			start = n
		}
		line = strings.TrimRight(line, " \t")
		if cont, ok := strings.CutSuffix(line, "\\"); ok {
			joined += cont + " "
			continue
		}
		joined += line
		for _, args := range invocations(strings.TrimPrefix(strings.TrimSpace(joined), "$ ")) {
			out = append(out, docCommand{file: path, line: start, args: args})
		}
		joined = ""
	}
	return out, sc.Err()
}

// invocations splits a shell line into simple commands and returns the arguments of those that
// run decongestant.
func invocations(line string) [][]string {
	var out [][]string
	for _, words := range shellCommands(line) {
		if args, ok := decongestantArgs(words); ok {
			out = append(out, args)
		}
	}
	return out
}

// decongestantArgs returns the arguments of a simple command that runs decongestant: the program
// (decongestant, bin/decongestant, ./bin/decongestant, go run ./cmd/decongestant) in command
// position, after variable assignments or a shell keyword; ok is false for any other command and
// for one whose command is a variable ($Y).
func decongestantArgs(words []string) (args []string, ok bool) {
	i := 0
	for i < len(words) && (isAssignment(words[i]) || shellKeyword[words[i]]) {
		i++
	}
	switch {
	case i+2 < len(words) && words[i] == "go" && words[i+1] == "run" && strings.TrimSuffix(words[i+2], "/") == "./cmd/decongestant":
		i += 3
	case i < len(words) && filepath.Base(words[i]) == "decongestant" && !strings.Contains(words[i], "$"):
		i++
	default:
		return nil, false
	}
	var prev string
	for _, w := range words[i:] {
		switch {
		case w == "..." || w == "…" || w == "[flags]":
			continue
		case len(args) == 0 && strings.Contains(w, "$"):
			return nil, false // the command itself is a variable
		case (prev == "--uri" || prev == "-uri") && (strings.Contains(w, "$") || w == strings.ToUpper(w)):
			w = sampleURI
		case strings.Contains(w, "$"):
			w = strings.NewReplacer("$", "").Replace(w)
		}
		args = append(args, w)
		prev = w
	}
	return args, true
}

var shellKeyword = map[string]bool{"do": true, "then": true, "else": true, "time": true, "exec": true, "!": true, "{": true}

func isAssignment(w string) bool {
	name, _, ok := strings.Cut(w, "=")
	return ok && name != "" && !strings.HasPrefix(name, "-") && strings.Trim(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") == ""
}

// shellCommands splits line into simple commands (at unquoted ;, &&, ||, |, & and newlines) of
// words, quotes removed; a word that starts with # ends the line, redirections and their targets
// are dropped. "$(...)" stays one word.
func shellCommands(line string) [][]string {
	var (
		cmds  [][]string
		words []string
		word  strings.Builder
		has   bool // word holds a word, maybe empty ("")
	)
	endWord := func() {
		if has {
			words = append(words, word.String())
		}
		word.Reset()
		has = false
	}
	endCmd := func() {
		endWord()
		if len(words) > 0 {
			cmds = append(cmds, dropRedirections(words))
		}
		words = nil
	}
	for i := 0; i < len(line); i++ {
		ch := line[i]
		switch {
		case ch == '\'':
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				j = len(line) - i - 1
			}
			word.WriteString(line[i+1 : i+1+j])
			has, i = true, i+1+j
		case ch == '"':
			i++
			for ; i < len(line) && line[i] != '"'; i++ {
				if line[i] == '\\' && i+1 < len(line) {
					i++
				}
				word.WriteByte(line[i])
			}
			has = true
		case ch == '$' && i+1 < len(line) && line[i+1] == '(':
			depth, j := 0, i
			for ; j < len(line); j++ {
				if line[j] == '(' {
					depth++
				} else if line[j] == ')' {
					if depth--; depth == 0 {
						break
					}
				}
			}
			word.WriteString(line[i:min(j+1, len(line))])
			has, i = true, j
		case ch == '#' && !has:
			endCmd()
			return cmds
		case ch == ';' || ch == '|' || ch == '&' || ch == '\n':
			if ch == '&' && has && strings.HasSuffix(word.String(), ">") { // 2>&1
				word.WriteByte(ch)
				continue
			}
			endCmd()
		case ch == ' ' || ch == '\t':
			endWord()
		default:
			word.WriteByte(ch)
			has = true
		}
	}
	endCmd()
	return cmds
}

// dropRedirections removes "< file", "> file", "2>&1", ">>file" and the like from words.
func dropRedirections(words []string) []string {
	var out []string
	for i := 0; i < len(words); i++ {
		w := strings.TrimLeft(words[i], "0123456789")
		if strings.HasPrefix(w, "<") || strings.HasPrefix(w, ">") {
			if strings.Trim(w, "<>&") == "" && !strings.Contains(w, "&") {
				i++ // the target is the next word
			}
			continue
		}
		out = append(out, words[i])
	}
	return out
}

// TestInvocations: the extraction finds decongestant in command position only, through pipes,
// lists, loops, redirections, comments and placeholders.
func TestInvocations(t *testing.T) {
	for _, tt := range []struct {
		line string
		want []string // one line per invocation, words joined by |
	}{
		{`bin/decongestant cluster up --dir /tmp/rs   # the URI`, []string{"cluster|up|--dir|/tmp/rs"}},
		{`./bin/decongestant report r.json --out "my report.html" 2>&1 | tee log`, []string{"report|r.json|--out|my report.html"}},
		{`go run ./cmd/decongestant version > v.txt`, []string{"version"}},
		{`decongestant proxy-user --file u.json --user app < password.txt`, []string{"proxy-user|--file|u.json|--user|app"}},
		{`URI=$(bin/decongestant cluster up | tail -1)`, nil},
		{`MONGOD=/opt/mongod decongestant mongod`, []string{"mongod"}},
		{`for m in n1 n2; do bin/decongestant cluster kill --member $m; done`, []string{"cluster|kill|--member|m"}},
		{`bin/decongestant bench ycsb --uri "$(cat uri.txt)" --phases '60s:pause=n3;90s:resume=n3' ...`,
			[]string{"bench|ycsb|--uri|" + sampleURI + "|--phases|60s:pause=n3;90s:resume=n3"}},
		{`bin/decongestant bench ycsb --uri "$URI&localThresholdMS=1000" && bin/decongestant report r.json`,
			[]string{"bench|ycsb|--uri|" + sampleURI, "report|r.json"}},
		{`go tool pprof -top bin/decongestant heap.pb.gz`, nil},
		{`bin/decongestant $Y --skip-load`, nil},
		{`# bin/decongestant demo`, nil},
		{`make demo    # runs decongestant demo`, nil},
	} {
		var got []string
		for _, args := range invocations(tt.line) {
			got = append(got, strings.Join(args, "|"))
		}
		if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
			t.Errorf("%s:\n got  %q\n want %q", tt.line, got, tt.want)
		}
	}
}
