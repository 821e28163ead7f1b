# threads.py OUT: per-thread CPU (utime+stime) of each member over 15 s, grouped by thread name
import os, sys, time, re, collections, json
pids = {'n1': 15511, 'n2': 15512, 'n3': 15514}
tick = os.sysconf('SC_CLK_TCK')
def snap():
    out = {}
    for m, pid in pids.items():
        for tid in os.listdir(f'/proc/{pid}/task'):
            try:
                s = open(f'/proc/{pid}/task/{tid}/stat').read()
            except OSError:
                continue
            name = s[s.index('(') + 1:s.rindex(')')]
            f = s[s.rindex(')') + 2:].split()
            out[(m, tid)] = (name, int(f[11]) + int(f[12]))
    return out
a = snap(); t0 = time.time(); time.sleep(15); b = snap(); dt = time.time() - t0
agg = collections.defaultdict(float)
for k, (name, t) in b.items():
    d = (t - a.get(k, (name, 0))[1]) / tick / dt * 100
    cls = re.sub(r'\d+$', '', name)
    if cls == 'conn':
        cls = 'conn'
    agg[(k[0], cls)] += d
res = {}
for m in pids:
    items = sorted(((v, c) for (mm, c), v in agg.items() if mm == m), reverse=True)
    res[m] = {'total': round(sum(v for v, c in items), 1), 'top': [(c, round(v, 1)) for v, c in items[:10]]}
json.dump(res, open(sys.argv[1], 'w'), indent=1)
print(json.dumps(res))
