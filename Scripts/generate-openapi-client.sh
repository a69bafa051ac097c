#!/usr/bin/env bash
# Regenerates the OpenAPI client that FaradayOpenAPITests uses, from
# Tests/FaradayOpenAPITests/openapi.yaml. Run by hand after changing the spec; the output is
# committed, so builds and CI never run the generator (its first build takes about 5 minutes).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
scratch=${OPENAPI_GENERATOR_SCRATCH:-/tmp/faraday-openapi-generator}
mkdir -p "$scratch"
cat > "$scratch/Package.swift" <<'MANIFEST'
// swift-tools-version:6.2
import PackageDescription
let package = Package(
    name: "generator",
    dependencies: [.package(url: "https://github.com/apple/swift-openapi-generator", from: "1.14.3")],
    targets: []
)
MANIFEST
swift build -c release --package-path "$scratch" --product swift-openapi-generator
"$scratch/.build/release/swift-openapi-generator" generate \
    --config Tests/FaradayOpenAPITests/openapi-generator-config.yaml \
    --output-directory Tests/FaradayOpenAPITests/Generated \
    Tests/FaradayOpenAPITests/openapi.yaml
echo "Generated into $root/Tests/FaradayOpenAPITests/Generated"
