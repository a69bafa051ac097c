#!/usr/bin/env bash
# Instructions per decode of Faraday's JSON parser, counted by callgrind (repeatable, unlike time
# on a shared machine), at the working tree or at a git revision:
#
#     Benchmarks/JSONInstructions/run.sh [REV]
#
# Compiles Sources/Faraday/Middleware/JSON/{JSON,JSONParser}.swift (from REV when given) with
# main.swift and Shim.swift by `swiftc -O`, then counts 0 and 20 decodes; the difference / 20 is
# one decode. Swift's hashing is made deterministic so that runs agree to the instruction.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here/../.."
rev="${1:-}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for file in JSON.swift JSONParser.swift; do
    if [[ -n "$rev" ]]; then
        git show "$rev:Sources/Faraday/Middleware/JSON/$file" >"$work/$file"
    else
        cp "Sources/Faraday/Middleware/JSON/$file" "$work/$file"
    fi
done
# A revision before JSONSyntaxError had a parser returning an optional: call it either way.
if ! grep -q "JSONSyntaxError" "$work/JSONParser.swift"; then
    sed 's/try? JSONParser.parse(body)/JSONParser.parse(body)/' "$here/main.swift" >"$work/main.swift"
else
    cp "$here/main.swift" "$work/main.swift"
fi
swiftc -O -package-name bench -o "$work/bench" "$work"/*.swift "$here/Shim.swift"
count() {
    SWIFT_DETERMINISTIC_HASHING=1 valgrind --tool=callgrind --callgrind-out-file="$work/cg" "$work/bench" "$1" 2>&1 \
        | grep -oE "refs: +[0-9,]+" | tr -dc '0-9'
}
base=$(count 0)
total=$(count 20)
echo "JSONParser ${rev:-working tree}: $(( (total - base) / 20 )) instructions per decode of 222,466 bytes"
