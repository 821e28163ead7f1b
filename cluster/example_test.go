package cluster_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/decongestant/decongestant/cluster"
)

// ExampleStart starts a one-member replica set, prints whether its URI names the set, then its
// member's state. It prints:
//
//	true
//	n1 PRIMARY true
//
// It starts a real mongod, so it has no Output comment (go test -short, which starts none, would
// fail it); TestExampleStart runs it and checks what it prints.
func ExampleStart() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	tmp, err := os.MkdirTemp("", "example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(tmp)

	c, err := cluster.Start(ctx, cluster.Config{Dir: filepath.Join(tmp, "rs"), Members: 1, DieWithParent: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Down(ctx)

	fmt.Println(strings.HasSuffix(c.URI(), "/?replicaSet=rs0"))
	st, err := c.Status(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, m := range st {
		fmt.Println(m.Name, m.State, m.Alive)
	}
}

// ExampleConfig_MemberCPUs shows the CPU cap (cores) each member is started under: one cap for
// every member, or one per member as `cluster up --cpu` reads them.
func ExampleConfig_MemberCPUs() {
	fmt.Println(cluster.Config{CPU: 0.35}.MemberCPUs())
	caps, err := cluster.ParseCPUs("0.35,0.35,0.15", 3)
	fmt.Println(caps, err)
	fmt.Println(cluster.Config{CPUs: caps}.MemberCPUs())
	// Output:
	// [0.35 0.35 0.35]
	// [0.35 0.35 0.15] <nil>
	// [0.35 0.35 0.15]
}

// ExampleParseMemories reads `cluster up --memory` for three members and shows the smallest cap a
// member with the default 0.25 GB WiredTiger cache is given.
func ExampleParseMemories() {
	caps, err := cluster.ParseMemories("600M,600M,1G", 3)
	fmt.Println(caps, err)
	fmt.Println(cluster.FormatSize(cluster.MinMemory(cluster.DefaultCacheSizeGB)))
	// Output:
	// [629145600 629145600 1073741824] <nil>
	// 512M
}
