import HTTPTypes

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The work of ``Connection/download(_:params:headers:to:resumeAttempts:configure:)``: calls the
/// stack, writes the body to the partial file as it streams, resumes a cut transfer with a
/// range, and moves the whole file into place.
struct FileDownload: Sendable {
    let destination: URL
    let resumeAttempts: Int

    /// What to do with one response.
    private enum Plan {
        /// Write the body from `offset`; the file's whole length is `total` when known.
        case write(from: Int64, total: Int64?, validator: String?)
        /// The range did not fit (a 416, a 206 for another range or version): start over without one.
        case startOver
        /// The partial file is whole already (a 416 naming its length).
        case complete(Int64)
        /// Not a success: hand the response up as it is.
        case passUp
    }

    /// The codes of a transfer cut short, which a range can pick up.
    private static let resumable: Set<FaradayError.Code> = [.connectionFailed, .readTimeout, .invalidResponse]

    func run(_ app: any App, _ env: Env) async throws -> Completions {
        let partial = PartialDownload(destination: destination)
        var resumedFrom: [Int64] = []
        var resumesLeft = resumeAttempts
        var hasStartedOver = false
        while true {
            try env.cancellation.check()
            // The adapter's counts are of one response; the download reports the file's.
            var attempt = env.forAttempt(sharesProgress: false)
            let resume = partial.resumePoint(for: env.request.url)
            if let resume {
                attempt.request.headers[.range] = "bytes=\(resume.offset)-"
                attempt.request.headers[.ifRange] = resume.validator
            }
            let completions = try await app.call(attempt)
            switch Self.plan(for: completions.head, resumingAt: resume) {
            case .complete(let length):
                completions.discard()
                var final = completions.head
                final.phase = .final
                final.downloadedFile = DownloadedFile(url: destination, length: length, resumedFrom: [length])
                return Self.committing(partial, final, unless: env.cancellation)
            case .passUp:
                return try await Self.buffered(completions, limit: env.request.options.maxBufferedBodySize)
            case .startOver:
                completions.discard()
                partial.remove()
                guard !hasStartedOver else {
                    throw FaradayError(
                        .invalidResponse,
                        "The server answered a range request with a range that was not asked for, twice.",
                        method: env.request.method,
                        url: env.request.url
                    )
                }
                hasStartedOver = true
                continue
            case .write(let offset, let total, let validator):
                if offset > 0 { resumedFrom.append(offset) }
                let file = try partial.open(at: offset, url: env.request.url, validator: validator)
                let outcome = try await Self.write(completions, to: file, from: offset, total: total, env: env)
                switch outcome {
                case .cut(let error):
                    guard resumesLeft > 0, Self.resumable.contains(error.code) else { throw error }
                    resumesLeft -= 1
                    continue
                case .finished(var final, let written):
                    if let total, written != total {
                        throw FaradayError(
                            .invalidResponse,
                            "The download ended after \(written) of \(total) bytes.",
                            method: env.request.method,
                            url: env.request.url
                        )
                    }
                    final.response?.body = Data()
                    final.downloadedFile = DownloadedFile(url: destination, length: written, resumedFrom: resumedFrom)
                    return Self.committing(partial, final, unless: env.cancellation)
                }
            }
        }
    }

    private enum Outcome {
        case finished(Env, written: Int64)
        case cut(FaradayError)
    }

