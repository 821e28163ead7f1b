package cluster_test

import (
	"runtime"
	"slices"
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
		{"cap per member", cluster.Config{Dir: "d", CPUs: []float64{0.35, 0.35, 0.15}}, ""},
		{"uncapped member", cluster.Config{Dir: "d", Members: 2, CPUs: []float64{0, 0.5}}, ""},
		{"caps for too few members", cluster.Config{Dir: "d", CPUs: []float64{0.35, 0.15}}, "cpus lists 2 caps for 3 members"},
		{"caps for too many members", cluster.Config{Dir: "d", Members: 1, CPUs: []float64{0.35, 0.15}}, "cpus lists 2 caps for 1 members"},
		{"cpu and cpus", cluster.Config{Dir: "d", CPU: 0.5, CPUs: []float64{0.35, 0.35, 0.15}}, "both set"},
		{"tiny member cap", cluster.Config{Dir: "d", CPUs: []float64{0.35, 0.35, 0.001}}, "member n3: cpu 0.001 below"},
		{"negative member cap", cluster.Config{Dir: "d", CPUs: []float64{-1, 0.35, 0.35}}, "member n1: cpu -1"},
		{"member cap over the machine", cluster.Config{Dir: "d", CPUs: []float64{0.35, float64(runtime.NumCPU()) + 1, 0.35}}, "member n2: cpu"},
		{"memory cap", cluster.Config{Dir: "d", Memory: 600 << 20}, ""},
		{"memory cap at the minimum", cluster.Config{Dir: "d", Memory: 512 << 20}, ""},
		{"memory cap below the minimum", cluster.Config{Dir: "d", Memory: 512<<20 - 1},
			"memory 512.0M (536870911 bytes) is below the 512M (536870912 bytes) a member needs: its 0.25 GB WiredTiger cache + 256M"},
		{"memory cap below a larger cache's minimum", cluster.Config{Dir: "d", CacheSizeGB: 1, Memory: 1 << 30},
			"memory 1G is below the 1280M (1342177280 bytes) a member needs: its 1 GB WiredTiger cache + 256M"},
		{"negative memory cap", cluster.Config{Dir: "d", Memory: -1}, "memory -1 bytes must be >= 0"},
		{"memory cap per member", cluster.Config{Dir: "d", Memories: []int64{600 << 20, 0, 1 << 30}}, ""},
		{"memory caps for too few members", cluster.Config{Dir: "d", Memories: []int64{600 << 20}}, "memories lists 1 caps for 3 members"},
		{"memory and memories", cluster.Config{Dir: "d", Memory: 600 << 20, Memories: []int64{600 << 20, 0, 0}}, "both set"},
		{"small member memory cap", cluster.Config{Dir: "d", Memories: []int64{600 << 20, 300 << 20, 0}}, "member n2: memory 300M is below the 512M"},
		{"negative member memory cap", cluster.Config{Dir: "d", Memories: []int64{0, 0, -1}}, "member n3: memory -1 bytes"},
		{"auth and TLS", cluster.Config{Dir: "d", Auth: true, TLS: true}, ""},
		{"auth with an application database", cluster.Config{Dir: "d", Auth: true, AppDB: "bench_1"}, ""},
		{"application database without auth", cluster.Config{Dir: "d", AppDB: "bench"}, "without auth"},
		{"bad application database", cluster.Config{Dir: "d", Auth: true, AppDB: "a.b"}, `application database: database name "a.b" holds one of`},
		{"long application database", cluster.Config{Dir: "d", Auth: true, AppDB: strings.Repeat("x", 64)}, "at most 63"},
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

func TestParseCPUs(t *testing.T) {
	tests := []struct {
		in      string
		members int
		want    []float64
		wantErr string
	}{
		{"0.35", 3, []float64{0.35, 0.35, 0.35}, ""},
		{"0", 2, []float64{0, 0}, ""},
		{"0.5", 0, []float64{0.5, 0.5, 0.5}, ""}, // 0 members = the default 3
		{"0.35,0.35,0.15", 3, []float64{0.35, 0.35, 0.15}, ""},
		{" 0.35, 0 ,0.15", 3, []float64{0.35, 0, 0.15}, ""},
		{"0.35,0.15", 3, nil, `"0.35,0.15" lists 2 caps for 3 members`},
		{"0.35,0.15,0.1,0.1", 3, nil, "lists 4 caps for 3 members: give one cap for all members or one per member (n1, n2, n3)"},
		{"0.35,,0.15", 3, nil, `cap "" is not a number`},
		{"lots", 3, nil, `cap "lots" is not a number`},
		{"", 3, nil, "is not a number"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := cluster.ParseCPUs(tt.in, tt.members)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseCPUs(%q, %d): %v, %v; want an error containing %q", tt.in, tt.members, got, err, tt.wantErr)
				}
				return
			}
			if err != nil || !slices.Equal(got, tt.want) {
				t.Fatalf("ParseCPUs(%q, %d): %v, %v; want %v", tt.in, tt.members, got, err, tt.want)
			}
		})
	}
}

