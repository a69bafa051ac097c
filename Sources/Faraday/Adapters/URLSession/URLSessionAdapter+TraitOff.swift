#if !URLSession
/// Stands in for the adapter when the package's `URLSession` trait is off, so that a use of it
/// says which trait to turn on.
@available(
    *,
    unavailable,
    message:
        "URLSessionAdapter needs the faraday-swift package's URLSession trait: add .defaults to the traits you name"
)
public struct URLSessionAdapter {
    public init() {}
}
#endif
