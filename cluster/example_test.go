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
	// Output:
	// true
	// n1 PRIMARY true
}
