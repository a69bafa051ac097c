#!/usr/bin/env bash
# Fails when building the package (library, tests, examples, benchmarks and Snippets/) shows a
# compiler warning from this package's own files. Dependencies' warnings are not ours to fix.
#
#     Scripts/check-warnings.sh
#
# The package's own modules are compiled afresh (their build folders removed first), since an
# incremental build does not repeat the warnings of files it does not recompile.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
# Every target of the package, and every snippet (each builds as a module of its own).
mapfile -t modules < <(
    swift package dump-package | python3 -c 'import json,sys; print("\n".join(t["name"] for t in json.load(sys.stdin)["targets"]))'
    for snippet in Snippets/*.swift; do basename "$snippet" .swift; done
)
for module in "${modules[@]}"; do rm -rf ".build/debug/${module}.build"; done
log=$(mktemp)
trap 'rm -f "$log"' EXIT
swift build --enable-all-traits --build-tests 2>&1 | tee "$log" | grep -E "error:|Compiling|Build" | tail -3
# A warning line names its file first: keep those under this package, outside .build.
warnings=$(grep -E "^${root}/[^ ]+:[0-9]+:[0-9]+: warning:" "$log" | grep -v "^${root}/.build/" | sort -u || true)
if [[ -n "$warnings" ]]; then
    echo "$warnings"
    echo "$(echo "$warnings" | wc -l) compiler warnings in this package's files; fix them (zero warnings, Snippets included)."
    exit 1
fi
echo "compiler warnings: none in this package's files"
