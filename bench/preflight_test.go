package bench

import (
	"errors"
	"strings"
	"testing"

	"github.com/decongestant/decongestant/cluster"
)

func TestMatchSet(t *testing.T) {
	members := []cluster.Member{{Name: "n1", Host: "127.0.0.1:5001"}, {Name: "n2", Host: "127.0.0.1:5002"}, {Name: "n3", Host: "127.0.0.1:5003"}}
	tests := []struct {
		name string
		h    helloSet
		say  string // "" = the same set
	}{
		{"same set", helloSet{SetName: "rs0", Hosts: []string{"127.0.0.1:5002", "127.0.0.1:5001", "127.0.0.1:5003"}}, ""},
		{"passive and arbiter members count", helloSet{SetName: "rs0", Hosts: []string{"127.0.0.1:5001"},
			Passives: []string{"127.0.0.1:5002"}, Arbiters: []string{"127.0.0.1:5003"}}, ""},
		{"another name", helloSet{SetName: "rs1", Hosts: []string{"127.0.0.1:5001", "127.0.0.1:5002", "127.0.0.1:5003"}},
			`--uri points at replica set "rs1" (127.0.0.1:5001,127.0.0.1:5002,127.0.0.1:5003), but the cluster in /d is "rs0"`},
		{"other hosts", helloSet{SetName: "rs0", Hosts: []string{"127.0.0.1:6001", "127.0.0.1:6002", "127.0.0.1:6003"}},
			"fault actions would hit another set"},
		{"a member fewer", helloSet{SetName: "rs0", Hosts: []string{"127.0.0.1:5001", "127.0.0.1:5002"}}, "another set"},
		{"not a replica set", helloSet{}, `replica set ""`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := matchSet(tt.h, "rs0", members, "/d")
			if tt.say == "" && err != nil || tt.say != "" && (!errors.Is(err, ErrBadOptions) || !strings.Contains(err.Error(), tt.say)) {
				t.Fatalf("matchSet: %v, want %q", err, tt.say)
			}
		})
	}
}
