package balancer

import "math"

// allocate splits a read rate demand (reads/s) over members modelled as
// processor-sharing queues of capacity mu[i] (reads/s), each read on member
// i costing an extra penalty[i] seconds, so that the mean cost per read,
// sum_i x_i (1/(mu_i - x_i) + penalty_i) / demand, is least. The optimum
// equalises the marginal costs mu_i/(mu_i - x_i)^2 + penalty_i at a level nu
// over the members in use, which gives x_i = mu_i - sqrt(mu_i/(nu - penalty_i))
// (0 where nu <= penalty_i + 1/mu_i); nu is found by bisection so the x_i sum
// to demand. A demand at or above the total capacity is split in proportion
// to capacity. It returns the shares x_i/demand, summing to 1 (all zero when
// no member has capacity).
func allocate(mu, penalty []float64, demand float64) []float64 {
	out := make([]float64, len(mu))
	var total float64
	for _, m := range mu {
		total += max(m, 0)
	}
	if total <= 0 {
		return out
	}
	if demand <= 0 {
		demand = total * 1e-9
	}
	if demand >= total {
		for i, m := range mu {
			out[i] = max(m, 0) / total
		}
		return out
	}
	load := func(nu float64) float64 {
		var sum float64
		for i, m := range mu {
			sum += rateAt(m, penalty[i], nu)
		}
		return sum
	}
	lo := math.Inf(1)
	for i, m := range mu {
		if m > 0 {
			lo = min(lo, penalty[i]+1/m)
		}
	}
	hi := lo * 2
	for load(hi) < demand {
		hi *= 2
	}
	for range 100 {
		mid := (lo + hi) / 2
		if load(mid) < demand {
			lo = mid
		} else {
			hi = mid
		}
	}
	var sum float64
	for i, m := range mu {
		out[i] = rateAt(m, penalty[i], hi)
		sum += out[i]
	}
	for i := range out {
		out[i] /= sum
	}
	return out
}

// rateAt is the rate member (mu, penalty) takes at marginal cost nu.
func rateAt(mu, penalty, nu float64) float64 {
	if mu <= 0 || nu <= penalty+1/mu {
		return 0
	}
	return mu - math.Sqrt(mu/(nu-penalty))
}
