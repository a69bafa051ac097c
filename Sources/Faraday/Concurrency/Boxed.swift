/// An immutable value behind one reference. Large values that every request and every copy of
/// its env carry but that rarely change (options, an error that is almost always absent) live in
/// one, so that a copy is one reference rather than hundreds of bytes; a change makes a new box.
final class Boxed<Value: Sendable>: Sendable {
    let value: Value

    init(_ value: Value) { self.value = value }
}