func TestMemberCPUs(t *testing.T) {
	tests := []struct {
		name string
		cfg  cluster.Config
		want []float64
	}{
		{"no cap", cluster.Config{}, []float64{0, 0, 0}},
		{"one cap for all", cluster.Config{Members: 2, CPU: 0.35}, []float64{0.35, 0.35}},
		{"per member", cluster.Config{CPUs: []float64{0.35, 0, 0.15}}, []float64{0.35, 0, 0.15}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.cfg.MemberCPUs(); !slices.Equal(got, tt.want) {
				t.Errorf("MemberCPUs: %v, want %v", got, tt.want)
			}
		})
	}
}

func TestParseMemories(t *testing.T) {
	tests := []struct {
		in      string
		members int
		want    []int64
		wantErr string
	}{
		{"600M", 3, []int64{600 << 20, 600 << 20, 600 << 20}, ""},
		{"0", 2, []int64{0, 0}, ""},
		{"1G", 0, []int64{1 << 30, 1 << 30, 1 << 30}, ""}, // 0 members = the default 3
		{"600M,600M,1G", 3, []int64{600 << 20, 600 << 20, 1 << 30}, ""},
		{" 600M, 0 ,1GiB", 3, []int64{600 << 20, 0, 1 << 30}, ""},
		{"600M,1G", 3, nil, `"600M,1G" lists 2 caps for 3 members`},
		{"600M,1G", 1, nil, "lists 2 caps for 1 members: give one cap for all members or one per member (n1)"},
		{"600M,,1G", 3, nil, `"600M,,1G": size "" is not bytes`},
		{"600M,lots,1G", 3, nil, `size "lots" is not bytes or a number with K, M or G`},
		{"600M,-1G,1G", 3, nil, `size "-1G" must not be negative`},
		{"", 3, nil, "is not bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := cluster.ParseMemories(tt.in, tt.members)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseMemories(%q, %d): %v, %v; want an error containing %q", tt.in, tt.members, got, err, tt.wantErr)
				}
				return
			}
			if err != nil || !slices.Equal(got, tt.want) {
				t.Fatalf("ParseMemories(%q, %d): %v, %v; want %v", tt.in, tt.members, got, err, tt.want)
			}
		})
	}
}

func TestMemberMemories(t *testing.T) {
	tests := []struct {
		name string
		cfg  cluster.Config
		want []int64
	}{
		{"no cap", cluster.Config{}, []int64{0, 0, 0}},
		{"one cap for all", cluster.Config{Members: 2, Memory: 600 << 20}, []int64{600 << 20, 600 << 20}},
		{"per member", cluster.Config{Memories: []int64{600 << 20, 0, 1 << 30}}, []int64{600 << 20, 0, 1 << 30}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.cfg.MemberMemories(); !slices.Equal(got, tt.want) {
				t.Errorf("MemberMemories: %v, want %v", got, tt.want)
			}
		})
	}
}

func TestMinMemory(t *testing.T) {
	tests := []struct {
		cacheGB float64
		want    int64
	}{
		{0, 512 << 20}, // the default cache, 0.25 GB
		{0.25, 512 << 20},
		{1, 1280 << 20},
		{1.5, 1792 << 20},
	}
	for _, tt := range tests {
		if got := cluster.MinMemory(tt.cacheGB); got != tt.want {
			t.Errorf("MinMemory(%v) = %s, want %s", tt.cacheGB, cluster.FormatSize(got), cluster.FormatSize(tt.want))
		}
	}
}
