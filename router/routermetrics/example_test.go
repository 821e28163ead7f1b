package routermetrics_test

import (
	"context"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/decongestant/decongestant/router"
	"github.com/decongestant/decongestant/router/routermetrics"
)

// Serve a router's metrics on :9464/metrics from a registry of your own.
// (Compiled, not run: it needs a replica set.)
func ExampleNew() {
	ctx := context.Background()
	r, err := router.Connect(ctx, "mongodb://h1:27017,h2:27017,h3:27017/?replicaSet=rs0")
	if err != nil {
		panic(err)
	}
	defer r.Close(ctx)

	reg := prometheus.NewRegistry()
	reg.MustRegister(routermetrics.New(r))
	http.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	_ = http.ListenAndServe(":9464", nil)
}
