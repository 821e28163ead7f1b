package report

// The HTML pages are html/template templates (templates/*.tmpl) filled
// with small views: every number already formatted, every row built, every
// plot drawn by package chart (template.HTML, its text escaped there). The
// templates escape the rest. This file parses them and holds the views the
// pages share: tables, their cells, definition lists.

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"io"
)

//go:embed templates/*.tmpl
var templateFiles embed.FS

// pages holds every template: "bench" (WriteHTML) and "matrix"
// (WriteMatrixHTML), and the pieces they share.
var pages = template.Must(template.New("").ParseFS(templateFiles, "templates/*.tmpl"))

// writePage executes template name with view into w. The page is built in
// memory first, so a failed execution writes nothing.
func writePage(w io.Writer, name string, view any) error {
	var b bytes.Buffer
	if err := pages.ExecuteTemplate(&b, name, view); err != nil {
		return fmt.Errorf("report: page %s: %w", name, err)
	}
	_, err := w.Write(xmlChars(b.Bytes()))
	return err
}

// xmlChars replaces the characters XML cannot carry (control characters but
// tab, newline and carriage return; invalid UTF-8; U+FFFE and U+FFFF) with
// U+FFFD. html/template leaves them in the text it escapes; the plots'
// strings lose them the same way (encoding/xml), so the page's sections and
// plots stay well-formed XML whatever the results hold.
func xmlChars(b []byte) []byte {
	return bytes.Map(func(r rune) rune {
		switch {
		case r == '\t' || r == '\n' || r == '\r',
			r >= 0x20 && r <= 0xD7FF,
			r >= 0xE000 && r <= 0xFFFD,
			r >= 0x10000 && r <= 0x10FFFF:
			return r
		}
		return '\uFFFD'
	}, b)
}

// table is a table of a page (template "table"): its class, header and rows.
type table struct {
	Class string
	Head  []th
	Rows  []tr
}

// th is a header cell; Left aligns it left, over text.
type th struct {
	Text string
	Left bool
}

// tr is a row; Class marks it ("best").
type tr struct {
	Class string
	Cells []td
}

// td is a cell: its text, after a swatch of colour Swatch, shown as a
// warning when Warn, with small print Sub below it and a badge after it.
type td struct {
	Class  string // "n" (a number, right aligned), "l" (text), ...
	Span   int    // columns spanned, when more than 1
	Swatch string
	Text   string
	Warn   bool
	Sub    string
	Badge  string
}

// numCell is a number's cell, small print below.
func numCell(text, sub string) td { return td{Class: "n", Text: text, Sub: sub} }

// textCell is a text cell.
func textCell(s string) td { return td{Class: "l", Text: s} }

// swatchCell is a text cell after a swatch of colour color: a policy, a member.
func swatchCell(color, s string) td { return td{Class: "l", Swatch: color, Text: s} }

// item is one entry of a definition list (template "dl").
type item struct{ K, V string }
