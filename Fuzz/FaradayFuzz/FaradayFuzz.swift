// The libFuzzer entry point for every target of FaradayFuzzTargets.
//
// Fuzzing (Scripts/fuzz.sh builds it with -sanitize=fuzzer,address -DFUZZING and hands the
// command line to libFuzzer's driver):
//
//     FARADAY_FUZZ_TARGET=hal .build-fuzz/release/FaradayFuzz -max_total_time=60 Fuzz/Corpus/hal
//
// Otherwise it replays files through a target: `swift run FaradayFuzz hal Fuzz/Corpus/hal`.
import CLibFuzzerDriver
import FaradayFuzzTargets
import Foundation

/// The target named by `FARADAY_FUZZ_TARGET`, read once.
let fuzzTarget = ProcessInfo.processInfo.environment["FARADAY_FUZZ_TARGET"].flatMap(FuzzTarget.init(rawValue:))

@main
struct FaradayFuzz {
    static func main() throws {
        #if FUZZING
        guard fuzzTarget != nil else {
            print("Set FARADAY_FUZZ_TARGET to one of: \(FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")).")
            exit(2)
        }
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(
            LLVMFuzzerRunDriver(&argc, &argv) { bytes, count in
                fuzzTarget?.run(bytes.map { Data(bytes: $0, count: count) } ?? Data())
                return 0
            }
        )
        #else
        try replay(CommandLine.arguments.dropFirst())
        #endif
    }

    /// Runs every file named (or in a folder named) through the target named first.
    static func replay(_ arguments: ArraySlice<String>) throws {
        guard let name = arguments.first, let target = FuzzTarget(rawValue: name) else {
            print("usage: FaradayFuzz <\(FuzzTarget.allCases.map(\.rawValue).joined(separator: "|"))> FILE_OR_FOLDER…")
            return
        }
        var count = 0
        for path in arguments.dropFirst() {
            let url = URL(fileURLWithPath: path)
            let files =
                (try? FileManager.default.contentsOfDirectory(at: url, includingPropertiesForKeys: nil)) ?? [url]
            for file in files {
                target.run(try Data(contentsOf: file))
                count += 1
            }
        }
        print("\(name): \(count) inputs replayed")
    }
}
