package monitor

import (
	"context"
	"math/rand/v2"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/decongestant/decongestant/balancer"
	"github.com/decongestant/decongestant/metrics"
)

// startPinger opens a direct connection to host and pings it every
// RTTInterval. Called with m.mu held.
func (m *Monitor) startPinger(host string) error {
	c, err := DirectClient(m.uri, host, "decongestant-rtt", m.cfg.ClientOptions...)
	if err != nil {
		return err
	}
	pctx, cancel := context.WithCancel(m.run)
	m.pingers[host] = &pinger{client: c, cancel: cancel}
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		ping := bson.D{{Key: "ping", Value: 1}}
		for {
			pause := time.Duration((0.5 + rand.Float64()) * float64(m.cfg.RTTInterval))
			t := time.NewTimer(pause)
			select {
			case <-pctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
			cctx, ccancel := context.WithTimeout(pctx, m.cfg.Timeout)
			start := time.Now()
			err := c.Database("admin").RunCommand(cctx, ping).Err()
			d := time.Since(start)
			ccancel()
			if err != nil {
				continue
			}
			m.mu.Lock()
			m.rtt[host] = append(m.rtt[host], d)
			m.mu.Unlock()
		}
	}()
	return nil
}

// memberClient returns the monitor's direct client of host, its pinger's,
// starting the pinger if host has none yet.
func (m *Monitor) memberClient(host string) (*mongo.Client, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if p, ok := m.pingers[host]; ok {
		return p.client, nil
	}
	if err := m.startPinger(host); err != nil {
		return nil, err
	}
	return m.pingers[host].client, nil
}

// RTTByRole splits drained samples by the members' current roles and returns
// the q-quantile of the RTT samples to the primary and of all secondaries'
// samples pooled, by metrics.Quantile (the Decongestant paper, §3.3.1, uses the
// median, q = 0.5; q = 0 is the minimum).
func RTTByRole(samples map[string][]time.Duration, roles map[string]balancer.Side, q float64) (primary, secondary time.Duration) {
	var p, s []time.Duration
	for host, v := range samples {
		switch roles[host] {
		case balancer.Primary:
			p = append(p, v...)
		case balancer.Secondary:
			s = append(s, v...)
		}
	}
	return metrics.Quantile(p, q), metrics.Quantile(s, q)
}
