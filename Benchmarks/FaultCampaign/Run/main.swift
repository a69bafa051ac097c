// The fault campaign of issue 62: 20,000 calls per adapter through a FaultServer, buffered and
// streamed, 64 in flight, each checked as it ends. Prints one Markdown row per run, then exits 1
// when any invariant broke.
//
//     swift run -c release FaultCampaignRun [CALLS] [SEED] [ADAPTERS, comma-separated]
//
// Benchmarks/README.md has the recorded results.

import FaradayTestSupport
import FaultCampaign
import Foundation

let arguments = CommandLine.arguments.dropFirst()
let calls = arguments.first.flatMap(Int.init) ?? 20_000
let seed = arguments.dropFirst().first.flatMap(UInt64.init) ?? 62
let adapters =
    arguments.dropFirst(2).first.map { $0.split(separator: ",").compactMap { CampaignAdapter(rawValue: String($0)) } }
    ?? CampaignAdapter.allCases

let mebibyte = 1024.0 * 1024.0
print("seed \(seed), \(calls) calls per run, 64 in flight\n")
print(
    "| adapter | body | whole | failed (FaradayError codes) | wrong | hung | in use after | fds before → after | RSS at \(calls / 4) → \(calls) | time |"
)
print("|---|---|---|---|---|---|---|---|---|---|")
var broken = false
var faults: [Fault: Int] = [:]
for adapter in adapters {
    for streamed in [false, true] {
        let run = try await CampaignRun.run(FaultCampaign(calls: calls, streamed: streamed), on: adapter, seed: seed)
        let report = run.report
        let failed = report.failures.sorted { $0.value > $1.value }.map { "\($0.key) \($0.value)" }.joined(
            separator: ", "
        )
        let descriptors =
            "\(run.descriptorsBefore.map(String.init) ?? "–") → \(run.descriptorsAfter.map(String.init) ?? "–")"
        let memory = String(
            format: "%.1f → %.1f MiB",
            Double(report.residentAtFirstReading) / mebibyte,
            Double(report.residentAtEnd) / mebibyte
        )
        print(
            "| \(adapter.rawValue) | \(streamed ? "streamed" : "buffered") | \(report.succeeded) | \(failed) | "
                + "\(report.wrongAnswers.count) | \(report.hung) | \(run.callsInUseAfter.map(String.init) ?? "–") | "
                + "\(descriptors) | \(memory) | \(report.elapsed.formatted(.units(allowed: [.seconds], fractionalPart: .show(length: 1)))) |"
        )
        // This program does nothing else meanwhile: any descriptor more is the adapter's.
        var violations = run.violations
        if let before = run.descriptorsBefore, let after = run.descriptorsAfter, after > before {
            violations.append("\(after - before) file descriptors left open")
        }
        for violation in violations { print("  VIOLATION: \(violation)") }
        broken = broken || !violations.isEmpty
        for (fault, count) in run.faults { faults[fault, default: 0] += count }
    }
}
print("\nFaults drawn in all (retries included):")
for fault in Fault.allCases { print("- \(fault.rawValue): \(faults[fault] ?? 0)") }
exit(broken ? 1 : 0)
