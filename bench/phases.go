package bench

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
)

// ErrBadPhases is wrapped by phase parsing errors.
var ErrBadPhases = errors.New("invalid phases")

// Phase switches the workload mix and/or the client count at a time into a
// run. Empty Mix or zero Clients keep the previous value.
type Phase struct {
	At      time.Duration
	Mix     string
	Clients int
}

// ParsePhases parses "0s:workload=a,clients=180;620s:workload=b". Times are
// Go durations; keys are workload (or mix) and clients. Phases must be in
// increasing time order.
func ParsePhases(s string) ([]Phase, error) {
	var out []Phase
	for _, part := range strings.Split(s, ";") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		at, kvs, ok := strings.Cut(part, ":")
		if !ok {
			return nil, fmt.Errorf("%w: %q: want TIME:key=value[,key=value], e.g. 620s:workload=b", ErrBadPhases, part)
		}
		d, err := time.ParseDuration(strings.TrimSpace(at))
		if err != nil || d < 0 {
			return nil, fmt.Errorf("%w: %q: time %q is not a non-negative duration such as 620s", ErrBadPhases, part, at)
		}
		ph := Phase{At: d}
		for _, kv := range strings.Split(kvs, ",") {
			k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
			if !ok || v == "" {
				return nil, fmt.Errorf("%w: %q: %q is not key=value", ErrBadPhases, part, kv)
			}
			switch strings.ToLower(k) {
			case "workload", "mix":
				ph.Mix = v
			case "clients":
				n, err := strconv.Atoi(v)
				if err != nil || n < 1 {
					return nil, fmt.Errorf("%w: %q: clients %q must be a whole number >= 1", ErrBadPhases, part, v)
				}
				ph.Clients = n
			default:
				return nil, fmt.Errorf("%w: %q: unknown key %q (known: workload, clients)", ErrBadPhases, part, k)
			}
		}
		if ph.Mix == "" && ph.Clients == 0 {
			return nil, fmt.Errorf("%w: %q changes nothing", ErrBadPhases, part)
		}
		if len(out) > 0 && d <= out[len(out)-1].At {
			return nil, fmt.Errorf("%w: %q: phase times must increase", ErrBadPhases, part)
		}
		out = append(out, ph)
	}
	if len(out) == 0 && strings.TrimSpace(s) != "" {
		return nil, fmt.Errorf("%w: %q holds no phase", ErrBadPhases, s)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].At < out[j].At })
	return out, nil
}
