package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/decongestant/decongestant/proxy"
)

const proxyUserLong = `Adds a user clients authenticate to the proxy as (decongestant proxy --users FILE), or sets its
password. The password is read from stdin: one line (typed twice, not echoed, on a terminal).
FILE keeps SCRAM-SHA-256 keys only, never the password, mode 0600.
`

// defineProxyUser defines proxy-user: it adds a user to a proxy users file, or sets an existing
// user's password: the password is read from stdin (one line; without echo and twice when stdin
// is a terminal), never from the arguments, and only its SCRAM-SHA-256 keys are written, mode 0600.
func defineProxyUser(fset *flag.FlagSet) action {
	file := fset.String("file", "", "the users `file` to create or update (required)")
	user := fset.String("user", "", "user `name` (required)")
	db := fset.String("db", "admin", "the user's authentication `database`: clients give it as authSource")
	iterations := fset.Int("iterations", proxy.DefaultIterations, "SCRAM-SHA-256 iteration `count` (at least 4096)")
	check := noArgs("proxy-user", func() error {
		if *file == "" || *user == "" {
			return usageError{errors.New("proxy-user: --file and --user are required")}
		}
		return nil
	})
	return action{check: check, run: func(ctx context.Context, _ []string, stdin io.Reader, stdout, stderr io.Writer) error {
		return setProxyUser(ctx, *file, *user, *db, *iterations, stdin, stdout, stderr)
	}}
}

func setProxyUser(ctx context.Context, file, user, db string, iterations int, stdin io.Reader, stdout, stderr io.Writer) error {
	creds, err := proxy.LoadCredentials(file)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		creds = &proxy.Credentials{}
	case err != nil:
		return fmt.Errorf("proxy-user: %w", err)
	}
	password, err := readPassword(ctx, stdin, stderr, db+"."+user)
	if err != nil {
		return fmt.Errorf("proxy-user: %w", err)
	}
	added, err := creds.SetPassword(user, db, password, iterations)
	if err != nil {
		return fmt.Errorf("proxy-user: %w", err)
	}
	if err := creds.WriteFile(file); err != nil {
		return fmt.Errorf("proxy-user: %w", err)
	}
	verb := "added user"
	if !added {
		verb = "set the password of user"
	}
	fmt.Fprintf(stdout, "%s %s (db %s) in %s; clients connect with mongodb://%s:PASSWORD@HOST:PORT/?authSource=%s\n",
		verb, user, db, file, uriUser(user), db)
	return nil
}

// readPassword reads one line from stdin; from a terminal, it prompts on
// stderr, turns echo off and asks twice.
func readPassword(ctx context.Context, stdin io.Reader, stderr io.Writer, who string) (string, error) {
	if f, ok := stdin.(*os.File); ok && isTerminal(f) {
		r := bufio.NewReader(f)
		fmt.Fprintf(stderr, "password for %s: ", who)
		pw, err := readNoEcho(ctx, f, r)
		fmt.Fprintln(stderr)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(stderr, "again: ")
		again, err := readNoEcho(ctx, f, r)
		fmt.Fprintln(stderr)
		if err != nil {
			return "", err
		}
		if pw != again {
			return "", errors.New("the two passwords differ")
		}
		return pw, checkPassword(pw)
	}
	line, err := bufio.NewReader(stdin).ReadString('\n')
	if err != nil && (!errors.Is(err, io.EOF) || line == "") {
		if errors.Is(err, io.EOF) {
			return "", errors.New("no password on stdin: give it as one line, e.g. from a file: < pw.txt")
		}
		return "", fmt.Errorf("reading the password from stdin: %w", err)
	}
	pw := strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
	return pw, checkPassword(pw)
}

func checkPassword(pw string) error {
	if pw == "" {
		return errors.New("empty password")
	}
	return nil
}

// uriUser percent-encodes what a URI's user name may not hold.
func uriUser(s string) string {
	var b strings.Builder
	for _, c := range []byte(s) {
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-._~", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}
