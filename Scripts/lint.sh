#!/usr/bin/env bash
# Checks every Swift file in the repository against .swift-format (the toolchain's `swift format`),
# except the code swift-openapi-generator wrote. Exits non-zero on any finding.
# Fix the findings with: Scripts/lint.sh --fix
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files --cached --others --exclude-standard '*.swift' | grep -v '/Generated/')
if [[ "${1:-}" == "--fix" ]]; then
    swift format format --in-place --parallel "${files[@]}"
fi
swift format lint --strict --parallel "${files[@]}"
echo "swift format: ${#files[@]} files, no findings"
