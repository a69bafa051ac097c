// What the parser borrows from the rest of Faraday (Headers/HTTPText.swift), so that it compiles alone.
extension String {
    init?(utf8Validating bytes: UnsafeRawBufferPointer) {
        let decoded = String(decoding: bytes, as: UTF8.self)
        guard decoded.utf8.elementsEqual(bytes) else { return nil }
        self = decoded
    }
}
