import FaradayTestSupport
import Foundation
import Testing

// Raw sockets through Glibc: the servers' own check runs on Linux, where CI runs.
#if canImport(Glibc)
import Glibc

/// The in-process servers themselves: a server shut down while clients keep connecting closes
/// the connections it accepted but never served, instead of stopping the test process (a
/// `NIOAsyncChannel` dropped unclosed is a precondition failure; it stopped a full run once, in
/// `fiveHundredCancelsAtRandomPointsEndCleanly`).
@Suite(.timeLimit(.minutes(1))) struct TestServerShutdownTests {
    /// Opens a TCP connection to `port` and leaves it to the server; `false` when refused.
    private static func connect(to port: Int) -> Bool {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return false }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    @Test func aServerShutDownWhileClientsConnectClosesWhatItNeverServed() async throws {
        for _ in 0..<20 {
            let server = try await TestServer.start()
            let port = server.port
            let connecting = Task.detached {
                var connected = 0
                for _ in 0..<200 where Self.connect(to: port) { connected += 1 }
                return connected
            }
            try await Task.sleep(for: .milliseconds(2))
            try await server.shutdown()
            _ = await connecting.value
            #expect(!Self.connect(to: port), "the server stopped listening")
        }
    }
}
#endif
