import Foundation
import HTTPTypes
import Testing

@testable import Faraday

/// Partial content in the cache (RFC 9111 §3.3, §3.4; RFC 9110 §15.3.7): a `206` is stored as
/// the part it holds and answers the ranges within it; parts of one representation (the same
/// strong validator) that touch are joined, into a whole `200` once every byte is there; a plain
/// `GET` resumes from a stored first part with `Range` and `If-Range`; a download cut off is kept
/// as the part that arrived.
@Suite(.timeLimit(.minutes(1))) struct HTTPCachePartialTests {
    /// The representation: 100 bytes, `0123456789` ten times.
    static let whole = String(repeating: "0123456789", count: 10)

    /// Answers like a server with ranges: `Range: bytes=a-b`, `a-` or `-n` gets a 206 of those
    /// bytes (unless `If-Range` names another validator: the whole 200), anything else the whole.
    static func answer(
        _ request: Request,
        origin: CachedOrigin,
        validator: [(String, String)] = [("ETag", "\"v1\"")],
        body: String = whole
    ) -> StubResponse {
        let fields = [("Cache-Control", "max-age=600")] + validator
        let ifRange = request.headers[.ifRange]
        let matches = ifRange == nil || validator.contains { $0.1 == ifRange }
        guard let range = request.headers[.range], matches,
            let bytes = CachePolicy.byteRange(range, length: body.utf8.count)
        else { return StubResponse(headers: origin.headers(fields), body: ResponseBody(body)) }
        let part = String(body.dropFirst(bytes.lowerBound).prefix(bytes.count))
        return StubResponse(
            status: .partialContent,
            headers: origin.headers(
                fields + [("Content-Range", "bytes \(bytes.lowerBound)-\(bytes.upperBound - 1)/\(body.utf8.count)")]
            ),
            body: ResponseBody(part)
        )
    }

    @Test func aStoredPartAnswersTheRangesWithinItAndNotTheOthers() async throws {
        let origin = CachedOrigin()
        origin.route("/v1/x") { _, request in Self.answer(request, origin: origin) }
        let (connection, _) = try origin.connection()
        let first = try await connection.get("x", headers: [.range: "bytes=10-29"]).value
        #expect(first.status == .partialContent && first.cacheStatus == .miss)
        let within = try await connection.get("x", headers: [.range: "bytes=12-15"]).value
        #expect(within.cacheStatus == .hit && within.status == .partialContent && within.response?.text == "2345")
        #expect(
            within.responseHeaders[.contentRange] == "bytes 12-15/100" && within.responseHeaders[.contentLength] == "4"
        )
        #expect(origin.requests.count == 1)
        let beyond = try await connection.get("x", headers: [.range: "bytes=25-34"]).value
        #expect(beyond.response?.text == "5678901234" && origin.requests.count == 2)
        // The part never answers a request for the whole as if it were the whole.
        let plain = try await connection.get("x", headers: [.cacheControl: "only-if-cached"]).value
        #expect(plain.status == .gatewayTimeout)
    }

    /// One row: the two ranges asked for one after the other; every row's parts touch or overlap.
    @Test(
        arguments: [("bytes=0-49", "bytes=50-99"), ("bytes=50-", "bytes=0-49"), ("bytes=0-59", "bytes=-60")],
        [false, true]
    )
    func partsOfOneRepresentationThatTouchAreJoinedIntoTheWhole(
        _ ranges: (first: String, second: String),
        onDisk: Bool
    ) async throws {
        let (first, second) = ranges
        let origin = CachedOrigin()
        origin.route("/v1/x") { _, request in Self.answer(request, origin: origin) }
        let directory = FileManager.default.temporaryDirectory.appending(path: "partial-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (connection, _) = try origin.connection(
            onDisk ? try DiskCacheStore(directory: directory) : MemoryCacheStore()
        )
        _ = try await connection.get("x", headers: [.range: first]).value
        _ = try await connection.get("x", headers: [.range: second]).value
        let whole = try await connection.get("x").value
        #expect(whole.cacheStatus == .hit && whole.status == .ok && whole.response?.text == Self.whole)
        #expect(whole.responseHeaders[.contentRange] == nil && whole.responseHeaders[.contentLength] == "100")
        #expect(origin.requests.count == 2)
    }

    @Test func threePartsAreJoinedAsTheyArrive() async throws {
        let origin = CachedOrigin()
        origin.route("/v1/x") { _, request in Self.answer(request, origin: origin) }
        let (connection, _) = try origin.connection()
        for range in ["bytes=30-59", "bytes=60-", "bytes=0-29"] {
            _ = try await connection.get("x", headers: [.range: range]).value
        }
        #expect(try await connection.get("x").value.response?.text == Self.whole)
        #expect(origin.requests.count == 3)
    }

    /// One row: the validator of the first part's response, of the second's, and whether they are
    /// one representation whose bytes may be joined.
    @Test(arguments: [
        ([("ETag", "\"v1\"")], [("ETag", "\"v2\"")], false),
        ([("ETag", "W/\"v1\"")], [("ETag", "W/\"v1\"")], false),  // weak: not byte for byte
        ([], [], false),  // nothing says they are one representation
        (
            [("Last-Modified", "Tue, 14 Nov 2023 20:00:00 GMT")], [("Last-Modified", "Tue, 14 Nov 2023 20:00:00 GMT")],
            true
        ),
        ([("ETag", "\"v1\"")], [("ETag", "\"v1\"")], true),
    ])
    func partsAreJoinedOnlyUnderOneStrongValidator(
        _ firstValidator: [(String, String)],
        _ secondValidator: [(String, String)],
        _ joined: Bool
    ) async throws {
        let origin = CachedOrigin()
        origin.route("/v1/x") { call, request in
            Self.answer(request, origin: origin, validator: call == 1 ? firstValidator : secondValidator)
        }
        let (connection, _) = try origin.connection()
        _ = try await connection.get("x", headers: [.range: "bytes=0-49"]).value
        _ = try await connection.get("x", headers: [.range: "bytes=50-99"]).value
        let next = try await connection.get("x").value
        #expect(next.response?.text == Self.whole)
        #expect(next.cacheStatus == (joined ? .hit : .miss))
        #expect(origin.requests.count == (joined ? 2 : 3))
    }

    @Test(arguments: [false, true])
    func aPlainGetResumesFromAStoredFirstPart(onDisk: Bool) async throws {
        let origin = CachedOrigin()
        origin.route("/v1/x") { _, request in Self.answer(request, origin: origin) }
        let directory = FileManager.default.temporaryDirectory.appending(path: "partial-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (connection, _) = try origin.connection(
            onDisk ? try DiskCacheStore(directory: directory) : MemoryCacheStore()
        )
        _ = try await connection.get("x", headers: [.range: "bytes=0-39"]).value
        let resumed = try await connection.get("x").value
        #expect(origin.requests.last?.headers[.range] == "bytes=40-")
        #expect(origin.requests.last?.headers[.ifRange] == "\"v1\"")
        #expect(resumed.cacheStatus == .resumed && resumed.status == .ok && resumed.response?.text == Self.whole)
        #expect(resumed.responseHeaders[.contentRange] == nil && resumed.responseHeaders[.contentLength] == "100")
        let hit = try await connection.get("x").value
        #expect(hit.cacheStatus == .hit && hit.response?.text == Self.whole && origin.requests.count == 2)
    }

    @Test func aStreamedResumeGivesTheStoredBytesFirst() async throws {
        let origin = CachedOrigin()
        origin.route("/v1/x") { _, request in Self.answer(request, origin: origin) }
        let (connection, _) = try origin.connection()
        _ = try await connection.get("x", headers: [.range: "bytes=0-39"]).value
        var received = Data()
        for try await frame in connection.get("x", streaming: .chunks).completions { received.append(frame.body) }
        #expect(String(decoding: received, as: UTF8.self) == Self.whole)
        #expect(origin.requests.last?.headers[.range] == "bytes=40-")
    }

    @Test func aChangedRepresentationAnswersTheResumeWithTheWholeNewOne() async throws {
        let origin = CachedOrigin()
        origin.route("/v1/x") { call, request in
            call == 1
                ? Self.answer(request, origin: origin)
                : Self.answer(request, origin: origin, validator: [("ETag", "\"v2\"")], body: "new")
        }
        let (connection, _) = try origin.connection()
        _ = try await connection.get("x", headers: [.range: "bytes=0-39"]).value
        let answer = try await connection.get("x").value
        #expect(answer.status == .ok && answer.cacheStatus == .miss && answer.response?.text == "new")
        #expect(try await connection.get("x").value.cacheStatus == .hit)
    }

    @Test func aResumeAnsweredWithAnotherRangeIsAskedForAgainWhole() async throws {
        let origin = CachedOrigin()
        origin.route("/v1/x") { call, request in
            // A cache on the way that ignores the Range's start.
            var request = request
            if call == 2 { request.headers[.range] = "bytes=10-" }
            return Self.answer(request, origin: origin)
        }
        let (connection, _) = try origin.connection()
        _ = try await connection.get("x", headers: [.range: "bytes=0-39"]).value
        let answer = try await connection.get("x").value
        #expect(answer.status == .ok && answer.response?.text == Self.whole)
        #expect(origin.requests.map { $0.headers[.range] } == ["bytes=0-39", "bytes=40-", nil])
    }

    /// One row: the response's fields besides the validator and length, and whether the bytes of
    /// a body cut off halfway are kept to resume from.
    @Test(arguments: [
        ([("ETag", "\"v1\"")], true),
        ([("ETag", "W/\"v1\"")], false),  // weak: another request may not get the same bytes
        ([], false),  // no validator for If-Range
    ])
    func aDownloadCutOffIsKeptAsThePartThatArrived(_ validator: [(String, String)], _ kept: Bool) async throws {
        let origin = CachedOrigin()
        origin.route("/v1/x") { call, request in
            guard call == 1 else { return Self.answer(request, origin: origin, validator: validator) }
            return StubResponse(
                headers: origin.headers([("Cache-Control", "max-age=600"), ("Content-Length", "100")] + validator),
                body: ResponseBody(pieces: [Data(Self.whole.prefix(30).utf8)]),
                ending: .fail(FaradayError(.connectionFailed, "reset"))
            )
        }
        let (connection, _) = try origin.connection()
        await #expect(throws: FaradayError.self) { try await connection.get("x", streaming: .chunks).value }
        let again = try await connection.get("x").value
        #expect(again.response?.text == Self.whole)
        #expect(again.cacheStatus == (kept ? .resumed : .miss))
        #expect(origin.requests.last?.headers[.range] == (kept ? "bytes=30-" : nil))
    }

    /// One row: a 206's `Content-Range` and body that are not one byte range it holds: not stored.
    @Test(arguments: [
        ("bytes 0-4/100", "0123456789"),  // more bytes than the range
        ("bytes 0-4,6-9/100", "012346789"), ("bytes */100", ""), ("bytes 5-4/100", ""), ("bytes 0-100/100", "0"),
        ("items 0-4/100", "01234"), ("garbage", "01234"),
    ])
    func a206ThatIsNotOneByteRangeIsNotStored(_ contentRange: String, _ body: String) async throws {
        let origin = CachedOrigin()
        origin.route("/v1/x") { _, _ in
            StubResponse(
                status: .partialContent,
                headers: origin.headers([
                    ("Cache-Control", "max-age=600"), ("ETag", "\"v1\""), ("Content-Range", contentRange),
                ]),
                body: ResponseBody(body)
            )
        }
        let (connection, _) = try origin.connection()
        _ = try await connection.get("x", headers: [.range: "bytes=0-4"]).value
        _ = try await connection.get("x", headers: [.range: "bytes=0-1"]).value
        #expect(origin.requests.count == 2)
    }

    @Test func anIncompletePartHoldsWhatArrivedAndNoMore() async throws {
        let origin = CachedOrigin()
        origin.route("/v1/x") { _, _ in
            StubResponse(
                status: .partialContent,
                headers: origin.headers([("Cache-Control", "max-age=600"), ("Content-Range", "bytes 4-9/10")]),
                body: "01234"  // five bytes of the six it says
            )
        }
        let (connection, _) = try origin.connection()
        _ = try await connection.get("x", headers: [.range: "bytes=-6"]).value
        let within = try await connection.get("x", headers: [.range: "bytes=6-8"]).value
        #expect(within.cacheStatus == .hit && within.response?.text == "234")
        let past = try await connection.get("x", headers: [.range: "bytes=-1"]).value
        #expect(past.cacheStatus == .miss && origin.requests.count == 2)
    }

    /// A response for bytes 0–59 that stops after 55, when 50–99 are stored: the part is 0–54,
    /// not 0–99 with the stored bytes it never reached (nor a whole 200 short of 45 bytes).
    @Test func aPartCutOffInsideTheStoredPartHoldsOnlyWhatArrived() async throws {
        let origin = CachedOrigin()
        origin.route("/v1/x") { call, request in
            guard call == 2 else { return Self.answer(request, origin: origin) }
            return StubResponse(
                status: .partialContent,
                headers: origin.headers([
                    ("Cache-Control", "max-age=600"), ("ETag", "\"v1\""), ("Content-Range", "bytes 0-59/100"),
                ]),
                body: ResponseBody(pieces: [Data(Self.whole.prefix(55).utf8)]),
                ending: .fail(FaradayError(.connectionFailed, "reset"))
            )
        }
        let (connection, _) = try origin.connection()
        _ = try await connection.get("x", headers: [.range: "bytes=50-"]).value  // 50–99 stored
        await #expect(throws: FaradayError.self) {
            try await connection.get("x", headers: [.range: "bytes=0-59"], streaming: .chunks).value
        }
        let within = try await connection.get("x", headers: [.range: "bytes=10-19"]).value
        #expect(within.cacheStatus == .hit && within.response?.text == "0123456789")
        let resumed = try await connection.get("x").value
        #expect(resumed.cacheStatus == .resumed && resumed.response?.text == Self.whole)
        #expect(origin.requests.last?.headers[.range] == "bytes=55-")
    }

    @Test func aResumeAnsweredNeither200Nor206DropsThePartAndAsksAgain() async throws {
        let origin = CachedOrigin()
        origin.route("/v1/x") { call, request in
            guard call == 2 else { return Self.answer(request, origin: origin) }
            return StubResponse(
                status: .rangeNotSatisfiable,
                headers: origin.headers([("Cache-Control", "max-age=600"), ("Content-Range", "bytes */20")])
            )
        }
        let (connection, _) = try origin.connection()
        _ = try await connection.get("x", headers: [.range: "bytes=0-39"]).value
        let answer = try await connection.get("x").value
        #expect(answer.status == .ok && answer.cacheStatus == .miss && answer.response?.text == Self.whole)
        #expect(origin.requests.map { $0.headers[.range] } == ["bytes=0-39", "bytes=40-", nil])
    }

    @Test func aServerErrorToAResumeIsPassedOnAndTheNextTryResumes() async throws {
        let origin = CachedOrigin()
        origin.route("/v1/x") { call, request in
            call == 2 ? StubResponse(status: .serviceUnavailable) : Self.answer(request, origin: origin)
        }
        let (connection, _) = try origin.connection()
        _ = try await connection.get("x", headers: [.range: "bytes=0-39"]).value
        #expect(try await connection.get("x").value.status == .serviceUnavailable)
        let resumed = try await connection.get("x").value
        #expect(resumed.cacheStatus == .resumed && resumed.response?.text == Self.whole)
        #expect(origin.requests.map { $0.headers[.range] } == ["bytes=0-39", "bytes=40-", "bytes=40-"])
    }

    @Test func aResumedWholeKeepsTheStoredFieldsThe206LeftOut() async throws {
        let origin = CachedOrigin()
        origin.route("/v1/x") { call, request in
            var answer = Self.answer(request, origin: origin)
            if call == 1 { answer.headers[.contentType] = "application/octet-stream" }
            return answer  // the 206 to If-Range names no Content-Type (RFC 9110 §15.3.7)
        }
        let (connection, _) = try origin.connection()
        _ = try await connection.get("x", headers: [.range: "bytes=0-39"]).value
        let resumed = try await connection.get("x").value
        #expect(resumed.cacheStatus == .resumed && resumed.responseHeaders[.contentType] == "application/octet-stream")
        #expect(try await connection.get("x").value.responseHeaders[.contentType] == "application/octet-stream")
    }

    @Test func joiningStopsAtTheLargestBodyStored() async throws {
        let origin = CachedOrigin()
        origin.route("/v1/x") { _, request in Self.answer(request, origin: origin) }
        let (connection, _) = try origin.connection { $0.maximumBodySize = 60 }
        _ = try await connection.get("x", headers: [.range: "bytes=50-"]).value
        _ = try await connection.get("x", headers: [.range: "bytes=0-49"]).value  // 100 bytes joined: too many
        #expect(try await connection.get("x", headers: [.range: "bytes=60-69"]).value.cacheStatus == .hit)
        #expect(try await connection.get("x").value.cacheStatus != .hit)
    }
}
