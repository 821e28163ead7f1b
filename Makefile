# The two commands a newcomer needs:
#   make demo   start a capped local replica set, compare primary / secondary / decongestant / spillway
#               on YCSB-B, write demo-out/results.json and demo-out/report.html, tear the cluster down
#   make test   the whole test suite (starts and stops its own mongod processes); `go test -short ./...`
#               is the fast loop without mongod
GO ?= go

.PHONY: demo test build bench-route mongod

demo:
	$(GO) run ./cmd/decongestant demo

test:
	$(GO) test ./... -count=1 -timeout 25m

build:
	$(GO) build -o bin/decongestant ./cmd/decongestant

# The routing hot path benchmark (coin flip + handle + sample).
bench-route:
	$(GO) test ./router/ -run '^$$' -bench Route -benchmem

# Fetch mongod (if none is given by MONGOD or PATH) and print its path.
mongod:
	$(GO) run ./cmd/decongestant mongod
