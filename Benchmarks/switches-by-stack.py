#!/usr/bin/env python3
"""Context switches per request, grouped by thread and by the user-space frames where each
happened (issue 22, sixth session: URLSession at 64 in flight).

    MODE=concurrent perf record -e sched:sched_switch -g -o sw.data \
        taskset -c 0 LoopbackBenchmark requests URL 3000 1 CLIENT
    perf script -i sw.data -F comm,tid,trace,ip,sym > sw.txt
    python3 switches-by-stack.py sw.txt S 5 3500   # voluntary (S) or preempted (R), frames, GETs

The last argument divides the counts (3,000 GETs plus the 500 of the warm-up).
"""
import collections
import subprocess
import sys

blocks = open(sys.argv[1]).read().split("\n\n")
state = sys.argv[2]  # S (voluntary) or R (preempted)
depth = int(sys.argv[3]) if len(sys.argv) > 3 else 4
requests = float(sys.argv[4]) if len(sys.argv) > 4 else 1

records, symbols = [], set()
for block in blocks:
    lines = block.strip().split("\n")
    if not lines or "prev_state=" + state not in lines[0]:
        continue
    frames = []
    for line in lines[1:]:
        parts = line.strip().split(None, 1)
        # user-space frames only: kernel addresses start with ffffffff
        if len(parts) == 2 and not parts[0].startswith("ffffffff") and parts[1] != "[unknown]":
            frames.append(parts[1])
    records.append((lines[0].split()[0], frames[:depth]))
    symbols.update(frames[:depth])

symbols = list(symbols)
demangled = subprocess.run(
    ["swift-demangle", "--simplified"], input="\n".join(symbols), capture_output=True, text=True
).stdout.split("\n")
names = dict(zip(symbols, demangled))
counts = collections.Counter(
    (thread, " < ".join(names.get(frame, frame)[:60] for frame in frames)) for thread, frames in records
)
for (thread, stack), count in counts.most_common(25):
    print(f"{count / requests:6.2f}  {thread:12s} {stack}")
