package bench

import (
	"context"

	"github.com/decongestant/decongestant/balancer"
	"github.com/decongestant/decongestant/router"
	"github.com/decongestant/decongestant/workload"
)

// routedReads adapts a routed database to workload.Reads.
type routedReads struct {
	rt   *router.Router
	name string
	db   *router.Database
}

func (r routedReads) Collection(name string) workload.ReadCollection { return r.db.Collection(name) }

func (r routedReads) Begin(ctx context.Context) workload.Unit {
	rd := r.rt.Begin(ctx)
	return workload.Unit{Ctx: rd.Ctx, DB: rd.Database(r.name), Secondary: rd.Side == balancer.Secondary,
		Done: func(err error) { rd.Done(err) }}
}
