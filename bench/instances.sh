#!/usr/bin/env bash
# Many application instances against one replica set: INSTANCES processes of
# `decongestant bench ycsb`, each its own driver, router and CLIENTS closed-loop
# clients, all running the same policy at the same time; then the next policy;
# the whole round REPEAT times. Each instance's router sees only its own
# operations in flight; the members' times see everyone's. The instances'
# results go to OUT/<policy>-r<rep>-i<n>.json, and OUT/instances.json sums
# them per policy and repetition: reads/s and writes/s added up, errors added
# up, served_by added over the periods after the warm-up, and each instance's
# read P80 and P99 beside the total.
#
# usage: bench/instances.sh [-n INSTANCES] [-c CLIENTS] [-d DURATION] [-w WARMUP]
#                           [-r REPEAT] [-o OUT] URI POLICY... [-- BENCH-FLAGS...]
#   defaults: -n 4 -c 16 -d 40s -w 10s -r 3 -o instances-out
#   DEC names the decongestant binary (default: decongestant on PATH).
#   The data must be loaded (the instances run with --skip-load), e.g. by one
#   `decongestant bench ycsb --uri URI --records N --policies primary --duration 1s --period 1s`.
# example:
#   bench/instances.sh -o /tmp/inst "$URI" leastwait nearest:1s -- --records 50000 --workload b
set -euo pipefail

n=4 clients=16 duration=40s warmup=10s repeat=3 out=instances-out
while getopts n:c:d:w:r:o:h opt; do
	case $opt in
	n) n=$OPTARG ;; c) clients=$OPTARG ;; d) duration=$OPTARG ;; w) warmup=$OPTARG ;;
	r) repeat=$OPTARG ;; o) out=$OPTARG ;;
	h) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "instances.sh: -h for usage" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
if [ $# -lt 2 ]; then
	echo "instances.sh: need a URI and at least one policy (-h for usage)" >&2
	exit 2
fi
uri=$1
shift
policies=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do policies+=("$1"); shift; done
[ $# -gt 0 ] && shift
extra=("$@")
dec=${DEC:-decongestant}
command -v "$dec" >/dev/null || { echo "instances.sh: $dec not found (set DEC)" >&2; exit 2; }
command -v jq >/dev/null || { echo "instances.sh: needs jq" >&2; exit 2; }
case $n$clients$repeat in *[!0-9]*) echo "instances.sh: -n, -c and -r take whole numbers" >&2; exit 2 ;; esac
mkdir -p "$out"
records=$out/.records.jsonl
: >"$records"

pids=()
stop() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap 'stop; exit 130' INT TERM
trap stop EXIT

for rep in $(seq 1 "$repeat"); do
	for pol in "${policies[@]}"; do
		safe=${pol//[^A-Za-z0-9_.=-]/_}
		echo "round $rep/$repeat: $pol on $n instances x $clients clients for $duration" >&2
		pids=()
		for i in $(seq 1 "$n"); do
			"$dec" bench ycsb --uri "$uri" --skip-load --clients "$clients" --duration "$duration" \
				--warmup "$warmup" --seed "$((rep * 100 + i))" --policies "$pol" \
				--out "$out/$safe-r$rep-i$i.json" "${extra[@]}" >"$out/$safe-r$rep-i$i.log" 2>&1 &
			pids+=($!)
		done
		failed=0
		for p in "${pids[@]}"; do wait "$p" || failed=1; done
		pids=()
		if [ $failed = 1 ]; then
			echo "instances.sh: an instance failed; see $out/$safe-r$rep-i*.log" >&2
			exit 1
		fi
		for i in $(seq 1 "$n"); do
			jq -c --argjson rep "$rep" --argjson i "$i" '.runs[0] + {repetition: $rep, instance: $i}' \
				"$out/$safe-r$rep-i$i.json" >>"$records"
		done
	done
done

# Sum the instances of each (policy, repetition).
warm=$(jq -n --arg w "$warmup" '$w | capture("^(?<v>[0-9.]+)(?<u>ms|s|m)$") |
	(.v | tonumber) * ({"ms": 0.001, "s": 1, "m": 60}[.u])')
tmp=$(mktemp "$out/.instances.XXXXXX")
jq -s --argjson warm "$warm" --argjson n "$n" --argjson clients "$clients" '
	group_by([.policy, .repetition]) | map({
		policy: .[0].policy, repetition: .[0].repetition, instances: length,
		read_tput: (map(.summary.read_tput) | add),
		write_tput: (map(.summary.write_tput) | add),
		errors: (map(.summary.errors) | add),
		bound_violations: (map(.summary.bound_violations) | add),
		secondary_pct: ((map(.summary.secondary_pct * .summary.read_tput) | add) / (map(.summary.read_tput) | add)),
		read_p80_ms: map(.summary.read_p80_ms), read_p99_ms: map(.summary.read_p99_ms),
		served_by: ([.[].periods[] | select(.t_s > $warm) | .served_by // {} | to_entries[]]
			| group_by(.key) | map({key: .[0].key, value: (map(.value) | add)}) | from_entries)
	}) | {instances: $n, clients_each: $clients, runs: .}' "$records" >"$tmp"
mv "$tmp" "$out/instances.json"
jq -r '.runs | group_by(.policy)[] | "\(.[0].policy): reads/s \(map(.read_tput | floor) | join(", ")); served_by \(map(.served_by | tostring) | join(" "))"' "$out/instances.json"
