#!/usr/bin/env bash
# Interleaved rounds of LoopbackBenchmark clients, each client in a process of its own: for
# comparing builds (a binary copied aside before a change) or a client's environment switches, where
# one process per variant is needed. Prints, per variant, the median requests/s with its range, the
# CPU (user + system) and the voluntary and involuntary context switches a request, of the whole
# process and all its threads (from GNU time; the 500 warm-up GETs counted in, so the CPU is not the
# suite's timed-only "client CPU µs/request").
#
# Usage: Benchmarks/run-variants.sh ROUNDS COUNT sequential|concurrent LABEL=[BINARY:]CLIENT[,VAR=value…]…
#   Benchmarks/run-variants.sh 5 20000 concurrent \
#       raw=rawURLSession \
#       noCache=rawURLSessionDelegate,STATELESS=cookies+cache+policy+credentials \
#       before=/tmp/LoopbackBenchmark-before:faradayURLSessionSix after=faradayURLSessionSix
#
# BINARY defaults to the release build in Benchmarks/.build-loopback (run-loopback.sh builds it).
# nginx must be serving with Benchmarks/.nginx/nginx.conf: run run-loopback.sh once, then start it
# again in the background from Benchmarks/, pinned to the last core, for example on 2 cores
#   (taskset -c 1 .nginx/pkg/usr/sbin/nginx -p "$PWD/.nginx" -e "$PWD/.nginx/logs/error.log" -c "$PWD/.nginx/nginx.conf" &)
# (`nginx` instead of .nginx/pkg/usr/sbin/nginx where it is on PATH). Clients run pinned to core 0.
# Variants run in order on odd rounds and in reverse on even ones; each round's numbers go to
# $TMPDIR/variants-LABEL.
set -euo pipefail
[[ $# -ge 4 ]] || { sed -n '2,21p' "$0"; exit 2; }
[[ -x /usr/bin/time ]] || { echo "needs GNU time at /usr/bin/time (apt-get install time)" >&2; exit 1; }
here="$(cd "$(dirname "$0")" && pwd)"
rounds=$1 count=$2 mode=$3
shift 3
default_binary="$here/.build-loopback/release/LoopbackBenchmark"
address=$(grep -o "127.0.0.1:[0-9]*" "$here/.nginx/nginx.conf" | head -1)
results="${TMPDIR:-/tmp}/variants"

run() {  # one process of one variant; appends "requests/s CPU-seconds voluntary involuntary"
    local label=${1%%=*} parts client binary=$default_binary output rate
    IFS=, read -ra parts <<< "${1#*=}"
    client=${parts[0]}
    if [[ $client == *:* ]]; then binary=${client%%:*} client=${client#*:}; fi
    output=$(env MODE="$mode" "${parts[@]:1}" /usr/bin/time -f "TIME %U %S %w %c" \
        taskset -c 0 "$binary" requests "http://$address/" "$count" 1 "$client" 2>&1) \
        || { printf '%s\n' "$output" >&2; echo "$label failed" >&2; exit 1; }
    rate=$(awk -F'|' '/^\| [A-Z]/ && $3 ~ /[0-9]/ { gsub(/ /, "", $3); print $3 }' <<< "$output" | tail -1)
    [[ -n $rate ]] || { printf '%s\n' "$output" >&2; echo "$label: no requests/s in the output" >&2; exit 1; }
    awk -v rate="$rate" '/^TIME/ { print rate, $2 + $3, $4, $5 }' <<< "$output" >> "$results-$label"
}

for variant in "$@"; do rm -f "$results-${variant%%=*}"; done
for round in $(seq "$rounds"); do
    if (( round % 2 )); then order=("$@"); else order=(); for v in "$@"; do order=("$v" "${order[@]}"); done; fi
    for variant in "${order[@]}"; do run "$variant"; done
done

echo "| variant | requests/s (median, range) | CPU µs/request | voluntary + involuntary switches/request |"
echo "|---|---|---:|---:|"
for variant in "$@"; do
    label=${variant%%=*}
    sort -n "$results-$label" | awk -v label="$label" -v requests=$((count + 500)) '
        { rate[NR] = $1; cpu += $2; voluntary += $3; involuntary += $4 }
        END {
            median = NR % 2 ? rate[(NR + 1) / 2] : (rate[NR / 2] + rate[NR / 2 + 1]) / 2
            printf "| %s | %.0f (%s–%s) | %.0f | %.1f + %.1f |\n", label, median, rate[1], rate[NR],
                cpu / NR / requests * 1e6, voluntary / NR / requests, involuntary / NR / requests
        }'
done
