#!/usr/bin/env bash
# Runs every example with its README command; each starts its own local server (nothing leaves
# the machine) and must exit 0. Prints each one's output.
set -euo pipefail
cd "$(dirname "$0")/.."
examples=(Quickstart CustomMiddleware RequestSigning StreamingExample Download HALBrowser TypedEndpoints SynchronousUse TestingWithStubs)
swift build --enable-all-traits
for example in "${examples[@]}"; do
    echo "== swift run $example"
    swift run --enable-all-traits --skip-build "$example"
done
echo "Examples: ${#examples[@]} ran and exited 0"
