package bench

import (
	rtmetrics "runtime/metrics"

	"github.com/decongestant/decongestant/metrics"
)

// runtimeNames are the runtime/metrics figures a period records: read
// together, without stopping the world (runtime.ReadMemStats stops it).
var runtimeNames = [...]string{
	"/memory/classes/heap/objects:bytes",
	"/gc/heap/live:bytes",
	"/sched/goroutines:goroutines",
}

// runtimeStats reads the process's heap and goroutines; its samples are
// reused from period to period (one reader: the run's loop).
type runtimeStats struct {
	samples []rtmetrics.Sample
}

func newRuntimeStats() *runtimeStats {
	s := &runtimeStats{samples: make([]rtmetrics.Sample, len(runtimeNames))}
	for i, name := range runtimeNames {
		s.samples[i].Name = name
	}
	return s
}

// runtimeFigures are one reading: the heap's objects and the live heap in
// MiB, and the goroutines.
type runtimeFigures struct {
	heapMB, heapLiveMB float64
	goroutines         int
}

// read takes a reading; a figure this Go release does not have reads 0.
func (s *runtimeStats) read() runtimeFigures {
	rtmetrics.Read(s.samples)
	mb := func(v rtmetrics.Value) float64 {
		if v.Kind() != rtmetrics.KindUint64 {
			return 0
		}
		return metrics.Round3(float64(v.Uint64()) / (1 << 20))
	}
	var f runtimeFigures
	f.heapMB, f.heapLiveMB = mb(s.samples[0].Value), mb(s.samples[1].Value)
	if v := s.samples[2].Value; v.Kind() == rtmetrics.KindUint64 {
		f.goroutines = int(v.Uint64())
	}
	return f
}
