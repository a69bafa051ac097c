#!/usr/bin/env bash
# Fuzzes Faraday's parsers with libFuzzer, SECONDS per target (default 60).
#
#     Scripts/fuzz.sh [SECONDS] [TARGET…]      # targets: see FuzzTarget (all by default)
#
# Builds the FaradayFuzz entry point with -sanitize=fuzzer,address into .build-fuzz (the first
# build takes several minutes), then runs each target from its committed seeds in Fuzz/Corpus.
# New inputs go to .build-fuzz/corpus, not into the repository. A crash, a hang or a broken
# property is written to Fuzz/Regressions/<target>/, where FuzzCorpusTests replays it on every
# `swift test` from then on: commit it with the fix.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-60}"
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=(params cookies multipart framers hal uriTemplate errorDocument der)
fi

scratch=.build-fuzz
# gold cannot link libFuzzer's driver into a SwiftPM executable; the toolset picks lld.
swift build --enable-all-traits -c release --scratch-path "$scratch" --toolset Fuzz/lld-toolset.json --product FaradayFuzz \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING
binary="$scratch/release/FaradayFuzz"

status=0
for target in "${targets[@]}"; do
    mkdir -p "$scratch/corpus/$target" "Fuzz/Regressions/$target"
    log="$scratch/$target.log"
    # Leak detection is off: LeakSanitizer takes Swift's lazily made globals (a pattern buffer
    # built once) for leaks; Scripts/sanitizers.sh runs AddressSanitizer over the test suite.
    if ASAN_OPTIONS=detect_leaks=0 FARADAY_FUZZ_TARGET="$target" "$binary" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -detect_leaks=0 \
        -artifact_prefix="Fuzz/Regressions/$target/" "$scratch/corpus/$target" "Fuzz/Corpus/$target" >"$log" 2>&1; then
        result="ok"
    else
        result="FINDING (see $log and Fuzz/Regressions/$target)"
        status=1
    fi
    runs=$(grep -o 'Done [0-9]* runs' "$log" | tail -1 || true)
    coverage=$(grep -o 'cov: [0-9]*' "$log" | tail -1 || true)
    printf '%-14s %-10s %-22s %s\n' "$target" "${coverage:-cov: ?}" "${runs:-?}" "$result"
done
exit $status
