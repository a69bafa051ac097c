#!/usr/bin/env bash
# Fails when the package's code uses an API newer than its minimum Apple platforms (Package.swift:
# macOS 13, iOS 16, tvOS 16, watchOS 9, visionOS 1). Linux builds do not check availability, so
# this grep stands in for an Apple build: each pattern is one that was replaced to reach those
# platforms, with what to use instead. Comment lines are not read.
set -euo pipefail
cd "$(dirname "$0")/.."
# pattern | why, and what to use
rules=(
    'import Synchronization|Synchronization is macOS 15 / iOS 18: use Locked (Sources/Faraday/Concurrency/Locked.swift)'
    '\b(Mutex|Atomic)[<(]|Mutex and Atomic are macOS 15 / iOS 18: use Locked (or NIOLockedValueBox in FaradayTestSupport)'
    'with(Throwing)?DiscardingTaskGroup|discarding task groups are macOS 14 / iOS 17: use a task group that awaits each child (serveConnections, BackgroundCalls)'
    '\bAsync(Sequence|IteratorProtocol)<|AsyncSequence with primary associated types is macOS 15 / iOS 18: erase behind a protocol (ByteStream)'
    'next\(isolation:|next(isolation:) is macOS 15 / iOS 18: call next()'
    'Task\.immediate|Task\(name:|Task.immediate and Task(name:) are macOS 26 / iOS 26'
    'String\(validating:|String(validating:as:) is macOS 15 / iOS 18: use String(utf8Validating:) (Headers/HTTPText.swift)'
    '\b(U?Int128|InlineArray|RawSpan|MutableSpan|UTF8Span)\b|Int128 is macOS 15, InlineArray and the Span types macOS 26'
)
found=0
for rule in "${rules[@]}"; do
    pattern=${rule%%|*}
    why=${rule#*|}
    # Only files under the package's own folders; generated OpenAPI code is left out.
    hits=$(grep -rnE --include='*.swift' "$pattern" Sources Tests Examples Snippets Benchmarks/Sources 2>/dev/null \
        | grep -v '/Generated/' | grep -vE '^[^:]+:[0-9]+:\s*//' || true)
    if [[ -n "$hits" ]]; then
        echo "$why:"
        echo "$hits" | sed 's/^/  /'
        found=1
    fi
done
# NSLocking.withLock is macOS 14 / iOS 17; Locked's and NIO's withLock are fine. A file that makes
# an NSLock may not call withLock.
for file in $(grep -rlE --include='*.swift' 'NSLock\(\)' Sources Tests Examples Snippets Benchmarks/Sources || true); do
    hits=$(grep -nE '\.withLock\b' "$file" | grep -vE '^[0-9]+:\s*//' || true)
    if [[ -n "$hits" ]]; then
        echo "NSLock's withLock is macOS 14 / iOS 17: lock() and defer { unlock() }, or Locked ($file):"
        echo "$hits" | sed 's/^/  /'
        found=1
    fi
done
if [[ $found -ne 0 ]]; then exit 1; fi
echo "platform APIs: nothing newer than macOS 13 / iOS 16 / tvOS 16 / watchOS 9 found"
