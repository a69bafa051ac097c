#!/usr/bin/env bash
# The loopback suite: builds LoopbackBenchmark in release mode, starts nginx on 127.0.0.1 pinned to
# the last core, runs the client pinned to the first core, and prints the Markdown tables that
# README.md summarises.
#
# Usage: Benchmarks/run-loopback.sh [requests] [rounds] [stream-bytes]   (20000 3 1073741824)
#        ONLY=requests|streams|cache Benchmarks/run-loopback.sh …           (one part of the suite;
#                                              streams include the downloads to a file)
#        DOCUMENT=cookie.json …   (the document with a Set-Cookie: the jar's response side too)
#        POOL=8 …                 (AsyncHTTPClient's connections per host; the issue's protocol is 64)
#        CLIENTS=a,b,c …          (the clients of the requests part, by name; LoopbackBenchmark's Client)
#
# Where `perf stat -e instructions` works, it also counts each client's instructions per request:
# unlike time, that count barely moves with what else the machine is doing.
#
# nginx is Debian's: the one on PATH, or else the package downloaded and unpacked (no install, no
# root needed beyond what `apt-get download` needs) into Benchmarks/.nginx.
set -euo pipefail
cd "$(dirname "$0")"
requests="${1:-20000}"
rounds="${2:-3}"
stream_bytes="${3:-1073741824}"
scratch="$PWD/.nginx"
mkdir -p "$scratch/root/bytes" "$scratch/logs" "$scratch/tmp"

nginx_bin="$(command -v nginx || true)"
if [[ -z "$nginx_bin" ]]; then
    nginx_bin="$scratch/pkg/usr/sbin/nginx"
    if [[ ! -x "$nginx_bin" ]]; then
        (cd "$scratch" && { apt-get download nginx 2>/dev/null || { apt-get update -qq && apt-get download nginx; }; })
        dpkg -x "$scratch"/nginx_*.deb "$scratch/pkg"
    fi
fi

cores=$(nproc)
server_core=$((cores - 1))
client_cores="0"
[[ $cores -gt 2 ]] && client_cores="0-$((cores - 2))"

swift build -c release --scratch-path .build-loopback --product LoopbackBenchmark >&2
bin="$(swift build -c release --scratch-path .build-loopback --show-bin-path)/LoopbackBenchmark"

# The documents: a small JSON one, and a sparse file of the stream's size (reads come from memory).
# small.json is issue 22's workload: its 207-byte document (BenchmarkStack.document), no cookie.
"$bin" document > "$scratch/root/small.json"
cp "$scratch/root/small.json" "$scratch/root/cached.json"
cp "$scratch/root/small.json" "$scratch/root/cookie.json"
truncate -s "$stream_bytes" "$scratch/root/bytes/$stream_bytes"

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cat > "$scratch/nginx.conf" <<CONF
daemon off;
worker_processes 1;
pid $scratch/nginx.pid;
error_log $scratch/logs/error.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path $scratch/tmp/body;
    proxy_temp_path $scratch/tmp/proxy;
    fastcgi_temp_path $scratch/tmp/fastcgi;
    uwsgi_temp_path $scratch/tmp/uwsgi;
    scgi_temp_path $scratch/tmp/scgi;
    sendfile on;
    tcp_nopush on;
    keepalive_requests 10000000;
    keepalive_timeout 120s;
    types { application/json json; }
    default_type application/octet-stream;
    server {
        listen 127.0.0.1:$port;
        root $scratch/root;
        # The same document with a cookie, for the stack's Cookies to store and send (DOCUMENT=cookie.json).
        location = /cookie.json { add_header Set-Cookie "session=abc123; Path=/; HttpOnly"; }
        # Fresh for an hour, for HTTPCache's hits (ONLY=cache).
        location = /cached.json { add_header Cache-Control "max-age=3600"; }
    }
}
CONF

