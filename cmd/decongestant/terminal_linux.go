package main

import (
	"bufio"
	"context"
	"errors"
	"os"
	"strings"
	"syscall"
	"unsafe"
)

// isTerminal reports whether f is a terminal.
func isTerminal(f *os.File) bool {
	var t syscall.Termios
	return termios(f, syscall.TCGETS, &t) == nil
}

func termios(f *os.File, req uintptr, t *syscall.Termios) error {
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), req, uintptr(unsafe.Pointer(t))); e != 0 {
		return e
	}
	return nil
}

// readNoEcho reads a line from the terminal f (through r) with echo off,
// restoring the terminal when ctx ends (Ctrl-C) too.
func readNoEcho(ctx context.Context, f *os.File, r *bufio.Reader) (string, error) {
	var old syscall.Termios
	if err := termios(f, syscall.TCGETS, &old); err != nil {
		return "", err
	}
	quiet := old
	quiet.Lflag &^= syscall.ECHO
	if err := termios(f, syscall.TCSETS, &quiet); err != nil {
		return "", err
	}
	defer termios(f, syscall.TCSETS, &old)
	type line struct {
		s   string
		err error
	}
	got := make(chan line, 1)
	go func() { s, err := r.ReadString('\n'); got <- line{s, err} }()
	select {
	case l := <-got:
		if l.err != nil {
			return "", l.err
		}
		return strings.TrimSuffix(strings.TrimSuffix(l.s, "\n"), "\r"), nil
	case <-ctx.Done():
		return "", errors.New("interrupted")
	}
}
