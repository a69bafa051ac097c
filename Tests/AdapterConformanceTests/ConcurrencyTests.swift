import Faraday
import FaradayTestSupport
import Foundation
import Testing

extension AdapterConformance {
    @Suite(.timeLimit(.minutes(3))) struct ConcurrencyTests {
        @Test(arguments: AdapterKind.allCases)
        func fiveHundredConcurrentRequestsAreEachMatchedToTheirResponse(_ kind: AdapterKind) async throws {
            try await withConnection(kind) { connection, _ in
                try await withThrowingTaskGroup(of: (Int, String).self) { group in
                    for index in 0..<500 {
                        group.addTask {
                            let echo = try await connection.post(
                                "echo",
                                params: ["i": "\(index)"],
                                body: .text("body \(index)")
                            ).echo
                            return (index, echo.uri + " " + echo.body)
                        }
                    }
                    var seen = Set<Int>()
                    for try await (index, answer) in group {
                        #expect(answer == "/echo?i=\(index) body \(index)")
                        seen.insert(index)
                    }
                    #expect(seen.count == 500)
                }
            }
        }
    }
}
