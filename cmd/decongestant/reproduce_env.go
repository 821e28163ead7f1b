package main

import (
	"bufio"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/decongestant/decongestant/cluster"
	"github.com/decongestant/decongestant/internal/atomicfile"
	"github.com/decongestant/decongestant/reproduce"
)

// environment describes this build and machine for the index; out is the
// output directory, whose filesystem is the disk recorded.
func environment(out string) reproduce.Environment {
	env := reproduce.Environment{Version: versionLine(), Go: runtime.Version(), CPUs: runtime.NumCPU(),
		OS: runtime.GOOS + "/" + runtime.GOARCH, CPUModel: cpuModel(), MemoryMB: memTotalMB(), Disk: diskOf(out)}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		env.OS += " " + strings.TrimSpace(string(b))
	}
	return env
}

// cpuModel is the first "model name" of /proc/cpuinfo, "" when unknown.
func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	return cpuinfoModel(f)
}

// cpuinfoModel is the first "model name" of a /proc/cpuinfo.
func cpuinfoModel(r io.Reader) string {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(name) == "model name" {
			return strings.Join(strings.Fields(value), " ")
		}
	}
	return ""
}

// memTotalMB is MemTotal from /proc/meminfo in MiB, 0 when unknown.
func memTotalMB() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err == nil {
				return kb / 1024
			}
		}
	}
	return 0
}

// setMongodVersion is the version of the mongod a local set runs, "" when
// it cannot be told.
func setMongodVersion(dir string) string {
	c, err := cluster.Open(dir)
	if err != nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	v, err := cluster.MongodVersion(ctx, c.Mongod())
	if err != nil {
		return ""
	}
	return v
}

// gzipOutputs replaces each output JSON an experiment's steps wrote in dir
// with its gzipped copy (name.json.gz), so the runs' data can be kept
// with the index; readers take either.
func gzipOutputs(dir string, steps []reproduce.Step) error {
	for _, s := range steps {
		if s.Output == "" {
			continue
		}
		in := filepath.Join(dir, s.Output+".json")
		f, err := os.Open(in)
		if os.IsNotExist(err) {
			continue // a step that failed before writing
		}
		if err != nil {
			return err
		}
		err = atomicfile.Write(in+".gz", func(w io.Writer) error {
			z := gzip.NewWriter(w)
			if _, err := io.Copy(z, f); err != nil {
				return err
			}
			return z.Close()
		})
		f.Close()
		if err != nil {
			return fmt.Errorf("keep %s: %w", in, err)
		}
		if err := os.Remove(in); err != nil {
			return err
		}
	}
	return nil
}
