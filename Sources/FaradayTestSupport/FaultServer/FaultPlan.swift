/// What ``FaultServer`` does with one request: answer it well, or break HTTP in one of the ways
/// real servers and networks do.
public enum Fault: String, CaseIterable, Sendable {
    /// A whole response with `Content-Length`.
    case fixedLength
    /// A whole response in chunks.
    case chunked
    /// A whole response in chunks, written a little at a time with pauses.
    case dripBody
    /// A whole response, after a pause before its head.
    case stallHead
    /// A whole response, then the connection closed a moment later, as a keep-alive timeout
    /// does: a request sent on it then meets a closed connection.
    case closeWhenIdle
    /// A whole response with `Connection: close`, the connection closed as soon as it is written,
    /// whatever the request asked (gunicorn's sync workers; nginx at its `keepalive_requests`).
    /// The close may arrive before a client has marked its request's end sent.
    case closeAfterAnswer
    /// A TCP reset before any byte of the response.
    case resetBeforeHead
    /// A TCP reset in the middle of the response's head.
    case resetInHead
    /// A TCP reset in the middle of a `Content-Length` body.
    case resetInFixedBody
    /// A TCP reset in the middle of a chunked body.
    case resetInChunkedBody
    /// A head that is not HTTP.
    case malformedHead
    /// A chunk size that is not hexadecimal.
    case malformedChunkSize
    /// The server's side closed (FIN) after the request, with no answer.
    case halfCloseAfterRequest
    /// A `413` with `Connection: close` as soon as the head arrives, before any of the request's
    /// body is read (nginx's answer to a body over its limit).
    case answerBeforeBody
    /// A `200` as soon as the head of a request with a body arrives, the connection kept (nginx's
    /// `return 200` for a POST: it reads and discards the body afterwards); the connection is then
    /// closed as the request's body ends, as a keep-alive timeout falling right then does. The
    /// answer says `x-request-body: unread`. A request without a body is answered whole.
    case okBeforeBody
    /// The request is read and never answered; the connection stays open.
    case neverAnswer

    /// How often each fault is drawn, in parts of 1,000: most answers are whole, as on a real
    /// network, and every fault comes up often enough to be met hundreds of times in 20,000 calls.
    static let weights: [(Fault, Int)] = [
        (.fixedLength, 370), (.chunked, 120), (.dripBody, 30), (.stallHead, 30), (.closeWhenIdle, 120),
        (.closeAfterAnswer, 30),
        (.resetBeforeHead, 30), (.resetInHead, 30), (.resetInFixedBody, 30), (.resetInChunkedBody, 30),
        (.malformedHead, 30), (.malformedChunkSize, 30), (.halfCloseAfterRequest, 30), (.answerBeforeBody, 30),
        (.okBeforeBody, 30), (.neverAnswer, 10),
    ]

    /// Whether a client gets the whole, right answer.
    public var answersWhole: Bool {
        switch self {
        case .fixedLength, .chunked, .dripBody, .stallHead, .closeWhenIdle, .closeAfterAnswer, .okBeforeBody: true
        default: false
        }
    }
}

/// The seeded choices of ``FaultServer``: the same seed, request name and attempt give the same
/// fault and timings on every run, whatever order requests arrive in.
struct FaultPlan: Sendable {
    let seed: UInt64

    /// The fault for the `attempt`th arrival (from 1) of the request named `name`, and a random
    /// source for its timings.
    func fault(for name: String, attempt: Int) -> (Fault, SplitMix64) {
        var random = SplitMix64(seed: seed ^ FaultServer.hash(name) ^ UInt64(attempt) &* 0x9E37_79B9_7F4A_7C15)
        var draw = Int(random.next() % 1000)
        for (fault, weight) in Fault.weights {
            if draw < weight { return (fault, random) }
            draw -= weight
        }
        return (.fixedLength, random)
    }
}

/// A small, fast, seedable random source (Steele, Lea and Flood's SplitMix64): what a test draws
/// from, so that a failure can be replayed from its seed.
package struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    package init(seed: UInt64) { state = seed }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
