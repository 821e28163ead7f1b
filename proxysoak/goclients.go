package proxysoak

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readpref"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"

	"github.com/decongestant/decongestant/internal/clock"
)

// The soak's database and collections: inserts go to docs, the
// transactions' counters to counters.
const (
	dbName       = "soak"
	docsColl     = "docs"
	countersColl = "counters"
)

// goPerClient is how many Go connections share one client (and pool).
const goPerClient = 50

// goClients runs n Go driver connections to uri until ctx ends, each in
// a goroutine of its own, on clients of goPerClient whose pools keep one
// connection per goroutine open.
func goClients(ctx context.Context, o *Options, uri string, n int, rec *recorder) error {
	var clients []*mongo.Client
	defer func() {
		for _, c := range clients {
			_ = c.Disconnect(context.Background())
		}
	}()
	var wg sync.WaitGroup
	for first := 0; first < n; first += goPerClient {
		size := min(goPerClient, n-first)
		c, err := mongo.Connect(options.Client().ApplyURI(uri).SetAppName("decongestant-soak-go").
			SetMinPoolSize(uint64(size)).SetMaxPoolSize(uint64(size)).
			SetWriteConcern(writeconcern.Majority()).SetServerSelectionTimeout(30 * time.Second))
		if err != nil {
			return fmt.Errorf("go clients: connect: %w", err)
		}
		clients = append(clients, c)
		for w := first; w < first+size; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				goWorker(ctx, o, c, w, rec)
			}()
		}
	}
	wg.Wait()
	return nil
}

// goWorker is one Go connection's loop: inserts, secondaryPreferred reads
// of its latest insert, and every TxnEvery-th operation a transaction.
func goWorker(ctx context.Context, o *Options, c *mongo.Client, w int, rec *recorder) {
	rnd := rand.New(rand.NewPCG(uint64(w), 7))
	db := c.Database(dbName)
	docs, counters := db.Collection(docsColl), db.Collection(countersColl)
	reads := db.Collection(docsColl, options.Collection().SetReadPreference(readpref.SecondaryPreferred()))
	var last string
	for seq := 1; ; seq++ {
		if !clock.Sleep(ctx, time.Duration(float64(o.OpInterval)*(0.5+rnd.Float64()))) {
			return
		}
		id := fmt.Sprintf("g%d-%d", w, seq)
		began := time.Now()
		// An operation under way when the run ends finishes (within
		// OpTimeout) and counts: cutting it off would leave its outcome unknown.
		octx, cancel := context.WithTimeout(context.WithoutCancel(ctx), o.OpTimeout)
		var (
			op, wrote string
			err       error
		)
		switch {
		case o.TxnEvery > 0 && seq%o.TxnEvery == 0:
			op = "txn"
			if err = transaction(octx, c, counters, id); err == nil {
				wrote = id
			}
		case last != "" && rnd.Float64() < o.ReadShare:
			op = "read"
			err = reads.FindOne(octx, bson.D{{Key: "_id", Value: last}}).Err()
			if err == mongo.ErrNoDocuments {
				err = nil // not replicated yet: a fresh read within the bound may miss it
			}
		default:
			op = "insert"
			if _, err = docs.InsertOne(octx, bson.D{{Key: "_id", Value: id}, {Key: "w", Value: w}}); err == nil {
				wrote, last = id, id
			}
		}
		cancel()
		rec.add(began, time.Since(began), op, errKind(err), wrote)
	}
}

// transaction inserts the counter document id (n: 0, w:majority), then
// increments it once in a transaction run by the driver's convenient API,
// which retries it on TransientTransactionError and its commit on
// UnknownTransactionCommitResult: a label the proxy gives a commit that may
// have run applies it twice.
func transaction(ctx context.Context, c *mongo.Client, counters *mongo.Collection, id string) error {
	if _, err := counters.InsertOne(ctx, bson.D{{Key: "_id", Value: id}, {Key: "n", Value: 0}}); err != nil {
		return err
	}
	s, err := c.StartSession()
	if err != nil {
		return err
	}
	defer s.EndSession(context.Background())
	_, err = s.WithTransaction(ctx, func(ctx context.Context) (any, error) {
		return counters.UpdateOne(ctx, bson.D{{Key: "_id", Value: id}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: 1}}}})
	}, options.Transaction().SetWriteConcern(writeconcern.Majority()))
	return err
}
