package report

import (
	"fmt"

	"github.com/decongestant/decongestant/results"
)

// countInput is the runs of one input at one client count. In a
// client-count sweep (runs with Run.Clients > 0) an input splits into one
// countInput per count; otherwise it is one countInput with clients 0.
type countInput struct {
	clients int
	Input
}

// splitClients splits x by the runs' client counts, in order of first
// appearance (the order the runner ran them). The parts share x's config;
// their names say the count ("results.json, 20 clients").
func splitClients(x Input) []countInput {
	var parts []countInput
	index := map[int]int{}
	for _, run := range x.Results.Runs {
		j, ok := index[run.Clients]
		if !ok {
			j = len(parts)
			index[run.Clients] = j
			r := *x.Results
			r.Runs = nil
			parts = append(parts, countInput{clients: run.Clients, Input: Input{Name: countName(x.Name, run.Clients), Results: &r}})
		}
		parts[j].Results.Runs = append(parts[j].Results.Runs, run)
	}
	if len(parts) == 0 {
		return []countInput{{Input: x}}
	}
	return parts
}

// countName names the runs of input name at a client count.
func countName(name string, clients int) string {
	if clients == 0 {
		return name
	}
	return fmt.Sprintf("%s, %d clients", name, clients)
}

// byClients returns in with every input split by client count: the units
// the time-series and TPC-C plots draw, one panel each.
func byClients(in []Input) []Input {
	var out []Input
	for _, x := range in {
		for _, p := range splitClients(x) {
			out = append(out, p.Input)
		}
	}
	return out
}

// hasClients reports whether any run of r records its client count (a
// sweep), so the tables show a clients column.
func hasClients(r *results.Results) bool {
	for _, run := range r.Runs {
		if run.Clients > 0 {
			return true
		}
	}
	return false
}

// rowsHaveClients reports whether any row is one client count of a sweep.
func rowsHaveClients(rows []row) bool {
	for _, r := range rows {
		if r.clients > 0 {
			return true
		}
	}
	return false
}