    /// Writes the frames of `completions` to `file` from `offset`, reporting the file's progress.
    private static func write(
        _ completions: Completions,
        to file: OpenFile,
        from offset: Int64,
        total: Int64?,
        env: Env
    ) async throws(FaradayError) -> Outcome {
        defer { try? file.close() }
        var written = offset
        env.reportProgress(received: written, of: total)
        while true {
            let frame: Env
            do throws(FaradayError) {
                guard let next = try await completions.next() else {
                    throw FaradayError(.cancelled, "The download was cancelled.")
                }
                frame = next
            } catch {
                if error.code == .cancelled { throw error }
                return .cut(error)
            }
            if frame.isFinal { return .finished(frame, written: written) }
            // A cancelled call writes nothing more: bytes the adapter had received before the
            // cancel reached it would otherwise complete the file (issue 45).
            do throws(FaradayError) {
                try env.cancellation.check()
            } catch {
                completions.discard()
                throw error
            }
            do {
                // File writes block: off an adapter's event loop when the call runs on one.
                try await Offload.run { try file.write(contentsOf: frame.body) }
            } catch {
                completions.discard()
                throw FaradayError(.storageFailed, "Cannot write the download: \(error)")
            }
            written += Int64(frame.body.count)
            env.reportProgress(received: written, of: total)
        }
    }

    private static func plan(for head: Env, resumingAt resume: (offset: Int64, validator: String)?) -> Plan {
        let headers = head.responseHeaders
        guard let status = head.status?.code, (200..<300).contains(status) else {
            guard let resume, head.status?.code == 416 else { return .passUp }
            // `bytes */N`: the file has N bytes; a part of exactly that length is whole.
            let field = headers[.contentRange] ?? ""
            if field.hasPrefix("bytes */"), Int64(asciiDigits: field.dropFirst(8)) == resume.offset {
                return .complete(resume.offset)
            }
            return .startOver
        }
        // A body a layer decoded (the server sent gzip all the same) is not the representation
        // ranges count: it is written whole and never resumed.
        let isDecoded = head.decodedContentEncoding != nil
        guard status == 206 else {
            let length = isDecoded ? nil : headers[.contentLength].flatMap { Int64(asciiDigits: $0) }
            return .write(from: 0, total: length, validator: isDecoded ? nil : validator(of: headers))
        }
        if isDecoded { return .startOver }
        // The rest of the same file: from where the part stops, to its end, under the same ETag
        // (a server that ignores If-Range would otherwise splice two versions).
        guard let resume, let range = ContentRange(headers[.contentRange]), range.first == resume.offset,
            range.completeLength.map({ range.last == $0 - 1 }) ?? true,
            headers[.eTag].map({ !resume.validator.hasPrefix("\"") || $0 == resume.validator }) ?? true
        else { return .startOver }
        return .write(from: resume.offset, total: range.completeLength, validator: nil)
    }

    /// The validator a later `If-Range` may carry: a strong ETag, or a `Last-Modified` at least a
    /// second before the response's `Date` (RFC 9110 §13.1.5); none for an encoded body, whose
    /// ranges would not count the bytes written.
    static func validator(of headers: HTTPFields) -> String? {
        if let encoding = headers[.contentEncoding], encoding.lowercased() != "identity" { return nil }
        return headers.strongValidator
    }

    /// The one completion the handle hands out: the body (if any) in the final env, not cut into
    /// frames again as the streamed request the download made would have it.
    private static func completion(_ final: Env) -> Completions {
        var final = final
        final.request.options.streaming = nil
        return .buffered(final)
    }

    /// The whole file's completion, which moves the file into place as the handle takes it: a
    /// call cancelled before then fails `cancelled` with its part kept and no destination, and a
    /// call that got its file is not reported cancelled by a cancel that came too late.
    private static func committing(
        _ partial: PartialDownload,
        _ final: Env,
        unless cancellation: CancellationToken
    ) -> Completions {
        completion(final).onComplete { env in
            guard env.isFinal else { return }
            try cancellation.check()
            try partial.commit()
        }
    }

    /// A response that is not a download, with its body buffered as any call's.
    private static func buffered(_ completions: Completions, limit: Int) async throws(FaradayError) -> Completions {
        var body = Data()
        while let env = try await completions.next() {
            guard env.isFinal else {
                body.append(env.body)
                if body.count > limit {
                    completions.discard()
                    throw FaradayError(.bodyTooLarge, "The response body is larger than \(limit) bytes.")
                }
                continue
            }
            var final = env
            final.response?.body = body
            return Self.completion(final)
        }
        throw FaradayError(.cancelled, "The download was cancelled.")
    }
}
