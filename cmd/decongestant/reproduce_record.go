package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"

	"github.com/decongestant/decongestant/reproduce"
)

// runRecord is what an experiment's run leaves beside its outputs
// (run.json), so that --judge-only can say how they were made and
// --resume what is left to run.
type runRecord struct {
	Commands []string `json:"commands"`
	// Filled are Commands as they ran: the set's URI and directories and
	// the output paths filled in, credentials redacted.
	Filled        []string `json:"commands_filled,omitempty"`
	MongodVersion string   `json:"mongod_version,omitempty"`
	// Version is `decongestant version` of the binary that ran them.
	Version string  `json:"decongestant_version,omitempty"`
	TookS   float64 `json:"took_s"`
	Quick   bool    `json:"quick"`
	Error   string  `json:"error,omitempty"`
	// Steps are the steps that ran to their end, in order, with the
	// earlier sittings' when the run was resumed.
	Steps []stepRecord `json:"steps_finished,omitempty"`
}

// stepRecord is a step that ran to its end: what --resume needs to keep
// it instead of running it again.
type stepRecord struct {
	// Command is the step's command as written (reproduce.Step.Command).
	Command string `json:"command"`
	// Commands and Filled are the lines the step added to its run's
	// record: the `cluster up` line of the set it started, then its own.
	Commands []string `json:"commands"`
	Filled   []string `json:"commands_filled,omitempty"`
	TookS    float64  `json:"took_s"`
}

// finished reports whether an earlier run of the experiment in dir ran to
// its end without an error, in the shape asked for (quick or not).
func finished(dir string, quick bool) bool {
	rec, err := readRunRecord(dir)
	return err == nil && rec.TookS > 0 && rec.Error == "" && rec.Quick == quick && len(rec.Commands) > 0
}

// kept is the record of s from an earlier, unfinished sitting of the
// experiment in dir, when --resume may keep it instead of running it
// again: s starts a set of its own (so it needs nothing the steps before
// it left in theirs), it ran to its end in this shape (a command that
// runs the same: reproduce.SameCommand), and its output is still in dir.
func (r runRecord) kept(s reproduce.Step, dir string) (stepRecord, bool) {
	if s.Cluster == nil || s.Output == "" {
		return stepRecord{}, false
	}
	i := slices.IndexFunc(r.Steps, func(k stepRecord) bool { return reproduce.SameCommand(k.Command, s.Command()) })
	if i < 0 {
		return stepRecord{}, false
	}
	if _, err := os.Stat(dirOutputs(dir).path(s.Output)); err != nil {
		return stepRecord{}, false
	}
	return r.Steps[i], true
}

func writeRunRecord(dir string, rec runRecord) error {
	return writeJSONPath(filepath.Join(dir, "run.json"), rec)
}

// readRunRecord reads an experiment's run.json; an experiment directory
// without one (a run before the record was written) gives an empty record.
func readRunRecord(dir string) (runRecord, error) {
	var rec runRecord
	if _, err := os.Stat(dir); err != nil {
		return rec, err
	}
	b, err := os.ReadFile(filepath.Join(dir, "run.json"))
	if errors.Is(err, os.ErrNotExist) {
		return rec, nil
	}
	if err != nil {
		return rec, err
	}
	return rec, json.Unmarshal(b, &rec)
}
