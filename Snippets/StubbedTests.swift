// Testing with the TestAdapter: stubs, matching, streams, failures and verification.
// snippet.hide
import Faraday
import Foundation

// snippet.show

// snippet.stubs
let stubs = TestAdapter()
stubs.get("/v1/users/1") { _, _ in
    StubResponse(headers: [.contentType: "application/json"], body: #"{"id":1,"name":"Ada"}"#)
}
stubs.stub(.post, .regex(#"/v1/users/(\d+)/notes"#), body: .equals("hi")) { _, match in
    StubResponse(status: .created, body: "note for \(match.captures[0] ?? "")")
}
let connection = try Connection(url: "https://api.example.com/v1") { builder in
    builder.use(DecodeJSON.Handler())
    builder.adapter = stubs
}
let user = try await connection.get("users/1").value
assert(user.json?["name"]?.string == "Ada")

// snippet.streams
stubs.get("/v1/feed") { _, _ in
    StubResponse(
        body: ResponseBody(pieces: [Data("a\n".utf8), Data("b\n".utf8)]),
        ending: .fail(FaradayError(.readTimeout, "slow"))
    )
}
let frames = connection.get("feed", streaming: .lines)
do {
    for try await env in frames.completions where !env.isFinal { print(env.response?.text ?? "") }
} catch {
    assert(error.code == .readTimeout)  // a FaradayError: the loop's errors are typed
}

// snippet.verify
_ = try await connection.post("users/7/notes", body: .text("hi")).value
try stubs.verifyStubbedCalls()  // throws, naming every stub no request used
assert(stubs.calls.map(\.url.path) == ["/v1/users/1", "/v1/feed", "/v1/users/7/notes"])
// snippet.end

// snippet.cassette
let cassette = CassetteAdapter(
    cassette: URL(fileURLWithPath: "Tests/Cassettes/users.json"),
    mode: .once,  // record when the file is missing, then replay only
    recordingWith: URLSessionAdapter(),
    matchers: [.method, .url, .body]
)
let recorded = try Connection(url: "https://api.example.com/v1") { $0.adapter = cassette }
_ = try await recorded.get("users/1").value

// snippet.passThrough
let mostlyStubbed = TestAdapter(passThrough: URLSessionAdapter())
mostlyStubbed.get("/v1/flags") { _, _ in StubResponse(body: #"{"beta":true}"#) }
// Every other request goes to the network.
// snippet.end
