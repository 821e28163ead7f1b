package balancer

import (
	"testing"
)

func TestExplore(t *testing.T) {
	ws := open(3000)
	ws.writeUtil, ws.writes = 0.95, 200
	wm := open(6000)
	wm.writeUtil, wm.writes = 0.3, 1000
	models := map[string]loadModel{
		"open13000":  open(13000),
		"open10000":  open(10000),
		"writes0.3":  wm,
		"ps64":       psModel{hosts: modelHosts, mu: []float64{5000, 5000, 5000}, clients: 64, think: 0.001, rtt: modelRT},
		"ps64think0": psModel{hosts: modelHosts, mu: []float64{5000, 5000, 5000}, clients: 64, think: 0, rtt: modelRT},
		"ps180":      psModel{hosts: modelHosts, mu: []float64{5000, 5000, 5000}, clients: 180, think: 0.001, rtt: modelRT},
		"ps64uneven": psModel{hosts: modelHosts, mu: []float64{3500, 7000, 2000}, clients: 64, think: 0.001, rtt: modelRT},
		"ps64slow3":  psModel{hosts: modelHosts, mu: []float64{5000, 5000, 2000}, clients: 64, think: 0.001, rtt: modelRT},
		"ps16uneven": psModel{hosts: modelHosts, mu: []float64{3500, 7000, 2000}, clients: 16, think: 0.001, rtt: modelRT},
	}
	for _, db := range []float64{0, 0.3} {
		for name, m := range models {
			s := newSpillway(t, func(c *SpillwayConfig) { c.Deadband = db })
			s.ObserveLag(freshPoll)
			from := s.Weights()
			wsx, _ := simulate(s, m, 300)
			best, bw := bestStatic(m, modelHosts)
			mean := meanLatencyOver(m, from, wsx, 31)
			t.Logf("db %.1f %-11s ratio %.3f settled %3d flips %d last %v best %v", db, name, mean/best, settledAfter(from, wsx), reversals(from, wsx, settledAfter(from, wsx), 1e-3), wsx[len(wsx)-1], bw)
		}
	}
}
