import FaradayTestSupport
import FaultCampaign
import Testing

extension AdapterConformance {
    /// The fault campaign's short version (`Benchmarks/FaultCampaign` runs 20,000 calls): 400
    /// calls, 64 in flight, through a server that breaks its answers every way ``Fault`` lists.
    @Suite(.timeLimit(.minutes(3))) struct FaultCampaignTests {
        @Test(arguments: AdapterKind.allCases, [false, true])
        func everyCallEndsOnceWithTheRightAnswerOrATypedError(_ kind: AdapterKind, streamed: Bool) async throws {
            let adapter = try #require(CampaignAdapter(rawValue: kind.rawValue))
            let run = try await CampaignRun.run(FaultCampaign(calls: 400, streamed: streamed), on: adapter, seed: 62)
            #expect(run.violations == [], "\(run.report)")
            #expect(run.report.calls == 400)
            #expect(run.report.succeeded + run.report.failures.values.reduce(0, +) == 400)
            // Most answers are whole, and Retry makes whole most of those a fault broke before the head.
            #expect(run.report.succeeded > 300, "\(run.report)")
            // The seed draws every fault at least once among the calls' first attempts.
            #expect(Set(run.faults.keys) == Set(Fault.allCases), "\(run.faults)")
        }
    }
}
