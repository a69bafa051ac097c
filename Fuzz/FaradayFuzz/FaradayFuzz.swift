// The libFuzzer entry point for every target of FaradayFuzzTargets.
//
// Fuzzing (Scripts/fuzz.sh builds it with -sanitize=fuzzer,address -DFUZZING, so libFuzzer
// provides main):
//
//     FARADAY_FUZZ_TARGET=hal .build-fuzz/release/FaradayFuzz -max_total_time=60 Fuzz/Corpus/hal
//
// Otherwise it replays files through a target: `swift run FaradayFuzz hal Fuzz/Corpus/hal`.
import FaradayFuzzTargets
import Foundation

/// The target named by `FARADAY_FUZZ_TARGET`, read once.
let fuzzTarget: FuzzTarget = {
    let name = ProcessInfo.processInfo.environment["FARADAY_FUZZ_TARGET"] ?? ""
    guard let target = FuzzTarget(rawValue: name) else {
        let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
        fatalError("Set FARADAY_FUZZ_TARGET to one of: \(names).")
    }
    return target
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    fuzzTarget.run(Data(bytes: bytes, count: count))
    return 0
}

#if !FUZZING
@main
struct Replay {
    static func main() throws {
        let arguments = CommandLine.arguments.dropFirst()
        guard let name = arguments.first, let target = FuzzTarget(rawValue: name) else {
            print("usage: FaradayFuzz <\(FuzzTarget.allCases.map(\.rawValue).joined(separator: "|"))> FILE_OR_DIRECTORY…")
            return
        }
        var count = 0
        for path in arguments.dropFirst() {
            let url = URL(fileURLWithPath: path)
            let files = (try? FileManager.default.contentsOfDirectory(at: url, includingPropertiesForKeys: nil)) ?? [url]
            for file in files {
                target.run(try Data(contentsOf: file))
                count += 1
            }
        }
        print("\(name): \(count) inputs replayed")
    }
}
#endif
