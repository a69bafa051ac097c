#!/usr/bin/env bash
# Per-request cost of each of the six middleware alone, of the six together, and of the empty and
# pass-through stacks, on the TestAdapter (issue 22's "each middleware's cost in a table"):
# client CPU per GET (user + system, median of ROUNDS runs of COUNT GETs pinned to one core) and
# allocations per GET (heaptrack: a 2N-GET run minus an N-GET run, so that start-up cancels out).
#
#     Benchmarks/per-middleware.sh [COUNT] [ROUNDS]
#
# With ADAPTER=fixed, every stack ends in a FixedResponseAdapter instead of the TestAdapter (which
# records every request, so that a long run pays page faults and copies that are not the stack's).
set -euo pipefail
cd "$(dirname "$0")"
count=${1:-100000}
rounds=${2:-5}
swift build -c release --scratch-path .build-loopback --product AllocProbe >/dev/null
probe=.build-loopback/release/AllocProbe
allocations() {  # stack, GETs -> calls to allocation functions
    local file
    file=$(mktemp -u /tmp/faraday-heaptrack.XXXXXX)
    heaptrack -o "$file" "$probe" "$1" "$2" >/dev/null 2>&1
    heaptrack_print "$file.zst" 2>/dev/null | sed -n 's/^calls to allocation functions: \([0-9]*\).*/\1/p'
    rm -f "$file.zst"
}
echo "| stack | client CPU µs/GET (median of $rounds × $count) | allocations/GET |"
echo "|---|---:|---:|"
for stack in empty sixPassThrough EncodeJSON DecodeJSON HTTPLogger Authorization Cookies RaiseError six twelve; do
    times=()
    for _ in $(seq "$rounds"); do
        times+=("$( { /usr/bin/time -f "%U %S" taskset -c 0 "$probe" "$stack" "$count" >/dev/null; } 2>&1 | tail -1 |
            awk -v n="$count" '{ printf "%.1f", ($1 + $2) * 1e6 / n }')")
    done
    median=$(printf '%s\n' "${times[@]}" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
    small=$(allocations "$stack" 10000)
    large=$(allocations "$stack" 20000)
    echo "| $stack | $median | $(awk -v a="$small" -v b="$large" 'BEGIN { printf "%.1f", (b - a) / 10000 }') |"
done
