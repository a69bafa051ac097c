import Foundation
import HTTPTypes
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

    @Test func aChangeToACopyLeavesTheOriginalAsItWas() throws {
        let original = try makeEnv()
        var copy = original
        copy.request.headers[.accept] = "application/json"  // through `_modify`, nested
        copy.request.url = try #require(URL(string: "https://example.com/b"))
        copy.response?.body = Data()  // through `_modify` of an optional
        copy.response?.headers[.contentType] = "application/json"
        copy.phase = .final
        copy.error = FaradayError(.callTimeout, "late")
        copy[NoteKey.self] = "changed"
        copy.logger = nil

        #expect(original.request.headers[.accept] == nil)
        #expect(original.request.url.absoluteString == "https://example.com/a")
        #expect(original.body == Data("body".utf8))
        #expect(original.response?.headers[.contentType] == "text/plain")
        #expect(original.phase == .request)
        #expect(original.error == nil)
        #expect(original[NoteKey.self] == "original")

        #expect(copy.request.headers[.accept] == "application/json")
        #expect(copy.body.isEmpty)
        #expect(copy.phase == .final)
        #expect(copy.error?.code == .callTimeout)
        #expect(copy[NoteKey.self] == "changed")
    }

    @Test func anOriginalChangedAfterItWasCopiedLeavesTheCopyAsItWas() throws {
        var original = try makeEnv()
        let copy = original
        original.request.headers[.authorization] = "Bearer t"
        original[NoteKey.self] = nil
        #expect(copy.request.headers[.authorization] == nil)
        #expect(copy[NoteKey.self] == "original")
        #expect(original[NoteKey.self] == nil)
    }

    @Test func envsCopiedAcrossTasksChangeIndependently() async throws {
        let shared = try makeEnv()
        let notes = await withTaskGroup(of: String?.self) { group in
            for index in 0..<32 {
                group.addTask {
                    var mine = shared
                    mine[NoteKey.self] = "task \(index)"
                    mine.request.headers[.userAgent] = "\(index)"
                    return mine[NoteKey.self] == "task \(index)" && mine.request.headers[.userAgent] == "\(index)"
                        ? nil : "task \(index) saw another task's change"
                }
            }
            return await group.compactMap { $0 }.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(notes.isEmpty)
        #expect(shared[NoteKey.self] == "original")
        #expect(shared.request.headers[.userAgent] == nil)
    }

    @Test func anEnvPrintsItsFields() throws {
        var env = try makeEnv()
        env.error = FaradayError(.callTimeout, "late")
        var printed = ""
        dump(env, to: &printed)
        #expect(printed.contains("request"))
        #expect(printed.contains("https://example.com/a"))
        #expect(printed.contains("late"))
        #expect(printed.contains("original"))
    }
}
