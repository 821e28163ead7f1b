package testutil

import (
	"io"
	"os"
	"testing"
)

// Stdout runs f, which prints to os.Stdout (an Example run by a test, say),
// and returns what it printed. A panic in f fails the test with the output so
// far. Tests that call Stdout must not run in parallel with others that print.
func Stdout(tb testing.TB, f func()) (out string) {
	tb.Helper()
	rd, wr, err := os.Pipe()
	if err != nil {
		tb.Fatal(err)
	}
	orig := os.Stdout
	os.Stdout = wr
	done := make(chan string)
	go func() {
		b, _ := io.ReadAll(rd)
		done <- string(b)
	}()
	defer func() {
		os.Stdout = orig
		wr.Close()
		out = <-done
		rd.Close()
		if p := recover(); p != nil {
			tb.Fatalf("panic: %v (printed %q)", p, out)
		}
	}()
	f()
	return ""
}
