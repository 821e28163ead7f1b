# The two commands a newcomer needs:
#   make demo   start a capped local replica set, compare primary / secondary / nearest:1s / decongestant / leastwait
#               on YCSB-B, write demo-out/results.json and demo-out/report.html, tear the cluster down
#   make test   the whole test suite (starts and stops its own mongod processes); `go test -short ./...`
#               is the fast loop without mongod
# and, for the proxy's parsers, `make fuzz FUZZTIME=5m`: every fuzz target for FUZZTIME each.
GO ?= go

.PHONY: demo test build bench-route mongod fuzz

demo:
	$(GO) run ./cmd/decongestant demo

test:
	$(GO) test ./... -count=1 -timeout 25m

build:
	$(GO) build -buildvcs=true -o bin/decongestant ./cmd/decongestant

# The routing hot path benchmark (coin flip + handle + sample).
bench-route:
	$(GO) test ./router/ -run '^$$' -bench Route -benchmem

# Fetch mongod (if none is given by MONGOD or PATH) and print its path.
mongod:
	$(GO) run ./cmd/decongestant mongod

# Every fuzz target of every package that has one (func FuzzX in a _test.go file), one after
# another, for FUZZTIME each; FUZZFLAGS go to each run (-parallel=1 on a shared machine). The first
# failure stops it, its input saved under that package's testdata/fuzz/FuzzX/ (commit it as a
# regression seed with the fix). Without -fuzz, `go test` runs the committed seeds as ordinary tests.
FUZZTIME ?= 5m
FUZZFLAGS ?=
FUZZPKGS ?= $(shell grep -rl --include='*_test.go' '^func Fuzz' . | xargs -n1 dirname | sort -u)

fuzz:
	@set -e; for pkg in $(FUZZPKGS); do \
		for target in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
			echo "== $$pkg $$target for $(FUZZTIME)"; \
			$(GO) test $$pkg -run '^$$' -fuzz "^$$target\$$" -fuzztime $(FUZZTIME) $(FUZZFLAGS); \
		done; \
	done
