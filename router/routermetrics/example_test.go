package routermetrics_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/decongestant/decongestant/balancer"
	"github.com/decongestant/decongestant/router"
	"github.com/decongestant/decongestant/router/routermetrics"
)

// Serve the metrics of a router connected to the replica set
// $DECONGESTANT_URI names on :9464/metrics, from a registry of your own. It
// serves until the program ends, so it has no Output comment; TestExampleNew
// runs it against a real set and scrapes it (Example_scrape shows what a
// scrape holds).
func ExampleNew() {
	ctx := context.Background()
	r, err := router.Connect(ctx, os.Getenv("DECONGESTANT_URI"))
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close(ctx)

	reg := prometheus.NewRegistry()
	reg.MustRegister(routermetrics.New(r))
	http.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	log.Fatal(http.ListenAndServe(":9464", nil))
}

// fixed is a Source that always has the same Stats: it stands in for a
// *router.Router, so the example runs without a replica set.
type fixed router.Stats

func (f fixed) Stats() router.Stats { return router.Stats(f) }

// What a scrape shows of a router that sent 30 reads to the primary and 12
// to a secondary 1.5 s behind, with a quarter of the reads allowed to
// secondaries (a few of the series).
func Example_scrape() {
	st := router.Stats{Policy: "decongestant", Mode: balancer.Split, Fraction: 0.25,
		Served: router.Served{Primary: 30, Secondary: 12},
		Members: []router.MemberStats{
			{Host: "h1:27017", Name: "n1", Role: balancer.Primary, Served: 30, LagKnown: true},
			{Host: "h2:27017", Name: "n2", Role: balancer.Secondary, Served: 12, Lag: 1500 * time.Millisecond, LagKnown: true},
		},
	}
	st.Lag.Known = true
	reg := prometheus.NewRegistry()
	reg.MustRegister(routermetrics.New(fixed(st)))

	rec := httptest.NewRecorder()
	promhttp.HandlerFor(reg, promhttp.HandlerOpts{}).ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	for _, line := range strings.Split(rec.Body.String(), "\n") {
		for _, name := range []string{"decongestant_fraction", "decongestant_lag_known", "decongestant_member_lag_seconds", "decongestant_reads_total"} {
			if strings.HasPrefix(line, name+" ") || strings.HasPrefix(line, name+"{") {
				fmt.Println(line)
			}
		}
	}
	// Output:
	// decongestant_fraction 0.25
	// decongestant_lag_known 1
	// decongestant_member_lag_seconds{member="h1:27017"} 0
	// decongestant_member_lag_seconds{member="h2:27017"} 1.5
	// decongestant_reads_total{role="other"} 0
	// decongestant_reads_total{role="primary"} 30
	// decongestant_reads_total{role="secondary"} 12
}
