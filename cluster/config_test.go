package cluster_test

import (
	"runtime"
	"strings"
	"testing"

	"github.com/decongestant/decongestant/cluster"
)

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name    string
		cfg     cluster.Config
		wantErr string // "" = valid
	}{
		{"defaults", cluster.Config{Dir: "d"}, ""},
		{"full", cluster.Config{Dir: "d", Members: 7, BasePort: 27017, CacheSizeGB: 1, CPU: 0.35, ReplSet: "rs-1.a_b"}, ""},
		{"no dir", cluster.Config{}, "dir is required"},
		{"negative members", cluster.Config{Dir: "d", Members: -1}, "members -1"},
		{"too many members", cluster.Config{Dir: "d", Members: 8}, "members 8"},
		{"negative port", cluster.Config{Dir: "d", BasePort: -1}, "base port -1"},
		{"port too high", cluster.Config{Dir: "d", BasePort: 70000}, "base port 70000"},
		{"ports overflow", cluster.Config{Dir: "d", BasePort: 65534, Members: 3}, "no room"},
		{"last port fits", cluster.Config{Dir: "d", BasePort: 65533, Members: 3}, ""},
		{"small cache", cluster.Config{Dir: "d", CacheSizeGB: 0.1}, "cache size 0.1"},
		{"negative cache", cluster.Config{Dir: "d", CacheSizeGB: -1}, "cache size -1"},
		{"negative cpu", cluster.Config{Dir: "d", CPU: -0.5}, "cpu -0.5"},
		{"tiny cpu", cluster.Config{Dir: "d", CPU: 0.001}, "cpu 0.001"},
		{"too much cpu", cluster.Config{Dir: "d", CPU: float64(runtime.NumCPU()) + 1}, "exceeds"},
		{"all cpus", cluster.Config{Dir: "d", CPU: float64(runtime.NumCPU())}, ""},
		{"bad replset", cluster.Config{Dir: "d", ReplSet: "rs/0"}, "replica set name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("Validate: %v, want nil", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("Validate: %v, want an error containing %q", err, tt.wantErr)
			}
		})
	}
}
