import Foundation
import HTTPTypes
import Logging
import Testing

@testable import Faraday

/// `Env` keeps its fields behind one reference and copies them on the first change: every way of
/// changing an env leaves its copies as they were.
@Suite struct EnvTests {
    private enum NoteKey: EnvKey { typealias Value = String }

    private func makeEnv() throws -> Env {
        var env = Env(request: Request(method: .get, url: try #require(URL(string: "https://example.com/a"))))
        env[NoteKey.self] = "original"
        env.response = ResponseData(status: .ok, headers: [.contentType: "text/plain"], body: Data("body".utf8))
        return env
    }

    /// What an env holds, as text: two envs with the same text hold the same. (`dump` would
    /// not do: it shows caches that fill as they are read, a URL's among them.)
    private func contents(_ env: Env) -> String {
        [
            "\(env.request.method) \(env.request.url) \(env.request.headers)",
            "\(env.status.map(String.init(describing:)) ?? "-") \(env.responseHeaders) \(env.body.count)",
            "\(env.error.map { "\($0.code)" } ?? "-") \(env.phase) \(env[NoteKey.self] ?? "-")",
            "\(env.logger?.label ?? "-") cancelled: \(env.isCancelled) \(env.bodyEncoders.count)",
        ].joined(separator: "\n")
    }

    /// Each way of changing an env, each on a fresh copy (the first change of a copy is the one
    /// that must copy the shared fields).
    private static let changes: [(String, @Sendable (inout Env) throws -> Void)] = [
        (
            "request set",
            { $0.request = Request(method: .post, url: try #require(URL(string: "https://example.com/b"))) }
        ),
        ("request modified", { $0.request.headers[.accept] = "application/json" }),
        ("response set", { $0.response = nil }),
        ("response modified", { $0.response?.body = Data() }),
        ("error set", { $0.error = FaradayError(.callTimeout, "late") }),
        ("phase set", { $0.phase = .final }),
        ("value set", { $0[NoteKey.self] = "changed" }),
        ("value removed", { $0[NoteKey.self] = nil }),
        ("logger set", { $0.logger = Logger(label: "test") }),
        ("body encoders set", { $0.bodyEncoders = [EncodeJSON.Handler()] }),
        (
            "attempt made and cancelled",
            {
                $0 = $0.forAttempt()
                $0.cancel()
            }
        ),
    ]

    @Test func aChangeToACopyLeavesTheOriginalAsItWas() throws {
        let original = try makeEnv()
        let before = contents(original)
        for (name, change) in Self.changes {
            var copy = original
            try change(&copy)
            #expect(contents(copy) != before, "\(name) changed nothing")
            #expect(contents(original) == before, "\(name) reached the original")
        }
    }

    @Test func aChangeToTheOriginalLeavesItsCopyAsItWas() throws {
        for (name, change) in Self.changes {
            var original = try makeEnv()
            let copy = original
            let before = contents(copy)
            try change(&original)
            #expect(contents(copy) == before, "\(name) reached the copy")
        }
    }

    @Test func envsCopiedAcrossTasksChangeIndependently() async throws {
        let shared = try makeEnv()
        let before = contents(shared)
        let failures = await withTaskGroup(of: String?.self) { group in
            for index in 0..<32 {
                group.addTask {
                    var mine = shared
                    mine.request.headers[.userAgent] = "\(index)"
                    mine[NoteKey.self] = "task \(index)"
                    let isMine = mine[NoteKey.self] == "task \(index)" && mine.request.headers[.userAgent] == "\(index)"
                    return isMine ? nil : "task \(index) saw another task's change"
                }
            }
            return await group.reduce(into: [String]()) { if let failure = $1 { $0.append(failure) } }
        }
        #expect(failures.isEmpty)
        #expect(contents(shared) == before)
    }

    /// `print` and `dump` show an env's fields, not its storage.
    @Test func anEnvShowsItsFields() throws {
        let labels = Mirror(reflecting: try makeEnv()).children.compactMap(\.label)
        #expect(labels == ["request", "response", "error", "phase", "cancellation", "extensions", "bodyEncoders"])
    }

    /// A monitor's `CallInfo` shows the call's number, request and elapsed time, not the env it
    /// keeps the request in.
    @Test func aCallInfoShowsItsRequest() throws {
        let info = CallInfo(id: 7, entered: try makeEnv(), elapsed: .seconds(1))
        #expect(Mirror(reflecting: info).children.compactMap(\.label) == ["id", "request", "elapsed"])
        #expect(info.request.url.absoluteString == "https://example.com/a")
    }
}
