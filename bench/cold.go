package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/decongestant/decongestant/cluster"
)

// coldRestarter is a local cluster that can restart a member with cold
// caches (its WiredTiger cache and its files' page cache emptied).
type coldRestarter interface {
	DropCaches(ctx context.Context, member string) error
}

var _ coldRestarter = (*cluster.Cluster)(nil)

// coldTimeout bounds the cold restart of the secondaries before a run.
const coldTimeout = 5 * time.Minute

// coldStart restarts every secondary of the cluster with cold caches and
// waits for a healthy set (Options.ColdStart). The primary is left as it is:
// restarting it would elect another member, and the serving member's cache
// warms in the run's first minutes anyway; what a reconfiguration meets is
// the cache of the member reads move to.
func coldStart(ctx context.Context, o *Options) error {
	cr, ok := o.target.(coldRestarter)
	if !ok || o.target == nil {
		return fmt.Errorf("%w: --cold-start needs a cluster started by `decongestant cluster up` (give its --cluster-dir)", ErrBadOptions)
	}
	ctx, cancel := context.WithTimeout(ctx, coldTimeout)
	defer cancel()
	p, err := o.target.Primary(ctx)
	if err != nil {
		return fmt.Errorf("cold start: %w", err)
	}
	start := time.Now()
	for _, m := range o.target.Members() {
		if m.Name == p.Name {
			continue
		}
		if err := cr.DropCaches(ctx, m.Name); err != nil {
			return fmt.Errorf("cold start of %s: %w", m.Name, err)
		}
	}
	if err := o.target.WaitHealthy(ctx); err != nil {
		return fmt.Errorf("cold start: %w", err)
	}
	fmt.Fprintf(o.Progress, "cold start: secondaries restarted with empty caches in %.1fs\n", time.Since(start).Seconds())
	return nil
}
