#!/usr/bin/env python3
# Latency of memory.recall through `memidx serve --stdio`, measured as a host
# sees it: request written to response read. Usage:
#   client.py MEMIDX AGENT_DIR INDEX_DIR [TERM]
# Prints p50 and p99 over 60 calls (after 10 warm-up calls) of a rare term
# and of a rare + common term, the server's CPU time a call, and its peak
# and current resident size. TERM is a planted rare term (default
# zqxaaabic; the 100k archive of `memidx gen --sessions 100000 --scale 0.02
# --seed 11` has zqxaaaaaa).
import json, os, subprocess, sys, time
binary, agent, ix = sys.argv[1:4]
term = sys.argv[4] if len(sys.argv) > 4 else "zqxaaabic"
p = subprocess.Popen([binary, '--agent-dir', agent, '--index-dir', ix, 'serve', '--stdio'], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=-1)
def call(i, q):
    req = json.dumps({"jsonrpc": "2.0", "id": i, "method": "memory.recall", "params": {"query": q, "scope": "global"}}) + "\n"
    t = time.perf_counter()
    p.stdin.write(req.encode()); p.stdin.flush()
    while True:
        line = p.stdout.readline()
        m = json.loads(line)
        if m.get("id") == i:
            return (time.perf_counter() - t) * 1000, m
def cpu_ms():
    f = open('/proc/%d/stat' % p.pid).read().rsplit(')', 1)[1].split()
    return (int(f[11]) + int(f[12])) * 1000.0 / os.sysconf('SC_CLK_TCK')
n = 0
for q in [term, term + " error"]:
    ds = []
    for k in range(70):
        if k == 10:
            c0 = cpu_ms()
        n += 1
        d, m = call(n, q)
        assert "result" in m and m["result"]["total"] > 0, m
        if k >= 10:
            ds.append(d)
    ds.sort()
    print("%s %r p50 %.2f ms p99 %.2f ms, CPU %.2f ms a call" % (agent, q, ds[len(ds)//2], ds[int(len(ds)*0.99)], (cpu_ms() - c0) / len(ds)))
status = dict(l.split(':', 1) for l in open('/proc/%d/status' % p.pid).read().splitlines() if ':' in l)
print("VmHWM %s, VmRSS %s" % (status['VmHWM'].strip(), status['VmRSS'].strip()))
p.stdin.close(); p.wait()
