package cluster

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadStateRefusesForeignCgroups: Down removes the cgroups a state file names, so a file that
// names any other dir, as a member's cpu or memory cgroup, is refused.
func TestReadStateRefusesForeignCgroups(t *testing.T) {
	tests := []struct {
		name              string
		cgroup, memCgroup string // under cgroupRoot unless absolute
		wantErr           string
	}{
		{"no cgroups", "", "", ""},
		{"ours", "cpu/decongestant-1-n1", "memory/decongestant-1-n1", ""},
		{"v2, one dir for both", "decongestant-1-n1", "decongestant-1-n1", ""},
		{"foreign cpu cgroup", "cpu/system.slice", "", "foreign cgroup (ROOT/cpu/system.slice)"},
		{"foreign memory cgroup", "", "memory/user.slice", "foreign cgroup (ROOT/memory/user.slice)"},
		{"memory cgroup outside the hierarchy", "", "/tmp/decongestant-1-n1", "foreign cgroup (/tmp/decongestant-1-n1)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := fakeRoot(t, map[string]string{})
			dir := t.TempDir()
			abs := func(p string) string {
				if p == "" || filepath.IsAbs(p) {
					return p
				}
				return filepath.Join(root, p)
			}
			m := plannedMembers(dir, []int{1})[0]
			m.Cgroup, m.MemCgroup = abs(tt.cgroup), abs(tt.memCgroup)
			b, err := json.Marshal(state{Version: stateVersion, Members: []Member{m}})
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, stateFile), b, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err = readState(dir)
			want := strings.ReplaceAll(tt.wantErr, "ROOT", root)
			switch {
			case want == "" && err != nil:
				t.Errorf("readState: %v, want nil", err)
			case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
				t.Errorf("readState: %v, want an error containing %q", err, want)
			}
		})
	}
}
