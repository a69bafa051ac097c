#!/usr/bin/env bash
# Interleaved rounds of LoopbackBenchmark clients, each client in a process of its own: for
# comparing builds (a binary copied aside before a change) or a client's environment switches, where
# one process per variant is needed. Prints, per variant, the median requests/s with its range, the
# CPU (user + system) and the voluntary and involuntary context switches a request (the process and
# all its threads, from /usr/bin/time; the 500 warm-up GETs counted in).
#
# Usage: Benchmarks/run-variants.sh ROUNDS COUNT sequential|concurrent LABEL=[BINARY:]CLIENT[,VAR=value…]…
#   Benchmarks/run-variants.sh 5 20000 concurrent \
#       raw=rawURLSession \
#       noCache=rawURLSessionDelegate,STATELESS=cookies+cache+policy+credentials \
#       before=/tmp/LoopbackBenchmark-before:faradayURLSessionSix after=faradayURLSessionSix
#
# nginx must be running with Benchmarks/.nginx/nginx.conf (run run-loopback.sh once, then
# `taskset -c 1 .nginx/pkg/usr/sbin/nginx -p $PWD/.nginx -e $PWD/.nginx/logs/error.log -c $PWD/.nginx/nginx.conf`
# from Benchmarks/); clients run pinned to core 0. Each round's raw numbers go to
# $TMPDIR/variants-LABEL.
set -euo pipefail
[[ $# -ge 4 ]] || { sed -n '2,16p' "$0"; exit 2; }
cd "$(dirname "$0")"
rounds=$1 count=$2 mode=$3
shift 3
default_binary="$PWD/.build-loopback/release/LoopbackBenchmark"
address=$(grep -o "127.0.0.1:[0-9]*" .nginx/nginx.conf | head -1)
results="${TMPDIR:-/tmp}/variants"

for variant in "$@"; do rm -f "$results-${variant%%=*}"; done
for _ in $(seq "$rounds"); do
    for variant in "$@"; do
        label=${variant%%=*}
        IFS=, read -ra parts <<< "${variant#*=}"
        client=${parts[0]} binary=$default_binary
        if [[ $client == *:* ]]; then binary=${client%%:*} client=${client#*:}; fi
        output=$(env MODE="$mode" "${parts[@]:1}" /usr/bin/time -f "TIME %U %S %w %c" \
            taskset -c 0 "$binary" requests "http://$address/" "$count" 1 "$client" 2>&1)
        rate=$(awk -F'|' '/^\| [A-Z]/ && $3 ~ /[0-9]/ { gsub(/ /, "", $3); print $3 }' <<< "$output" | tail -1)
        awk -v rate="$rate" '/^TIME/ { print rate, $2 + $3, $4, $5 }' <<< "$output" >> "$results-$label"
    done
done

echo "| variant | requests/s (median, range) | CPU µs/request | voluntary + involuntary switches/request |"
echo "|---|---|---:|---:|"
for variant in "$@"; do
    label=${variant%%=*}
    sort -n "$results-$label" | awk -v label="$label" -v requests=$((count + 500)) '
        { rate[NR] = $1; cpu += $2; voluntary += $3; involuntary += $4 }
        END {
            printf "| %s | %s (%s–%s) | %.0f | %.1f + %.1f |\n", label, rate[int((NR + 1) / 2)], rate[1], rate[NR],
                cpu / NR / requests * 1e6, voluntary / NR / requests, involuntary / NR / requests
        }'
done
