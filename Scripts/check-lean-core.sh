#!/usr/bin/env bash
# Builds and runs a program that uses `Faraday` with every trait off, URLSession (on by default)
# included, as a server that uses NIOAdapter alone would. Fails (exit 1) when it does not build (a
# use of URLSessionAdapter outside the `#if URLSession` guards), when it loads FoundationNetworking
# or libcurl, when a call on a Connection without an adapter does not fail with `noAdapter`,
# when Shift_JIS is not written and read (Charset loads Foundation for the CJK charsets),
# or when a use of URLSessionAdapter does not fail to build naming the trait. Prints how
# many shared libraries the program loads and its peak resident memory. About a minute.
#
#     Scripts/check-lean-core.sh [REPO]
set -euo pipefail
source "$(dirname "$0")/consumer-package.sh" "$@"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

make_consumer "$work/lean" "$repo" "$identity" Faraday none executableTarget
cat > "$work/lean/Sources/Consumer/main.swift" <<'SWIFT'
import Faraday
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

let connection = try Connection(url: "http://127.0.0.1:1")
do {
    _ = try await connection.get("/").value
    print("lean-core: a call went without an adapter")
} catch {
    print("lean-core: \(error.code)")
}
// Asked (`cjk`): a CJK charset in a program that loads no Foundation of its own, あい in
// Shift_JIS. Loading Foundation for it costs memory, so the other runs do not ask.
// Written first: writing, too, must load Foundation on its own.
if CommandLine.arguments.dropFirst().first == "cjk" {
    let written = try? Charset(label: "shift_jis")?.encode("あい")
    let read = try? Charset(label: "shift_jis")?.decode(Data([0x82, 0xA0, 0x82, 0xA2]))
    print("lean-core: Shift_JIS \(written == Data([0x82, 0xA0, 0x82, 0xA2]) ? "written" : "not written"), \(read ?? "not read")")
}
SWIFT
(cd "$work/lean" && swift build -c release > build.log 2>&1) \
    || { cat "$work/lean/build.log"; echo "check-lean-core: Faraday with no trait does not build"; exit 1; }
program="$(cd "$work/lean" && swift build -c release --show-bin-path)/Consumer"
output="$("$program")"
libraries="$(ldd "$program" 2>/dev/null || otool -L "$program")"
peak=""
[[ -x /usr/bin/time ]] && peak=", peak RSS $(/usr/bin/time -f %M "$program" 2>&1 > /dev/null | tail -1) KiB"
echo "check-lean-core: $output; $(grep -c '=>' <<< "$libraries" || true) shared libraries$peak"
status=0
[[ "$output" == "lean-core: noAdapter" ]] || { echo "check-lean-core: expected noAdapter, got: $output"; status=1; }
japanese="$("$program" cjk | tail -1 || true)"
[[ "$japanese" == "lean-core: Shift_JIS written, あい" ]] || { echo "check-lean-core: Shift_JIS, expected written and read, got: $japanese"; status=1; }
if grep -Eq 'FoundationNetworking|libcurl' <<< "$libraries"; then
    echo "check-lean-core: Faraday with no trait loads FoundationNetworking or libcurl:"
    grep -E 'FoundationNetworking|libcurl' <<< "$libraries"
    status=1
fi
# A use of URLSessionAdapter with the trait off names the trait to turn on.
echo 'let _ = URLSessionAdapter()' >> "$work/lean/Sources/Consumer/main.swift"
if (cd "$work/lean" && swift build -c release > misuse.log 2>&1) || ! grep -q "URLSession trait" "$work/lean/misuse.log"; then
    echo "check-lean-core: URLSessionAdapter with the trait off did not fail naming the trait:"
    grep -E "error" "$work/lean/misuse.log" || true
    status=1
fi
exit $status
