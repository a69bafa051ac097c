#!/usr/bin/env bash
# What each Foundation library costs a process on Linux before it does any work: the resident
# memory (VmHWM) of a program that imports it and touches one of its types, built with
# `swiftc -O`, against a program that imports nothing. Issue 63's footprint gap is measured here.
#
# Usage: Benchmarks/Footprint/run.sh
set -euo pipefail
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
report='
#if canImport(Glibc)
import Glibc
#endif
func peakResidentKiB() -> Int {
    guard let file = fopen("/proc/self/status", "r") else { return -1 }
    defer { fclose(file) }
    var line = [CChar](repeating: 0, count: 256)
    while fgets(&line, 256, file) != nil {
        let text = String(cString: line)
        if text.hasPrefix("VmHWM:") { return Int(text.split(separator: " ")[1]) ?? -1 }
    }
    return -1
}
'
declare -A programs=(
    [1-nothing]=''
    [2-FoundationEssentials]='import FoundationEssentials
_ = Data([1, 2, 3]).count'
    [3-FoundationEssentials+Internationalization]='import FoundationEssentials
import FoundationInternationalization
_ = Data([1, 2, 3]).count'
    [4-Foundation]='import Foundation
_ = Data([1, 2, 3]).count'
    [5-Foundation+FoundationNetworking]='import Foundation
import FoundationNetworking
_ = Data([1, 2, 3]).count
_ = URLRequest(url: URL(fileURLWithPath: "/"))'
)
echo "| imports | peak RSS at start | shared libraries loaded |"
echo "|---|---:|---:|"
for name in $(printf '%s\n' "${!programs[@]}" | sort); do
    printf '%s\n%s\nprint(peakResidentKiB())\n' "$report" "${programs[$name]}" > "$scratch/main.swift"
    swiftc -O "$scratch/main.swift" -o "$scratch/$name" 2>/dev/null
    kib=$("$scratch/$name")
    libraries=$(ldd "$scratch/$name" | wc -l)
    printf '| %s | %.1f MiB | %d |\n' "${name#*-}" "$(echo "$kib / 1024" | bc -l)" "$libraries"
done
