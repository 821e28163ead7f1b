package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/decongestant/decongestant/balancer"
	"github.com/decongestant/decongestant/monitor"
	"github.com/decongestant/decongestant/results"
	"github.com/decongestant/decongestant/router"
)

// show prints a member's server fields, null for nil.
func show(m results.Member) string {
	f := func(p any) string {
		switch v := p.(type) {
		case *int64:
			if v != nil {
				return fmt.Sprint(*v)
			}
		case *float64:
			if v != nil {
				return fmt.Sprint(*v)
			}
		}
		return "null"
	}
	return fmt.Sprintf("requested %s read %s miss %s mb %s written %s ckpt %s cpu %s rss %s", f(m.CachePagesRequested), f(m.CachePagesRead),
		f(m.CacheMissPct), f(m.CacheReadMB), f(m.CacheWrittenMB), f(m.CheckpointMS), f(m.CPUPct), f(m.RSSMB))
}

func TestServerPeriod(t *testing.T) {
	// 2 s by the server's clock, 0.5 s of CPU, 2000 pages requested of
	// which 500 read in (3 MiB), 1.5 MiB written out, a checkpoint of 300 ms
	// completed.
	prev := monitor.ServerStats{PID: 7, UptimeMS: 10_000, PagesRequested: 1000, PagesRead: 100, BytesRead: 1 << 20,
		HasCache: true, BytesWritten: 1 << 20, CheckpointMS: 700, HasWritten: true, HasCheckpoint: true,
		CPU: 4 * time.Second, HasCPU: true, ResidentMB: 90, HasResident: true, Role: balancer.Primary, Name: "n1"}
	cur := prev
	cur.UptimeMS, cur.PagesRequested, cur.PagesRead, cur.BytesRead, cur.CPU, cur.ResidentMB = 12_000, 3000, 600, 4<<20, 4500*time.Millisecond, 120
	cur.BytesWritten, cur.CheckpointMS = 5<<19, 1000
	with := func(f func(*monitor.ServerStats)) monitor.ServerStats {
		s := cur
		f(&s)
		return s
	}
	tests := []struct {
		name string
		prev *monitor.ServerStats
		cur  monitor.ServerStats
		want string
	}{
		{"a period", &prev, cur, "requested 2000 read 500 miss 25 mb 3 written 1.5 ckpt 300 cpu 25 rss 120"},
		{"the first poll: no start", nil, cur, "requested null read null miss null mb null written null ckpt null cpu null rss 120"},
		{"nothing requested: no miss rate", &prev, with(func(s *monitor.ServerStats) { s.PagesRequested, s.PagesRead, s.BytesRead = 1000, 100, 1<<20 }),
			"requested 0 read 0 miss null mb 0 written 1.5 ckpt 300 cpu 25 rss 120"},
		{"restarted: another pid", &prev, with(func(s *monitor.ServerStats) { s.PID = 8 }),
			"requested null read null miss null mb null written null ckpt null cpu null rss 120"},
		{"restarted: uptime back", &prev, with(func(s *monitor.ServerStats) { s.UptimeMS = 900 }),
			"requested null read null miss null mb null written null ckpt null cpu null rss 120"},
		{"restarted: a counter back", &prev, with(func(s *monitor.ServerStats) { s.PagesRead = 50 }),
			"requested null read null miss null mb null written null ckpt null cpu null rss 120"},
		{"restarted: CPU back", &prev, with(func(s *monitor.ServerStats) { s.CPU = time.Second }),
			"requested null read null miss null mb null written null ckpt null cpu null rss 120"},
		{"restarted: bytes written back", &prev, with(func(s *monitor.ServerStats) { s.BytesWritten = 0 }),
			"requested null read null miss null mb null written null ckpt null cpu null rss 120"},
		{"restarted: checkpoint time back", &prev, with(func(s *monitor.ServerStats) { s.CheckpointMS = 0 }),
			"requested null read null miss null mb null written null ckpt null cpu null rss 120"},
		{"no CPU on this platform, no cache, no RSS", &prev, with(func(s *monitor.ServerStats) {
			s.HasCPU, s.HasCache, s.HasResident, s.HasWritten, s.HasCheckpoint = false, false, false, false, false
		}),
			"requested null read null miss null mb null written null ckpt null cpu null rss null"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := serverPeriod("h1:1", tt.prev, tt.cur)
			if got := show(m); got != tt.want {
				t.Errorf("%s\nwant %s", got, tt.want)
			}
			if m.Host != "h1:1" || m.Name != "n1" || m.Role != "primary" {
				t.Errorf("member %s %s %s, want h1:1 n1 primary", m.Host, m.Name, m.Role)
			}
		})
	}
}

