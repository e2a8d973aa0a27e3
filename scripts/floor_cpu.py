#!/usr/bin/env python3
"""floor_cpu.py REPORT BIN... : the CPU time (user + sys, the child's rusage) of the SQLite floor
(the sqlite3 shell reading `operations`, `errors` and the failing operations' `captured_graph`
rows) and of `BIN explain --json REPORT`, alternated, median of RUNS (default 15).
FLOOR=scan finds the graphs as a plain query does (issue 29 measured its floor so); else by rowid.
See docs/performance.md, "Issue 29, where it ends"."""
import os, sys, subprocess, statistics
report, bins = sys.argv[1], sys.argv[2:]
db = os.path.join(report, 'db.sqlite')
rowids = subprocess.run(['sqlite3', '-readonly', db,
    'SELECT rowid FROM captured_graph WHERE operation_id IN (SELECT operation_id FROM errors)'],
    capture_output=True, text=True).stdout.split()
# FLOOR=scan: the graphs found as a plain query finds them (captured_graph has no index: a scan on
# operation_id, as the issue measured its 0.2 s); else by rowid (the strictest floor).
graphs = ('WHERE operation_id IN (SELECT operation_id FROM errors)' if os.environ.get('FLOOR') == 'scan'
          else f'WHERE rowid IN ({",".join(rowids)})')
floor_sql = f'SELECT * FROM operations; SELECT * FROM errors; SELECT captured_graph FROM captured_graph {graphs};'
def cpu(argv):
    with open(os.devnull, 'w') as null:
        p = subprocess.Popen(argv, stdout=null, stderr=null)
        _, status, ru = os.wait4(p.pid, 0)
    assert status == 0, argv
    return ru.ru_utime + ru.ru_stime
runs = int(os.environ.get('RUNS', '15'))
cmds = {'floor': ['sqlite3', '-readonly', db, floor_sql]}
for b in bins: cmds[b] = [b, 'explain', '--json', report]
t = {k: [] for k in cmds}
for _ in range(runs):
    for k, argv in cmds.items(): t[k].append(cpu(argv))
f = statistics.median(t['floor'])
print(f'{report}: {len(rowids)} graphs, FLOOR={os.environ.get("FLOOR", "rowid")}; floor median {f*1000:.0f} ms (min {min(t["floor"])*1000:.0f})')
for b in bins:
    m = statistics.median(t[b])
    print(f'  {b}: median {m*1000:.0f} ms (min {min(t[b])*1000:.0f}, max {max(t[b])*1000:.0f}) = {m/f:.2f}x the floor')
