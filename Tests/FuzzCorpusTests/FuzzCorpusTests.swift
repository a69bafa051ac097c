import FaradayFuzzTargets
import Foundation
import Testing

/// Replays the fuzz corpus and every past finding (`Fuzz/Corpus/<target>`,
/// `Fuzz/Regressions/<target>`) through its target: a crash or a broken property fails the run.
@Suite struct FuzzCorpusTests {
    static let fuzzFolder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz")

    private func inputs(_ target: FuzzTarget) -> [URL] {
        ["Corpus", "Regressions"].flatMap { folder in
            let directory = Self.fuzzFolder.appendingPathComponent(folder).appendingPathComponent(target.rawValue)
            return (try? FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)) ?? []
        }
    }

    @Test(arguments: FuzzTarget.allCases)
    func everyCommittedInputRuns(_ target: FuzzTarget) throws {
        let files = inputs(target)
        #expect(!files.isEmpty, "no corpus for \(target.rawValue)")
        for file in files { target.run(try Data(contentsOf: file)) }
    }
}
