#!/usr/bin/env bash
# The MongoDB drivers' specification tests (pymongo 4.10.1's copy, with its runner) against a local
# replica set, directly and through the decongestant proxy (started with --enable-test-commands, so the
# tests' failCommand fail points fail the proxy, as they would a mongos). Not part of `make test`.
#
#   proxy/testdata/spec/run.sh [OUT.json] [SUITE...]
#
# OUT.json (default docs/results/spec-tests.json) gets passed/failed/skipped and seconds per suite and
# target, OUT.txt the same as a table, OUT-junit/ the runner's JUnit files (failures with their
# messages). SUITEs (default all): transactions convenient-transactions retryable-writes
# retryable-reads sessions causal-consistency change-streams crud command-monitoring.
# Environment: SPEC_WORK (default /tmp/decongestant-spec): the set, the venv and pymongo's sources;
# SPEC_TARGETS (default "direct proxy"); SPEC_PROXY_ARGS: more flags for the proxy (e.g. --policy primary);
# SPEC_NOTE: a line for the results. summarize.py alone re-summarises (or merges) JUnit directories.
# Needs go, python3 with venv, and network access to PyPI the first time.
set -euo pipefail

root=$(cd "$(dirname "$0")/../../.." && pwd)
out=${1:-$root/docs/results/spec-tests.json}
shift || true
suites=("$@")
[ ${#suites[@]} -gt 0 ] || suites=(transactions convenient-transactions retryable-writes retryable-reads sessions causal-consistency change-streams crud command-monitoring)
targets=(${SPEC_TARGETS:-direct proxy})
work=${SPEC_WORK:-/tmp/decongestant-spec}
mkdir -p "$work"
junit="${out%.json}-junit"
rm -rf "$junit" && mkdir -p "$junit"

# pymongo's sources (the tests and their runner) and the runner's dependencies, once.
src=$work/pymongo-4.10.1
if [ ! -d "$src/test" ]; then
	python3 -m venv "$work/venv"
	"$work/venv/bin/pip" install -q pytest==8.3.4 pytest-asyncio==0.24.0
	"$work/venv/bin/pip" download -q --no-binary :all: --no-deps pymongo==4.10.1 -d "$work"
	tar -xzf "$work/pymongo-4.10.1.tar.gz" -C "$work"
fi
# The transactions test module runs two directories; one module per suite here.
cat >"$src/test/test_spec_transactions.py" <<'PY'
import os
from test.unified_format import generate_test_classes
globals().update(generate_test_classes(os.path.join(os.path.dirname(__file__), "transactions", "unified"), module=__name__))
PY
cat >"$src/test/test_spec_convenient_transactions.py" <<'PY'
import os
from test.unified_format import generate_test_classes
globals().update(generate_test_classes(os.path.join(os.path.dirname(__file__), "transactions-convenient-api", "unified"), module=__name__))
PY

suite_tests() {
	case $1 in
	transactions) echo test/test_spec_transactions.py ;;
	convenient-transactions) echo test/test_spec_convenient_transactions.py ;;
	retryable-writes) echo test/test_retryable_writes_unified.py ;;
	retryable-reads) echo test/test_retryable_reads_unified.py ;;
	sessions) echo test/test_sessions_unified.py ;;
	causal-consistency) echo test/test_session.py::TestCausalConsistency ;;
	change-streams) echo test/test_change_stream.py ;;
	crud) echo test/test_crud_unified.py ;;
	command-monitoring) echo test/test_command_monitoring.py ;;
	*) echo "run.sh: unknown suite $1" >&2; return 1 ;;
	esac
}
for s in "${suites[@]}"; do suite_tests "$s" >/dev/null; done

bin=$work/decongestant
(cd "$root" && go build -o "$bin" ./cmd/decongestant)
rs=$work/rs
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	"$bin" cluster down --dir "$rs" >/dev/null 2>&1 || true
}
trap cleanup EXIT
"$bin" cluster down --dir "$rs" >/dev/null 2>&1 || true
uri=$("$bin" cluster up --dir "$rs" | tail -n 1)
primary=$(python3 -c 'import sys, pymongo; c = pymongo.MongoClient(sys.argv[1]); print("%s:%d" % c.primary if c.admin.command("ping") else "")' "$uri")

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$bin" proxy --uri "$uri" --listen "127.0.0.1:$port" --enable-test-commands ${SPEC_PROXY_ARGS:-} >"$work/proxy.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do
	python3 -c 'import socket, sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1)' "$port" 2>/dev/null && break
	sleep 0.3
done

for s in "${suites[@]}"; do
	for t in "${targets[@]}"; do
		case $t in
		direct) host=${primary%:*} p=${primary##*:} ;;
		proxy) host=127.0.0.1 p=$port ;;
		*) echo "run.sh: unknown target $t" >&2; exit 2 ;;
		esac
		echo "== $s $t ($host:$p)" >&2
		start=$(date +%s.%N)
		(cd "$src" && DB_IP=$host DB_PORT=$p "$work/venv/bin/python" -m pytest -q -p no:cacheprovider \
			--junitxml="$junit/$s-$t.xml" $(suite_tests "$s") >"$junit/$s-$t.log" 2>&1) || true
		end=$(date +%s.%N)
		echo "$s $t $start $end" >>"$junit/times"
		tail -n 1 "$junit/$s-$t.log" >&2
	done
done

python3 "$(dirname "$0")/summarize.py" "$junit" "$out"
