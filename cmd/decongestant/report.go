package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/decongestant/decongestant/internal/atomicfile"
	"github.com/decongestant/decongestant/report"
	"github.com/decongestant/decongestant/results"
)

func defineReport(fs *flag.FlagSet) action {
	out := fs.String("out", "report.html", "HTML report `path`")
	plots := fs.String("plots", "", "`directory` for the SVG plots (default: next to --out, named after it)")
	check := func(files []string) error {
		if len(files) == 0 {
			return usageError{errors.New("usage: decongestant report RESULTS.json... [--out report.html] [--plots DIR]")}
		}
		return nil
	}
	return action{check: check, run: func(_ context.Context, files []string, _ io.Reader, stdout, stderr io.Writer) error {
		return writeReports(files, *out, *plots, stdout, stderr)
	}}
}

func writeReports(files []string, out, plots string, stdout, stderr io.Writer) error {
	var in []report.Input
	for _, f := range files {
		r, err := results.Read(f)
		if err != nil {
			return err
		}
		in = append(in, report.Input{Name: filepath.Base(f), Results: r})
	}
	if err := report.WriteText(stdout, in); err != nil {
		return err
	}
	if err := atomicfile.Write(out, func(w io.Writer) error { return report.WriteHTML(w, in) }); err != nil {
		return fmt.Errorf("write %s: %w", out, err)
	}
	if plots == "" {
		plots = strings.TrimSuffix(out, filepath.Ext(out)) + "_plots"
	}
	if err := os.MkdirAll(plots, 0o755); err != nil {
		return err
	}
	paths, err := report.WritePlots(plots, in)
	if err != nil {
		return fmt.Errorf("write plots: %w", err)
	}
	fmt.Fprintf(stderr, "report: %s\nplots: %s (%d files)\n", out, plots, len(paths))
	return nil
}

// writeJSONPath writes v as indented JSON to path atomically (temp file +
// rename): the one way the commands write a JSON result of their own.
func writeJSONPath(path string, v any) error {
	return atomicfile.Write(path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	})
}
