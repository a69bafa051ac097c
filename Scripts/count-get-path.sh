#!/usr/bin/env bash
# Counts the calls of ours in one buffered GET on the TestAdapter, core only: a program
# (`connection.get("users").value` on a Connection with an empty stack, once to fold the stack,
# then once counted) is built with Swift's coverage instrumentation, whose counters say how many
# times each function, initializer, accessor and closure with a body in Sources/Faraday was
# entered. The counted GET is the second one; the counters are reset just before it and written
# just after `value` returns. TestAdapter's files and Concurrency/Locked.swift are left out, as
# the Architecture article says. Prints "N calls across M files"; --list prints each function with
# its count first; --check FILE fails unless FILE states the same "N calls across M files".
# About 30 seconds (it builds Faraday with no trait in a package of its own).
#
#     Scripts/count-get-path.sh [--list] [--check FILE]
set -euo pipefail
list=0 check=""
while [[ $# -gt 0 ]]; do
    case "$1" in
        --list) list=1 ;;
        --check) check="$2"; shift ;;
        *) echo "usage: $0 [--list] [--check FILE]"; exit 2 ;;
    esac
    shift
done
source "$(dirname "$0")/consumer-package.sh"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

make_consumer "$work/count" "$repo" "$identity" Faraday none executableTarget
cat > "$work/count/Sources/Consumer/main.swift" <<'SWIFT'
import Faraday

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@_silgen_name("__llvm_profile_reset_counters") func resetCounters()
@_silgen_name("__llvm_profile_write_file") func writeProfile() -> Int32

let stubs = TestAdapter()
stubs.get("/users") { _, _ in StubResponse(body: "[]") }
let connection = try Connection(url: "https://api.example.com") { $0.adapter = stubs }
_ = try await connection.get("users").value
resetCounters()
_ = try await connection.get("users").value
_ = writeProfile()
_exit(0)
SWIFT
(cd "$work/count" && swift build -Xswiftc -profile-generate -Xswiftc -profile-coverage-mapping > build.log 2>&1) \
    || { cat "$work/count/build.log"; echo "count-get-path: the program does not build"; exit 1; }
program="$(cd "$work/count" && swift build --show-bin-path)/Consumer"
LLVM_PROFILE_FILE="$work/get.profraw" "$program"
# The toolchain's own LLVM tools: a system llvm-profdata may not read Swift's profile format.
if [[ "$(uname)" == Darwin ]]; then
    profdata="$(xcrun --find llvm-profdata)" cov="$(xcrun --find llvm-cov)"
else
    tools="$(dirname "$(readlink -f "$(command -v swift)")")"
    profdata="$tools/llvm-profdata" cov="$tools/llvm-cov"
fi
"$profdata" merge -o "$work/get.profdata" "$work/get.profraw"
"$cov" export -format=text -instr-profile "$work/get.profdata" "$program" > "$work/get.json"
result="$(python3 - "$work/get.json" "$list" <<'PYTHON'
import json, subprocess, sys
data = json.load(open(sys.argv[1]))
rows = []
for function in data["data"][0]["functions"]:
    path = function["filenames"][0]
    if "/Sources/Faraday/" not in path or function["count"] == 0:
        continue
    file = path.split("/Sources/Faraday/", 1)[1]
    if file.startswith("Adapters/TestAdapter/") or file == "Concurrency/Locked.swift":
        continue
    rows.append((file, function["regions"][0][0], function["name"], function["count"]))
rows.sort()
names = subprocess.run(["swift", "demangle", "--simplified", "--compact"], input="\n".join(r[2] for r in rows),
                       capture_output=True, text=True).stdout.splitlines()
# An autoclosure (the right side of && or ??) and a stored property's initial value are
# expressions, not calls a reader follows: they are not counted.
rows = [(file, line, name, count) for (file, line, _, count), name in zip(rows, names)
        if not name.startswith(("implicit closure", "variable initialization expression"))]
if sys.argv[2] == "1":
    for file, line, name, count in rows:
        print(f"{count:3d}  {file}:{line}  {name}")
print(f"{sum(r[3] for r in rows)} calls across {len({r[0] for r in rows})} files")
PYTHON
)"
echo "$result"
if [[ -n "$check" ]]; then
    counted="$(tail -1 <<< "$result")"
    grep -qwF "$counted" "$check" || { echo "count-get-path: $check does not say \"$counted\""; exit 1; }
fi
