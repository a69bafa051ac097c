import Testing

@testable import Faraday

@Suite(.timeLimit(.minutes(1))) struct LockedTests {
    @Test func concurrentUpdatesAreNeverLost() async {
        let counter = Locked(0)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    for _ in 0..<10_000 { counter.withLock { $0 += 1 } }
                }
            }
        }
        #expect(counter.withLock { $0 } == 80_000)
    }

    @Test func copiesShareOneValueAndAThrowLeavesItUnlocked() {
        struct Refused: Error {}
        let original = Locked([1])
        let copy = original
        copy.withLock { $0.append(2) }
        #expect(throws: Refused.self) { try original.withLock { _ throws(Refused) in throw Refused() } }
        #expect(original.withLock { $0 } == [1, 2])
    }
}
