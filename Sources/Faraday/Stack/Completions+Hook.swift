#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Completions {
    /// One layer's part in the completions: a middleware's hooks with its state for the call, or
    /// a closure of the package's.
    enum Hook: Sendable {
        case layer(LayerHooks)
        case complete(@Sendable (inout Env) throws -> Void)
        case mapError(@Sendable (FaradayError) -> FaradayError)

        func complete(_ env: inout Env) throws(FaradayError) {
            switch self {
            case .layer(let layer): try layer.complete(&env)
            case .complete(let closure):
                do { try closure(&env) } catch { throw FaradayError.wrapping(error, request: env.request) }
            case .mapError: break
            }
        }

        /// Observes or replaces an error on its way out.
        func fail(_ error: FaradayError, env: Env) -> FaradayError {
            var env = env
            env.error = error
            switch self {
            case .layer(let layer): layer.fail(error, env: env)
            case .complete: break
            case .mapError(let transform): return transform(error)
            }
            return error
        }
    }
}
