package consistency

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/decongestant/decongestant/history"
	"github.com/decongestant/decongestant/internal/redact"
	"github.com/decongestant/decongestant/metrics"
	"github.com/decongestant/decongestant/results"
	"github.com/decongestant/decongestant/workload/registers"
)

// RunMatrix runs the consistency thesis' experiment: every cell once per
// iteration, the iterations one after the other and the cells of each in a
// shuffled order, so that a load that drifts or comes and goes over the run (a
// shared machine) spreads over every cell rather than biasing some. Within an
// iteration there is one connection (a router for a policy) per setup, (w, rc)
// pair and read target, shared by the sizes; per size one registers.Run on one
// register with the setup's pure writers and pure readers. Cells MongoDB would
// reject (linearizable reads off the primary) are recorded as skipped. An
// iteration that fails is recorded in its cell's Failed and left out of its
// summary; the error is then a failure to connect, or ctx's, with the cells
// measured so far.
func RunMatrix(ctx context.Context, o MatrixOptions) (*results.Matrix, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if o.URI == "" {
		return nil, fmt.Errorf("%w: a URI is required", ErrBadOptions)
	}
	if o.Progress == nil {
		o.Progress = io.Discard
	}
	start := time.Now()
	m := &results.Matrix{Config: o.record(), StartedAt: start.UTC().Format(time.RFC3339), Cells: o.Plan()}
	m.MongodVersion = mongodVersion(ctx, o.URI)
	for _, c := range m.Cells {
		if c.Skipped != "" {
			fmt.Fprintln(o.Progress, cellLine(c))
		}
	}
	var j *journal
	if o.Journal != "" {
		var err error
		if j, err = openJournal(o.Journal, &o, start, o.Resume); err != nil {
			return nil, err
		}
		defer j.close()
		if err := j.replay(m); err != nil {
			return nil, err
		}
		m.StartedAt, m.Resumed = j.started, len(j.lines)
		if m.Resumed > 0 {
			fmt.Fprintf(o.Progress, "matrix: %d of %d cell iterations from earlier runs in %s; running the rest\n", m.Resumed, o.total(), o.Journal)
		}
	}
	var err error
	for i := range o.Iterations {
		if err = o.runIteration(ctx, m, i, j); err != nil {
			break
		}
	}
	for i := range m.Cells {
		m.Cells[i].Summary = summarize(m.Cells[i].Iterations)
	}
	if ctx.Err() != nil {
		m.Interrupted = true
		m.Cells = dropUnmeasured(m.Cells)
	}
	m.WallS = metrics.Round3(time.Since(start).Seconds())
	return m, err
}

// group is the cells of one connection: a setup and its concerns, every
// size.
type group struct {
	setup    Setup
	concerns Concerns
}

// groups are the matrix's runnable groups in the thesis' order.
func (o *MatrixOptions) groups() []group {
	var out []group
	for _, s := range o.Setups {
		for _, c := range o.pairs() {
			for _, read := range o.Reads {
				c.Read = read
				if !linearizableOffPrimary(c) {
					out = append(out, group{s, c})
				}
			}
		}
	}
	return out
}

// iterationOrder is the order the groups run in iteration i: shuffled
// (reproducibly, from the seed and i), so that neither a setup nor a
// concern always runs at the same point of a load that varies
// periodically or drifts.
func (o *MatrixOptions) iterationOrder(i int) []group {
	gs := o.groups()
	rng := rand.New(rand.NewPCG(o.Seed, uint64(i)))
	rng.Shuffle(len(gs), func(a, b int) { gs[a], gs[b] = gs[b], gs[a] })
	return gs
}

// runIteration measures every runnable cell once. In the last iteration
// each cell's line says its numbers over all iterations; before, each
// connection's line says how long its sizes took.
func (o *MatrixOptions) runIteration(ctx context.Context, m *results.Matrix, i int, j *journal) error {
	last := i == o.Iterations-1
	for _, g := range o.iterationOrder(i) {
		begin := time.Now()
		ran, err := o.runGroup(ctx, m, g.setup, g.concerns, i, j, last)
		if err != nil {
			return err
		}
		if !last && ran {
			fmt.Fprintf(o.Progress, "[%d/%d] %-9s %s: %d sizes in %.1f s\n",
				i+1, o.Iterations, g.setup, g.concerns, len(o.Sizes), time.Since(begin).Seconds())
		}
	}
	return nil
}

