package bench

import (
	"context"
	"fmt"
	"strings"

	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/decongestant/decongestant/balancer"
	"github.com/decongestant/decongestant/monitor"
)

// checkWeights checks that every member a weights: policy names is in the
// replica set, before anything is loaded; client is connected to o's URI.
func checkWeights(ctx context.Context, client *mongo.Client, o *Options, reads []string) error {
	specs := o.Policies
	var members []monitor.ConfigMember
	if len(reads) > 0 {
		var err error
		if members, err = monitor.Members(ctx, client, o.URI, o.ClientOptions...); err != nil {
			return err
		}
		if err := unknownKeys(reads, members); err != nil {
			return fmt.Errorf("%w: reads=: %v", ErrBadPhases, err)
		}
	}
	for _, sp := range specs {
		sw, ok := sp.New().(*balancer.StaticWeights)
		if !ok {
			continue
		}
		if members == nil {
			var err error
			if members, err = monitor.Members(ctx, client, o.URI, o.ClientOptions...); err != nil {
				return err
			}
		}
		if err := unknownKeys(sw.Keys(), members); err != nil {
			return fmt.Errorf("%w %q: %v", balancer.ErrInvalidPolicy, sp, err)
		}
	}
	return nil
}

// unknownKeys reports the keys that name no member.
func unknownKeys(keys []string, members []monitor.ConfigMember) error {
	var unknown, known []string
	for _, m := range members {
		known = append(known, m.Host)
		if m.Name != "" {
			known[len(known)-1] = m.Name + " (" + m.Host + ")"
		}
	}
	for _, k := range keys {
		if strings.EqualFold(k, "primary") {
			continue
		}
		found := false
		for _, m := range members {
			found = found || balancer.Matches(k, m.Host, m.Name)
		}
		if !found {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		return fmt.Errorf("no member %s in the replica set (members: primary, %s)", strings.Join(unknown, ", "), strings.Join(known, ", "))
	}
	return nil
}
