package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"runtime/debug"
)

const version = "0.1.0"

// versionLine is "decongestant 0.1.0", with the build's commit when the
// binary was built from a checkout ("(commit 4cbc5fa0…, modified)").
func versionLine() string {
	if c := buildCommit(); c != "" {
		return fmt.Sprintf("decongestant %s (commit %s)", version, c)
	}
	return "decongestant " + version
}

// buildCommit is the VCS revision go build embedded, with ", modified"
// when the checkout had changes; "" when it embedded none (go run, go
// test, a build outside a checkout).
func buildCommit() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	var rev string
	var dirty bool
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev != "" && dirty {
		rev += ", modified"
	}
	return rev
}

func defineVersion(*flag.FlagSet) action {
	return action{run: func(_ context.Context, _ []string, _ io.Reader, stdout, _ io.Writer) error {
		_, err := fmt.Fprintln(stdout, versionLine())
		return err
	}}
}
