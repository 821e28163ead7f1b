package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// proxyURIEnv names the environment variable that may give the proxy its
// upstream URI instead of --uri, which every user of the host sees in ps.
const proxyURIEnv = "DECONGESTANT_PROXY_URI"

// maxURIFile bounds what --uri-file reads: a URI, not a data file.
const maxURIFile = 64 << 10

// proxyURI returns the upstream URI from exactly one of --uri (flagURI),
// --uri-file (file) and $DECONGESTANT_PROXY_URI (env, set when envSet). No
// error quotes the URI or the file's content: they hold the password.
func proxyURI(flagURI, file string, env string, envSet bool) (string, error) {
	if err := uriSources(flagURI, file, envSet); err != nil {
		return "", err
	}
	switch {
	case file != "":
		return readURIFile(file)
	case envSet:
		if env = strings.TrimSpace(env); env == "" {
			return "", fmt.Errorf("proxy: $%s is set but empty", proxyURIEnv)
		}
		return env, nil
	}
	return flagURI, nil
}

// uriSources checks that exactly one of --uri, --uri-file and
// $DECONGESTANT_PROXY_URI gives the URI, before anything is read.
func uriSources(flagURI, file string, envSet bool) error {
	var given []string
	if flagURI != "" {
		given = append(given, "--uri")
	}
	if file != "" {
		given = append(given, "--uri-file")
	}
	if envSet {
		given = append(given, "$"+proxyURIEnv)
	}
	switch {
	case len(given) == 0:
		return fmt.Errorf("proxy: --uri is required (or --uri-file FILE, or $%s, which keep the password out of ps)", proxyURIEnv)
	case len(given) > 1:
		return fmt.Errorf("proxy: %s: give the URI one way only", strings.Join(given, " and "))
	}
	return nil
}

// readURIFile reads --uri-file: a file only its owner may read or write
// (mode 0600 or 0400, as --users), holding the URI on one line (surrounding
// white space and a final newline are dropped).
func readURIFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("proxy: --uri-file: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("proxy: --uri-file: %w", err)
	}
	if !st.Mode().IsRegular() {
		return "", fmt.Errorf("proxy: --uri-file %s is not a regular file", path)
	}
	if perm := st.Mode().Perm(); perm&0o077 != 0 {
		return "", fmt.Errorf("proxy: --uri-file %s has mode %04o: it holds the upstream password, so group and others must not read or write it: run chmod 600 %s", path, perm, path)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxURIFile+1))
	if err != nil {
		return "", fmt.Errorf("proxy: --uri-file %s: %w", path, err)
	}
	if len(b) > maxURIFile {
		return "", fmt.Errorf("proxy: --uri-file %s is larger than %d KiB: want one URI", path, maxURIFile>>10)
	}
	uri := strings.TrimSpace(string(b))
	switch {
	case uri == "":
		return "", fmt.Errorf("proxy: --uri-file %s is empty: want the URI on one line", path)
	case strings.ContainsAny(uri, "\r\n"):
		return "", errors.New("proxy: --uri-file " + path + " holds more than one line: want the URI on one line")
	}
	return uri, nil
}
