// Package lint holds what the module's own source checks share: finding the module's root and
// walking its Go files. The checks live in its subpackages (gofatal, doccomment); each one's test
// runs it over the whole module, so `go test -short ./...` keeps its rule.
package lint

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// WalkGo calls fn with the path of every Go file under root, skipping testdata, vendor and
// directories whose name starts with "." or "_" (as the go command does), in lexical order.
func WalkGo(root string, fn func(path string) error) error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") {
			return nil
		}
		return fn(path)
	})
}

// ModuleRoot returns the nearest directory at or above the working directory that holds a go.mod.
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}