taskset -c "$server_core" "$nginx_bin" -p "$scratch" -e "$scratch/logs/error.log" -c "$scratch/nginx.conf" &
nginx_pid=$!
trap 'kill $nginx_pid 2>/dev/null || true' EXIT
for _ in $(seq 50); do curl -sf "http://127.0.0.1:$port/small.json" >/dev/null && break; sleep 0.1; done
curl -sf "http://127.0.0.1:$port/small.json" >/dev/null || { echo "nginx did not start; see $scratch/logs/error.log" >&2; exit 1; }

base="http://127.0.0.1:$port/"

echo "Machine: $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)), $(swift --version 2>/dev/null | head -1)"
echo "Server: nginx $("$nginx_bin" -v 2>&1 | cut -d/ -f2) on core $server_core; client on core(s) $client_cores"
echo
only="${ONLY:-}"
if [[ -z "$only" || "$only" == cache ]]; then
    taskset -c "$client_cores" "$bin" cache "$base" "$requests" "$rounds"
    [[ "$only" == cache ]] && exit 0
fi
[[ "$only" != streams ]] && taskset -c "$client_cores" "$bin" requests "$base" "$requests" "$rounds" ${CLIENTS:-}
[[ "$only" == requests ]] && exit 0

echo "Streamed downloads of $stream_bytes bytes, each client in a process of its own (median of $rounds; the"
echo "client's CPU time per GiB; peak RSS of the whole process)"
echo
echo "| client | throughput | CPU per GiB | peak RSS |"
echo "|---|---|---|---|"
for client in rawAsyncHTTPClient faradayAsyncHTTPClientEmpty faradayAsyncHTTPClientSix faradayNIOEmpty faradayNIOSix \
    rawURLSession faradayURLSessionEmpty faradayURLSessionSix; do
    taskset -c "$client_cores" "$bin" stream "$base" "$client" "$stream_bytes" "$rounds"
done

echo
echo "Downloads of $stream_bytes bytes to a file (AsyncHTTPClient's FileDownloadDelegate; Faraday's"
echo "connection.download), each client in a process of its own, the same columns"
echo
echo "| client | throughput | CPU per GiB | peak RSS |"
echo "|---|---|---|---|"
for client in rawAsyncHTTPClient faradayAsyncHTTPClientSix faradayNIOSix; do
    taskset -c "$client_cores" "$bin" download "$base" "$client" "$stream_bytes" "$rounds"
done

# `perf stat` exits 0 where the counter is "<not supported>" (virtual machines): look at its output.
if [[ -z "$only" ]] && perf stat -e instructions -x, true 2>&1 | grep -qE '^[0-9]+,'; then
    echo
    echo "Client instructions per request: each client alone in a process of its own, $requests GETs in each of the"
    echo "three modes (one at a time, 64 workers, a task a request), counted by \`perf stat -e instructions\` (process start and"
    echo "warm-up included, under 1%)"
    echo
    echo "| client | instructions/request | × raw |"
    echo "|---|---|---|"
    declare -A raw_count
    for client in rawAsyncHTTPClient rawAsyncHTTPClientDelegate faradayAsyncHTTPClientEmpty faradayAsyncHTTPClientSix \
        faradayNIOEmpty faradayNIOSix rawURLSession faradayURLSessionEmpty faradayURLSessionSix; do
        count=$(taskset -c "$client_cores" perf stat -e instructions -x, "$bin" requests "$base" "$requests" 1 "$client" \
            2>&1 >/dev/null | awk -F, '/instructions/ { print $1 }')
        per_request=$((count / (3 * requests + 1500)))  # LoopbackBenchmark warms up with 500 GETs a mode
        case "$client" in *URLSession*) family=urlsession ;; *) family=ahc ;; esac
        [[ "$client" == raw* && -z "${raw_count[$family]:-}" ]] && raw_count[$family]=$per_request
        label=$("$bin" label "$client")
        awk -v l="$label" -v n="$per_request" -v r="${raw_count[$family]}" \
            'BEGIN { printf "| %s | %.0fK | %.2f |\n", l, n / 1000, n / r }'
    done
fi
