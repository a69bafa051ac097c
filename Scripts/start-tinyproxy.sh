# Sourced by .ci/run: installs tinyproxy from Debian's packages when it is missing, starts it on a
# free loopback port with Basic credentials, and exports FARADAY_TINYPROXY=host:port and
# FARADAY_TINYPROXY_CREDENTIALS=user:password for the end-to-end proxy test
# (Tests/AdapterConformanceTests/TinyproxyTests.swift, skipped when they are unset). The proxy
# stops when the sourcing shell exits.
#
#   source Scripts/start-tinyproxy.sh
if ! command -v tinyproxy >/dev/null 2>&1; then
    if command -v apt-get >/dev/null 2>&1; then
        apt-get install -y -qq tinyproxy >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq tinyproxy >/dev/null; }
    fi
fi
if command -v tinyproxy >/dev/null 2>&1; then
    tinyproxy_dir=$(mktemp -d)
    tinyproxy_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    cat > "$tinyproxy_dir/tinyproxy.conf" <<CONF
Port $tinyproxy_port
Listen 127.0.0.1
Timeout 60
Allow 127.0.0.1
BasicAuth faraday tiny-s3cret
MaxClients 20
LogLevel Warning
LogFile "$tinyproxy_dir/tinyproxy.log"
PidFile "$tinyproxy_dir/tinyproxy.pid"
CONF
    tinyproxy -d -c "$tinyproxy_dir/tinyproxy.conf" &
    tinyproxy_pid=$!
    trap 'kill $tinyproxy_pid 2>/dev/null || true' EXIT
    for _ in $(seq 50); do
        python3 -c "import socket; socket.create_connection(('127.0.0.1', $tinyproxy_port), 1)" 2>/dev/null && break
        sleep 0.1
    done
    export FARADAY_TINYPROXY="127.0.0.1:$tinyproxy_port"
    export FARADAY_TINYPROXY_CREDENTIALS="faraday:tiny-s3cret"
    echo "tinyproxy $(tinyproxy -v 2>&1 | head -1) on $FARADAY_TINYPROXY"
else
    echo "tinyproxy is not installed and could not be: the end-to-end proxy test will be skipped" >&2
fi
