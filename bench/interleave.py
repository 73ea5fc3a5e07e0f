#!/usr/bin/env python3
# Interleaved whole-process timing: each round runs every command once, in
# turn, so that drift in the machine's speed hits them alike (hyperfine
# runs all of one command, then all of the next). Three warm-up rounds,
# then medians and the ratio of each to the first command (the floor).
# Usage: interleave.py ROUNDS 'FLOOR COMMAND' 'COMMAND' ...
import subprocess, sys, time, statistics, shlex
n = int(sys.argv[1]); cmds = sys.argv[2:]
ts = [[] for _ in cmds]
for r in range(n + 3):
    for i, c in enumerate(cmds):
        t = time.perf_counter()
        subprocess.run(shlex.split(c), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if r >= 3:
            ts[i].append((time.perf_counter() - t) * 1000)
m = [statistics.median(x) for x in ts]
for c, x in zip(cmds, m):
    print("%8.2f ms  %5.2fx  %s" % (x, x / m[0], c[:110]))
