package results

import (
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"strings"
)

// Open opens a results file for reading, decompressing it when its name
// ends in .gz (reproduce keeps its runs' files gzipped beside the index).
func Open(path string) (io.ReadCloser, error) {
	f, err := os.Open(path)
	if err != nil || !strings.HasSuffix(path, ".gz") {
		return f, err
	}
	z, err := gzip.NewReader(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return gzipFile{z, f}, nil
}

// gzipFile closes the decompressor and the file under it.
type gzipFile struct {
	*gzip.Reader
	f *os.File
}

func (g gzipFile) Close() error {
	err := g.Reader.Close()
	if cerr := g.f.Close(); err == nil {
		err = cerr
	}
	return err
}
