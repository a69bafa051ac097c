#!/usr/bin/env bash
# Measures what a user waits for: the first debug build of a package that depends on one product of
# this repository, for each product, each in a fresh temporary package with an empty .build
# (packages resolved as SwiftPM resolves them on this machine). Then the repository's own first
# `swift build` (every target, examples and snippets included; what `swift run Quickstart` and
# `swift test` start with). Prints seconds per line; the README's build-time note comes from here.
#
#     Scripts/measure-build-times.sh
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
identity="$(basename "$repo" | tr "[:upper:]" "[:lower:]")"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
for product in Faraday FaradayHAL FaradayObservability FaradayOpenAPI FaradayAsyncHTTPClient; do
    mkdir -p "$work/$product/Sources/Consumer"
    cat > "$work/$product/Package.swift" <<MANIFEST
// swift-tools-version:6.1
import PackageDescription
let package = Package(
    name: "Consumer",
    platforms: [.macOS(.v15), .iOS(.v18)],
    dependencies: [.package(path: "$repo")],
    targets: [.target(name: "Consumer", dependencies: [.product(name: "$product", package: "$identity")])]
)
MANIFEST
    echo "import $product" > "$work/$product/Sources/Consumer/Consumer.swift"
    start=$(date +%s)
    (cd "$work/$product" && swift build > build.log 2>&1) || { cat "$work/$product/build.log"; exit 1; }
    echo "$product: $(($(date +%s) - start)) s"
done
git clone -q "$repo" "$work/repository"
start=$(date +%s)
(cd "$work/repository" && swift build > build.log 2>&1) || { cat "$work/repository/build.log"; exit 1; }
echo "this repository, every target: $(($(date +%s) - start)) s"
