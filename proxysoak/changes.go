package proxysoak

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/decongestant/decongestant/internal/clock"
)

// watcher follows the inserts into the docs collection with a change
// stream through the proxy. When the stream fails with an error the driver
// did not resume from, it opens the stream again after its last resume
// token and counts a resume; events lost that way show as missed.
type watcher struct {
	client *mongo.Client
	coll   *mongo.Collection

	mu      sync.Mutex
	seen    map[string]bool
	resumes int64
	lastErr error
}

// newWatcher opens the change stream before any insert, so that it sees
// them all.
func newWatcher(ctx context.Context, uri string) (*watcher, *mongo.ChangeStream, error) {
	c, err := mongo.Connect(options.Client().ApplyURI(uri).SetAppName("decongestant-soak-changes"))
	if err != nil {
		return nil, nil, fmt.Errorf("change stream: connect: %w", err)
	}
	w := &watcher{client: c, coll: c.Database(dbName).Collection(docsColl), seen: map[string]bool{}}
	cs, err := w.open(ctx, nil)
	if err != nil {
		_ = c.Disconnect(context.Background())
		return nil, nil, fmt.Errorf("change stream: %w", err)
	}
	return w, cs, nil
}

func (w *watcher) open(ctx context.Context, token bson.Raw) (*mongo.ChangeStream, error) {
	pipeline := mongo.Pipeline{{{Key: "$match", Value: bson.D{{Key: "operationType", Value: "insert"}}}}}
	opts := options.ChangeStream().SetMaxAwaitTime(time.Second)
	if token != nil {
		opts.SetStartAfter(token)
	}
	return w.coll.Watch(ctx, pipeline, opts)
}

// run reads the stream until ctx ends.
func (w *watcher) run(ctx context.Context, cs *mongo.ChangeStream) {
	defer func() { _ = w.client.Disconnect(context.Background()) }()
	var token bson.Raw
	for ctx.Err() == nil {
		for cs.Next(ctx) {
			var ev struct {
				Key struct {
					ID string `bson:"_id"`
				} `bson:"documentKey"`
			}
			if err := cs.Decode(&ev); err == nil {
				w.mu.Lock()
				w.seen[ev.Key.ID] = true
				w.mu.Unlock()
			}
			token = cs.ResumeToken()
		}
		if t := cs.ResumeToken(); t != nil {
			token = t
		}
		err := cs.Err()
		_ = cs.Close(context.Background())
		if ctx.Err() != nil {
			return
		}
		w.failed(err)
		for ctx.Err() == nil {
			clock.Sleep(ctx, time.Second)
			var oerr error
			if cs, oerr = w.open(ctx, token); oerr == nil {
				break
			}
			w.failed(oerr)
		}
	}
}

func (w *watcher) failed(err error) {
	if err == nil || errors.Is(err, context.Canceled) {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.resumes++
	w.lastErr = err
}

// missing returns the ids of acked not seen yet.
func (w *watcher) missing(acked map[string]bool) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for id := range acked {
		if !w.seen[id] {
			out = append(out, id)
		}
	}
	return out
}

func (w *watcher) stats(acked map[string]bool, missed []string) ChangeStream {
	w.mu.Lock()
	defer w.mu.Unlock()
	cs := ChangeStream{Expected: int64(len(acked)), Seen: int64(len(w.seen)), Missed: int64(len(missed)), Resumes: w.resumes,
		MissedID: missed[:min(len(missed), 20)]}
	if w.lastErr != nil {
		cs.LastError = w.lastErr.Error()
	}
	return cs
}
