// Errors: one type, a code to switch on, and what each failure carries.
// snippet.hide
import Faraday
import Foundation

struct User: Decodable, Sendable {
    let id: Int
}

let connection = try Connection(url: "https://api.example.com") { builder in
    builder.use(RaiseError.Handler())
    builder.adapter = URLSessionAdapter()
}
// snippet.show

// snippet.switch
do {
    let user = try await connection.get("users/1").decode(User.self)
    print(user.id)
} catch {
    switch error.code {
    case .connectionFailed, .connectTimeout, .readTimeout, .callTimeout:
        print("network: \(error.message)")  // or error.isTimeout
    case .tlsFailure:
        print("TLS: \(error.underlying.map { "\($0)" } ?? error.message)")
    case .unauthorized, .forbidden:
        print("sign in again")
    case .resourceNotFound:
        print("gone: \(error.url?.absoluteString ?? "")")
    case .tooManyRequests, .serverError:
        print("later: \(error.status?.code ?? 0)")
    case .parsingFailed:
        print("unexpected body: \(error.bodyText ?? "")")  // the raw body is kept
    case .cancelled:
        break
    default:
        print(error)  // code, message, method and URL, status
    }
}

// snippet.document
// A JSON error body such as {"error": {"code": "quota", "message": "Monthly quota reached"}}
// is read into `document`.
do {
    _ = try await connection.post("exports", body: .text("{}")).value
} catch {
    print(error.document?.code ?? "-", error.document?.message ?? error.message)
}

// snippet.inATask
// Swift infers `throws(any Error)` for a closure (a `Task`, a task group's child): say the type
// where the call is caught, and `catch` gets a FaradayError there too.
let firstID = Task { () -> Int? in
    do throws(FaradayError) {
        return try await connection.get("users/1").decode(User.self).id
    } catch {
        print(error.code, error.message)
        return nil
    }
}
print(await firstID.value ?? 0)

// snippet.allowed
// Statuses a caller handles itself are let through:
let lenient = try Connection(url: "https://api.example.com") { builder in
    builder.use(RaiseError.Handler(allowedStatuses: [404, 409]))
    builder.adapter = URLSessionAdapter()
}
let maybe = try await lenient.get("users/2").value
if maybe.status == .notFound { print("no user 2") }
// snippet.end
