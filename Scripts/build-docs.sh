#!/usr/bin/env bash
# Builds the DocC documentation of every product with swift-docc-plugin, snippets included, and
# fails on any warning (a broken link, an undocumented parameter, a snippet that is missing).
# The archives land in .build/plugins/Swift-DocC/outputs/<Target>.doccarchive;
# `swift package --disable-sandbox preview-documentation --target Faraday` serves one locally.
set -euo pipefail
cd "$(dirname "$0")/.."
targets=(Faraday FaradayHAL FaradayAsyncHTTPClient FaradayNIO FaradayObservability FaradayOpenAPI FaradayXML)
for target in "${targets[@]}"; do
    swift package generate-documentation --target "$target" --warnings-as-errors
done
echo "DocC: ${targets[*]} built without warnings"
