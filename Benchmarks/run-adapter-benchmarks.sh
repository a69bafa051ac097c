#!/usr/bin/env bash
# Runs the adapter loopback benchmarks in release mode and prints Markdown tables.
# Usage: Benchmarks/run-adapter-benchmarks.sh [requests]   (default 20000)
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product AdapterBenchmark
bin=.build/release/AdapterBenchmark
"$bin" "${1:-20000}"
echo
echo "Streamed 1 GiB download, each client in its own process (peak RSS is the process's)"
echo
echo "| client | throughput | peak RSS |"
echo "|---|---|---|"
for client in rawAsyncHTTPClient faradayAsyncHTTPClient faradayURLSession; do
    "$bin" stream "$client" | grep '^|'
done
