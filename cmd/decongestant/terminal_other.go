//go:build !linux

package main

import (
	"bufio"
	"context"
	"os"
)

// isTerminal is false off Linux: the password is read as a line, echoed.
func isTerminal(*os.File) bool { return false }

func readNoEcho(context.Context, *os.File, *bufio.Reader) (string, error) { panic("unreachable") }