// runGroup measures, once (iteration i), the cells of one setup and
// concerns, every size, on one connection, and appends each to the
// journal j; cells j already holds for i are skipped, and a group with
// none left opens no connection (ran false). With lines, it writes each
// cell's line.
func (o *MatrixOptions) runGroup(ctx context.Context, m *results.Matrix, s Setup, c Concerns, i int, j *journal, lines bool) (ran bool, err error) {
	var todo []int
	for _, size := range o.Sizes {
		if j == nil || !j.done[journalKey{i, size, s.String(), c.W, c.RC, c.Read}] {
			todo = append(todo, size)
		} else if lines {
			cell := m.Find(s.String(), size, c.W, c.RC, c.Read)
			cell.Summary = summarize(cell.Iterations)
			fmt.Fprintln(o.Progress, cellLine(*cell))
		}
	}
	if len(todo) == 0 {
		return false, nil
	}
	header := history.Header{Version: history.FormatVersion, Started: time.Now().UTC(), Settings: map[string]string{
		"setup": s.String(), "w": c.W, "rc": c.RC, "read": c.Read, "uri": redact.URI(o.URI)}}
	env, closeEnv, err := openEnv(ctx, envSpec{uri: o.URI, concerns: c, settings: o.Settings, inURI: s.InURI(),
		db: o.Database, coll: "registers", header: header})
	if err != nil {
		return false, fmt.Errorf("%s %s: %w", s, c, err)
	}
	defer closeEnv()
	for _, size := range todo {
		cell := m.Find(s.String(), size, c.W, c.RC, c.Read)
		begin := time.Now()
		h, err := registers.Run(ctx, o.registers(s, size), env, begin)
		if ctx.Err() != nil {
			return true, fmt.Errorf("interrupted: %w", ctx.Err())
		}
		var it *results.MatrixIteration
		if err != nil {
			cell.Failed = append(cell.Failed, err.Error())
		} else {
			measured := measureIteration(h, time.Since(begin))
			cell.Iterations, it = append(cell.Iterations, measured), &measured
		}
		if j != nil {
			if jerr := j.record(i, cell, it, err); jerr != nil {
				return true, fmt.Errorf("journal: %w", jerr)
			}
		}
		if lines {
			cell.Summary = summarize(cell.Iterations)
			fmt.Fprintln(o.Progress, cellLine(*cell))
		}
	}
	return true, nil
}

// record is the options as the results record them.
func (o *MatrixOptions) record() results.MatrixConfig {
	rc := results.MatrixConfig{URI: redact.URI(o.URI), Sizes: o.Sizes, W: o.W, RC: o.RC, Reads: o.Reads,
		Iterations: o.Iterations, Writes: o.Writes,
		WriteIntervalMs: metrics.Round3(metrics.MS(o.WriteInterval)), ReadIntervalMs: metrics.Round3(metrics.MS(o.ReadInterval)),
		MaxStaleness: o.Settings.Decongestant.Bound.String(), WholeReads: o.WholeReads}
	for _, s := range o.Setups {
		rc.Setups = append(rc.Setups, s.Record())
	}
	return rc
}

// dropUnmeasured keeps the cells skipped or measured at least once.
func dropUnmeasured(cells []results.MatrixCell) []results.MatrixCell {
	var out []results.MatrixCell
	for _, c := range cells {
		if c.Skipped != "" || len(c.Iterations) > 0 || len(c.Failed) > 0 {
			out = append(out, c)
		}
	}
	return out
}

// mongodVersion asks the set for its version; "" when it does not answer.
func mongodVersion(ctx context.Context, uri string) string {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	client, err := mongo.Connect(options.Client().ApplyURI(uri).SetServerSelectionTimeout(10 * time.Second))
	if err != nil {
		return ""
	}
	defer func() { _ = client.Disconnect(context.Background()) }()
	var info struct {
		Version string `bson:"version"`
	}
	if err := client.Database("admin").RunCommand(ctx, bson.D{{Key: "buildInfo", Value: 1}}).Decode(&info); err != nil {
		return ""
	}
	return info.Version
}
