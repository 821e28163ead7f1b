"""Summarise proxy/testdata/spec/run.sh's JUnit files: summarize.py JUNIT_DIR OUT.json.

Writes OUT.json (passed/failed/skipped, seconds and the failed tests' names per suite and target) and
OUT.txt (the same as a table, with the failures listed), from JUNIT_DIR's SUITE-TARGET.xml files and its
"times" file (one line per run: suite target start end, in seconds). Runnable alone on a partial run.
"""
import glob, json, os, sys
import xml.etree.ElementTree as ET

junit, out = sys.argv[1], sys.argv[2]
times = {}
for line in open(os.path.join(junit, "times")):
    s, t, a, b = line.split()
    times[(s, t)] = float(b) - float(a)
rows = []
for (s, t), secs in times.items():
    passed = failed = skipped = 0
    failures = []
    path = os.path.join(junit, f"{s}-{t}.xml")
    if os.path.exists(path):
        for case in ET.parse(path).getroot().iter("testcase"):
            name = case.get("classname", "") + "." + case.get("name", "")
            if case.find("failure") is not None or case.find("error") is not None:
                failed += 1
                failures.append(name)
            elif case.find("skipped") is not None:
                skipped += 1
            else:
                passed += 1
    rows.append({"suite": s, "target": t, "passed": passed, "failed": failed, "skipped": skipped,
                 "seconds": round(secs, 1), "failures": sorted(failures)})
order = ["transactions", "convenient-transactions", "retryable-writes", "retryable-reads", "sessions",
         "causal-consistency", "change-streams", "crud", "command-monitoring"]
rows.sort(key=lambda r: (order.index(r["suite"]) if r["suite"] in order else len(order), r["suite"], r["target"]))
note = os.environ.get("SPEC_NOTE", "")

# Tests that pass directly but fail through the proxy: the ones that matter.
status = {}
for s_, t in times:
    path = os.path.join(junit, f"{s_}-{t}.xml")
    if os.path.exists(path):
        for case in ET.parse(path).getroot().iter("testcase"):
            name = case.get("classname", "") + "." + case.get("name", "")
            bad = case.find("failure") is not None or case.find("error") is not None
            status[(s_, t, name)] = "failed" if bad else ("skipped" if case.find("skipped") is not None else "passed")
regressions = sorted(f"{s_}: {n}" for (s_, t, n), v in status.items()
                     if t == "proxy" and v == "failed" and status.get((s_, "direct", n)) == "passed")
json.dump({"pymongo": "4.10.1", "note": note, "results": rows, "passed_direct_failed_proxy": regressions}, open(out, "w"), indent=1)
with open(out[: -len(".json")] + ".txt", "w") as f:
    f.write("pymongo 4.10.1's specification tests, directly and through the proxy (proxy/testdata/spec/run.sh)\n")
    if note:
        f.write(note + "\n")
    f.write("\n%-24s %-7s %7s %7s %8s %9s\n" % ("suite", "target", "passed", "failed", "skipped", "seconds"))
    for r in rows:
        f.write("%-24s %-7s %7d %7d %8d %9.1f\n" % (r["suite"], r["target"], r["passed"], r["failed"], r["skipped"], r["seconds"]))
    f.write("\npassed directly, failed through the proxy (%d):\n" % len(regressions))
    for n in regressions:
        f.write("  " + n + "\n")
    for r in rows:
        if r["failures"]:
            f.write("\nfailed, %s %s:\n" % (r["suite"], r["target"]))
            for n in r["failures"]:
                f.write("  " + n + "\n")
print(open(out[: -len(".json")] + ".txt").read())
