package balancer

import "time"

// window keeps, per key, the least value of each of the last n periods and
// answers the least over them: a sliding minimum filter.
type window struct {
	n    int
	slot int
	by   map[string][]time.Duration
}

func newWindow(n int) *window {
	return &window{n: max(n, 1), slot: -1, by: map[string][]time.Duration{}}
}

// advance starts a period: its slot is cleared for every key.
func (w *window) advance() {
	w.slot = (w.slot + 1) % w.n
	for _, ring := range w.by {
		ring[w.slot] = 0
	}
}

// add records v (0 = none) for key in the current period.
func (w *window) add(key string, v time.Duration) {
	if v <= 0 || w.slot < 0 {
		return
	}
	ring, ok := w.by[key]
	if !ok {
		ring = make([]time.Duration, w.n)
		w.by[key] = ring
	}
	if ring[w.slot] == 0 || v < ring[w.slot] {
		ring[w.slot] = v
	}
}

// forget drops key's values.
func (w *window) forget(key string) { delete(w.by, key) }

// least returns key's least value over the window, 0 when none.
func (w *window) least(key string) time.Duration {
	var out time.Duration
	for _, v := range w.by[key] {
		if v > 0 && (out == 0 || v < out) {
			out = v
		}
	}
	return out
}
