//go:build !(amd64 || arm64)

package cluster

import (
	"fmt"
	"os"
	"runtime"
)

// fadviseDontNeed is not implemented here: fadvise64's arguments are laid out differently on other
// architectures (32-bit ones split the offset over two registers).
func fadviseDontNeed(*os.File) error {
	return fmt.Errorf("dropping the page cache is not implemented on %s", runtime.GOARCH)
}
