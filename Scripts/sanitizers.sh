#!/usr/bin/env bash
# Runs the test suite under ThreadSanitizer and AddressSanitizer, each in its own build folder
# (.build-tsan, .build-asan; ignored by git). The gigabyte streams, the 300 MB bomb and the
# 200-call burst and the 100,000-call load tests are skipped: under a sanitizer they take many
# minutes and add no coverage.
#
#     Scripts/sanitizers.sh [thread|address]   (both by default)
set -uo pipefail
cd "$(dirname "$0")/.."
skip="Gigabyte|aSlowConsumer|aBombIsStopped|theLimitHoldsUnder200|LoadTests"
status=0
for sanitizer in ${1:-thread address}; do
    scratch=".build-${sanitizer:0:1}san"
    echo "== swift test --sanitize=$sanitizer (build folder $scratch)"
    swift build --enable-all-traits --build-tests --sanitize="$sanitizer" --scratch-path "$scratch" || { status=1; continue; }
    TSAN_OPTIONS="halt_on_error=0" LSAN_OPTIONS="suppressions=$PWD/Scripts/lsan-suppressions.txt:print_suppressions=0" swift test --enable-all-traits --skip-build --sanitize="$sanitizer" --scratch-path "$scratch" --skip "$skip" \
        2>&1 | tee "/tmp/faraday-$sanitizer.log" | grep -E "Test run|WARNING: ThreadSanitizer|ERROR: AddressSanitizer|SUMMARY"
    [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
done
exit $status
