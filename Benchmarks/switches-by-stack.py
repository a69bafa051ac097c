#!/usr/bin/env python3
"""Context switches per request, grouped by thread and by the user-space frames where each
happened (issue 22, sixth session: URLSession at 64 in flight).

    MODE=concurrent perf record -e sched:sched_switch -g -o sw.data \
        taskset -c 0 LoopbackBenchmark requests URL 3000 1 CLIENT
    perf script -i sw.data -F comm,tid,trace,ip,sym > sw.txt
    python3 switches-by-stack.py sw.txt S 5 3500   # voluntary (S) or preempted (R), frames, GETs

The last argument divides the counts (3,000 GETs plus the 500 of the warm-up).
"""
import sys, collections, re, subprocess
txt = open(sys.argv[1]).read().split("\n\n")
state = sys.argv[2]  # S or R
depth = int(sys.argv[3]) if len(sys.argv) > 3 else 4
c = collections.Counter(); syms=set(); recs=[]
for b in txt:
    lines = b.strip().split("\n")
    if not lines or "prev_state=" + state not in lines[0]: continue
    comm = lines[0].split()[0]
    frames = []
    for l in lines[1:]:
        p = l.strip().split(None, 1)
        if len(p) == 2 and not p[0].startswith("ffffffff") and p[1] != "[unknown]":
            frames.append(p[1])
    recs.append((comm, frames[:depth])); syms.update(frames[:depth])
syms=list(syms)
dem=subprocess.run(["swift-demangle","--simplified"],input="\n".join(syms),capture_output=True,text=True).stdout.split("\n")
d=dict(zip(syms,dem))
for comm, fr in recs:
    c[(comm, " < ".join(d.get(f,f)[:60] for f in fr))] += 1
n = float(sys.argv[4]) if len(sys.argv) > 4 else 1
for k, v in c.most_common(25): print(f"{v/n:6.2f}  {k[0]:12s} {k[1]}")