// TestWithServer: routed members get their server counters by host (their
// own role and name kept); a member only serverStatus lists is added.
func TestWithServer(t *testing.T) {
	cpu := func(v float64) results.Member { return results.Member{CPUPct: &v} }
	routed := []results.Member{{Host: "h1:1", Name: "n1", Role: "primary", Served: 10}, {Host: "h2:2", Role: "secondary"}}
	s1, s2, s3 := cpu(50), cpu(3), cpu(1)
	s1.Host, s1.Name, s1.Role = "h1:1", "n1", "secondary" // serverStatus answered after a stepdown: the routed role stands
	written, ckpt := 1.5, 300.0
	s1.CacheWrittenMB, s1.CheckpointMS = &written, &ckpt
	s2.Host, s2.Name, s2.Role = "h2:2", "n2", "secondary"
	s3.Host, s3.Name, s3.Role = "h3:3", "n3", "other"
	got := withServer(routed, []results.Member{s1, s2, s3})
	if len(got) != 3 {
		t.Fatalf("%d members, want 3: %+v", len(got), got)
	}
	for i, want := range []struct {
		host, name, role string
		served           int64
		cpu              float64
	}{{"h1:1", "n1", "primary", 10, 50}, {"h2:2", "n2", "secondary", 0, 3}, {"h3:3", "n3", "other", 0, 1}} {
		m := got[i]
		if m.Host != want.host || m.Name != want.name || m.Role != want.role || m.Served != want.served || m.CPUPct == nil || *m.CPUPct != want.cpu {
			t.Errorf("member %d: %+v, want %+v", i, m, want)
		}
	}
	if m := got[0]; m.CacheWrittenMB == nil || *m.CacheWrittenMB != 1.5 || m.CheckpointMS == nil || *m.CheckpointMS != 300 {
		t.Errorf("n1's written MB and checkpoint time not joined: %v %v", m.CacheWrittenMB, m.CheckpointMS)
	}
	if got := withServer([]results.Member{{Host: "h1:1"}}, nil); len(got) != 1 || got[0].CPUPct != nil {
		t.Errorf("no server records: %+v", got)
	}
}

func TestPollHosts(t *testing.T) {
	members := []router.MemberSnapshot{{Host: "h2:2"}, {Host: "h1:1"}}
	lag := monitor.LagSample{Members: []monitor.MemberLag{{Host: "h1:1"}, {Host: "h3:3", State: "RECOVERING"}}}
	if got := pollHosts(members, lag); !reflect.DeepEqual(got, []string{"h1:1", "h2:2", "h3:3"}) {
		t.Errorf("hosts %v", got)
	}
	if got := pollHosts(nil, monitor.LagSample{}); got != nil {
		t.Errorf("no members: %v", got)
	}
}

// TestCgroupMemory reads a member's memory cgroup from a fake /proc and
// cgroup tree: v1 (the memory controller's hierarchy), v2 (the unified
// one), and nothing for a process in a cgroup not its own.
func TestCgroupMemory(t *testing.T) {
	dir := t.TempDir()
	c := cgroupMemory{proc: filepath.Join(dir, "proc"), root: filepath.Join(dir, "cgroup")}
	write := func(path, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name       string
		procCgroup string
		file       string // under root
		content    string
		want       string // MiB, or "null"
	}{
		{"v1", "5:cpu,cpuacct:/decongestant-4000-n1\n4:memory:/decongestant-4000-n1\n0::/\n",
			"memory/decongestant-4000-n1/memory.usage_in_bytes", "314572800\n", "300"},
		{"v1 memory with another controller", "4:memory,hugetlb:/decongestant-4000-n2\n",
			"memory/decongestant-4000-n2/memory.usage_in_bytes", "1048576", "1"},
		{"v2 nested under the session's cgroup", "0::/user.slice/decongestant-4000-n3\n",
			"user.slice/decongestant-4000-n3/memory.current", "524288\n", "0.5"},
		// The member shares the bench's cgroup: its usage is not the member's.
		{"a cgroup not its own", "4:memory:/process_api/1929c3\n0::/\n",
			"memory/process_api/1929c3/memory.usage_in_bytes", "1048576", "null"},
		{"no memory file (no memory cgroup yet)", "4:memory:/decongestant-4000-n4\n", "", "", "null"},
		{"no such process", "", "", "", "null"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pid := int64(100 + i)
			if tt.procCgroup != "" {
				write(filepath.Join(c.proc, fmt.Sprint(pid), "cgroup"), tt.procCgroup)
			}
			if tt.file != "" {
				write(filepath.Join(c.root, tt.file), tt.content)
			}
			got := "null"
			if v := c.mb(pid); v != nil {
				got = fmt.Sprint(*v)
			}
			if got != tt.want {
				t.Errorf("%s MiB, want %s", got, tt.want)
			}
		})
	}
	if _, err := cgroupMemoryMB(filepath.Join(dir, "none")); err == nil || !strings.Contains(err.Error(), "memory.current") {
		t.Errorf("no cgroup: err %v, want one naming the files tried", err)
	}
}
