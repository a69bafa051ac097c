#!/usr/bin/env bash
# Issue 63's footprint target, workload by workload: peak RSS (VmHWM) of raw AsyncHTTPClient and of
# Faraday's six on NIOAdapter, each a program of its own (this package), Faraday built with
# `traits: ["NIO"]` as a NIO user builds it. The server is the loopback suite's nginx: run
# `Benchmarks/run-loopback.sh` once first, so that `Benchmarks/.nginx` holds its package,
# configuration and documents.
#
# Usage: Benchmarks/Footprint/Workloads/run.sh [rounds]   (3)
set -euo pipefail
cd "$(dirname "$0")"
rounds="${1:-3}"
nginx_dir="$(cd ../.. && pwd)/.nginx"
[[ -f "$nginx_dir/nginx.conf" ]] || { echo "run Benchmarks/run-loopback.sh once first" >&2; exit 1; }
port=$(sed -n 's/.*listen 127.0.0.1:\([0-9]*\);/\1/p' "$nginx_dir/nginx.conf")
nginx_bin="$(command -v nginx || echo "$nginx_dir/pkg/usr/sbin/nginx")"

swift build -c release >&2
bin="$(swift build -c release --show-bin-path)"

taskset -c 1 "$nginx_bin" -p "$nginx_dir" -e "$nginx_dir/logs/error.log" -c "$nginx_dir/nginx.conf" &
nginx_pid=$!
trap 'kill $nginx_pid 2>/dev/null || true' EXIT
for _ in $(seq 50); do curl -sf "http://127.0.0.1:$port/small.json" >/dev/null && break; sleep 0.1; done

echo "| workload | raw AsyncHTTPClient | the six on NIOAdapter | difference |"
echo "|---|---:|---:|---:|"
for workload in sequential concurrent tasks stream; do
    raw=() six=()
    for _ in $(seq "$rounds"); do
        # Interleaved, each in a process of its own, pinned to the first core.
        raw+=("$(taskset -c 0 "$bin/RawAsyncHTTPClient" "http://127.0.0.1:$port/" "$workload" | awk '{ print $2 }')")
        six+=("$(taskset -c 0 "$bin/FaradayNIOSix" "http://127.0.0.1:$port/" "$workload" | awk '{ print $2 }')")
    done
    median() { printf '%s\n' "$@" | sort -n | sed -n "$((($# + 1) / 2))p"; }
    r=$(median "${raw[@]}") s=$(median "${six[@]}")
    awk -v w="$workload" -v r="$r" -v s="$s" \
        'BEGIN { printf "| %s | %.1f MiB | %.1f MiB | %+.1f MiB |\n", w, r / 1024, s / 1024, (s - r) / 1024 }'
done
