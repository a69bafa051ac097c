import Faraday
import FaradayAsyncHTTPClient
import FaradayNIO
import FaradayTestSupport
import Foundation

/// The adapters a campaign runs on.
public enum CampaignAdapter: String, CaseIterable, Sendable {
    case asyncHTTPClient
    case urlSession
    case nio

    func make() -> any Adapter {
        switch self {
        case .asyncHTTPClient: AsyncHTTPClientAdapter()
        case .urlSession: URLSessionAdapter()
        case .nio:
            if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *) {
                NIOAdapter()
            } else {
                URLSessionAdapter()
            }
        }
    }
}

/// A campaign on one adapter, with what is checked around it: the calls in use once it ended
/// (NIOAdapter counts them), and the sockets, file descriptors and server connections left once
/// the adapter is shut down.
public struct CampaignRun: Sendable {
    /// The calls' report.
    public var report: FaultCampaign.Report
    /// How many times the server drew each fault.
    public var faults: [Fault: Int]
    /// Calls NIOAdapter counted as holding a connection, or URLSessionAdapter as having a task,
    /// once every call had ended (`nil` on AsyncHTTPClientAdapter, which does not tell).
    public var callsInUseAfter: Int?
    /// This process's open file descriptors before the adapter was made and after it was shut
    /// down and the server saw every connection close (`nil` without `/proc`). Reported, not
    /// checked: in a test run, other tests open and close descriptors meanwhile.
    public var descriptorsBefore: Int?
    public var descriptorsAfter: Int?
    /// This process's sockets connected to the campaign's server once the adapter was shut down
    /// and they had up to 5 seconds to close (`nil` without `/proc`): a descriptor the adapter
    /// left open, counted apart from whatever else the process does meanwhile.
    public var socketsToServerLeft: Int?
    /// Server connections still open a while after the adapter was shut down.
    public var serverConnectionsLeft: Int

    /// What broke an invariant; empty when none did.
    public var violations: [String] {
        var found = report.violations
        if let callsInUseAfter, callsInUseAfter != 0 { found.append("\(callsInUseAfter) calls still in use") }
        if let socketsToServerLeft, socketsToServerLeft > 0 {
            found.append("\(socketsToServerLeft) sockets to the server left open")
        }
        if serverConnectionsLeft > 0 { found.append("\(serverConnectionsLeft) connections left open") }
        return found
    }

    /// Runs `campaign` on a new adapter of `kind` against a new server with `seed`, after a
    /// warm-up of one call per slot in flight on another adapter of the same kind (so that the
    /// descriptors counted before are those of a process that has used that kind already).
    public static func run(
        _ campaign: FaultCampaign,
        on kind: CampaignAdapter,
        seed: UInt64
    ) async throws -> CampaignRun {
        let server = try await FaultServer.start(seed: seed)
        var warmUp = campaign
        warmUp.calls = campaign.inFlight
        _ = try await runOnce(warmUp, kind: kind, server: server, prefix: "warm-up")
        let descriptorsBefore = openDescriptors()
        let (report, inUse) = try await runOnce(campaign, kind: kind, server: server, prefix: "call")
        let end = ContinuousClock.now + .seconds(5)
        var socketsLeft = socketsConnected(toPort: server.port)
        while let open = socketsLeft, open > 0, ContinuousClock.now < end {
            try await Task.sleep(for: .milliseconds(20))
            socketsLeft = socketsConnected(toPort: server.port)
        }
        let descriptorsAfter = openDescriptors()
        let left = server.connectionsOpen
        let faults = server.faultsDrawn
        try await server.shutdown()
        return CampaignRun(
            report: report,
            faults: faults,
            callsInUseAfter: inUse,
            descriptorsBefore: descriptorsBefore,
            descriptorsAfter: descriptorsAfter,
            socketsToServerLeft: socketsLeft,
            serverConnectionsLeft: left
        )
    }

    /// One campaign on a new adapter, which is then shut down (or let go, for URLSession) and
    /// waited for: until the server has seen its connections close, for at most 30 seconds.
    private static func runOnce(
        _ campaign: FaultCampaign,
        kind: CampaignAdapter,
        server: FaultServer,
        prefix: String
    ) async throws -> (FaultCampaign.Report, Int?) {
        var inUse: Int?
        let report: FaultCampaign.Report
        do {
            let adapter = kind.make()
            let connection = try Connection(url: server.baseURL.absoluteString) { builder in
                for handler in campaign.handlers() { builder.use(handler) }
                builder.adapter = adapter
            }
            report = await campaign.run(connection, prefix: prefix)
            if let urlSession = adapter as? URLSessionAdapter {
                // A task cancelled at its call's deadline completes on the delegate's queue a
                // moment after the call ended.
                let end = ContinuousClock.now + .seconds(5)
                while urlSession.callsInUse > 0 && ContinuousClock.now < end {
                    try await Task.sleep(for: .milliseconds(20))
                }
                inUse = urlSession.callsInUse
            }
            if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *) {
                inUse = (adapter as? NIOAdapter)?.callsInUse ?? inUse
                try await (adapter as? NIOAdapter)?.shutdown()
            }
            try await (adapter as? AsyncHTTPClientAdapter)?.shutdown()
        }
        let end = ContinuousClock.now + .seconds(30)
        while server.connectionsOpen > 0 && ContinuousClock.now < end { try await Task.sleep(for: .milliseconds(20)) }
        return (report, inUse)
    }

    /// The number of this process's open file descriptors (`/proc/self/fd`), `nil` without it.
    static func openDescriptors() -> Int? {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")).map(\.count)
    }

    /// How many of this process's descriptors are TCP sockets whose remote port is `port` (the
    /// kernel's tables in `/proc/net/tcp` and `tcp6` give each socket's inode; `/proc/self/fd`
    /// links name the inodes this process holds), `nil` without `/proc`.
    static func socketsConnected(toPort port: Int) -> Int? {
        var inodes: Set<String> = []
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            guard let text = try? String(contentsOfFile: table, encoding: .utf8) else { continue }
            for line in text.split(separator: "\n").dropFirst() {
                // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
                let fields = line.split(separator: " ")
                guard fields.count > 9, let remotePort = fields[2].split(separator: ":").last,
                    Int(remotePort, radix: 16) == port
                else { continue }
                inodes.insert(String(fields[9]))
            }
        }
        guard let descriptors = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else {
            return nil
        }
        return descriptors.count { descriptor in
            guard
                let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(descriptor)"),
                target.hasPrefix("socket:[")
            else { return false }
            return inodes.contains(String(target.dropFirst("socket:[".count).dropLast()))
        }
    }
}
