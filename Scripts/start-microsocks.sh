# Sourced by .ci/run: installs microsocks (a SOCKS5 server) from Debian's packages when it is
# missing, starts it on a free loopback port demanding a user name and password (RFC 1929), and
# exports FARADAY_MICROSOCKS=host:port and FARADAY_MICROSOCKS_CREDENTIALS=user:password for the
# end-to-end test (Tests/AdapterConformanceTests/MicrosocksTests.swift, skipped when they are
# unset). The server stops when the sourcing shell exits.
#
#   source Scripts/start-microsocks.sh
if ! command -v microsocks >/dev/null 2>&1; then
    if command -v apt-get >/dev/null 2>&1; then
        apt-get install -y -qq microsocks >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq microsocks >/dev/null; }
    fi
fi
if command -v microsocks >/dev/null 2>&1; then
    microsocks_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    microsocks -i 127.0.0.1 -p "$microsocks_port" -u faraday -P socks-s3cret >/dev/null 2>&1 &
    microsocks_pid=$!
    # Added to whatever EXIT trap is set (tinyproxy's), not in its place.
    trap "kill $microsocks_pid 2>/dev/null || true; $(trap -p EXIT | sed -e "s/^trap -- '//" -e "s/' EXIT\$//")" EXIT
    for _ in $(seq 50); do
        python3 -c "import socket; socket.create_connection(('127.0.0.1', $microsocks_port), 1)" 2>/dev/null && break
        sleep 0.1
    done
    export FARADAY_MICROSOCKS="127.0.0.1:$microsocks_port"
    export FARADAY_MICROSOCKS_CREDENTIALS="faraday:socks-s3cret"
    echo "microsocks on $FARADAY_MICROSOCKS"
else
    echo "microsocks is not installed and could not be: the end-to-end SOCKS5 test will be skipped" >&2
fi
