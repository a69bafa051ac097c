import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

// TestProxy as a SOCKS5 proxy (RFC 1928, and RFC 1929 when it has credentials).
extension TestProxy {
    /// A SOCKS5 handshake, without authentication or with `credentials`, then a tunnel for the
    /// `CONNECT` command.
    static func serveSOCKS5(
        _ connection: NIOAsyncChannel<ByteBuffer, ByteBuffer>,
        credentials: (String, String)?,
        seen: NIOLockedValueBox<[Seen]>
    ) async {
        try? await connection.executeThenClose { inbound, outbound in
            var iterator = inbound.makeAsyncIterator()
            var buffer = ByteBuffer()
            func need(_ count: Int) async throws -> Bool {
                while buffer.readableBytes < count {
                    guard var chunk = try await iterator.next() else { return false }
                    buffer.writeBuffer(&chunk)
                }
                return true
            }
            // Greeting: version 5, the methods offered; "no authentication" (0) is chosen, or with
            // credentials "user name and password" (2).
            guard try await need(2), buffer.getInteger(at: buffer.readerIndex, as: UInt8.self) == 5,
                let methods = buffer.getInteger(at: buffer.readerIndex + 1, as: UInt8.self),
                try await need(2 + Int(methods))
            else { return }
            let offered = buffer.readBytes(length: 2 + Int(methods))?.dropFirst(2) ?? []
            let method: UInt8 = credentials == nil ? 0 : 2
            guard offered.contains(method) else {
                return try await outbound.write(ByteBuffer(bytes: [5, 0xFF]))
            }
            try await outbound.write(ByteBuffer(bytes: [5, method]))
            var user: String?
            if let credentials {
                // RFC 1929: version 1, the user name and the password, each after its length.
                guard try await need(2), buffer.getInteger(at: buffer.readerIndex, as: UInt8.self) == 1,
                    let userLength = buffer.getInteger(at: buffer.readerIndex + 1, as: UInt8.self),
                    try await need(3 + Int(userLength)),
                    let passwordLength = buffer.getInteger(
                        at: buffer.readerIndex + 2 + Int(userLength),
                        as: UInt8.self
                    ),
                    try await need(3 + Int(userLength) + Int(passwordLength)),
                    let message = buffer.readBytes(length: 3 + Int(userLength) + Int(passwordLength))
                else { return }
                let name = String(decoding: message[2..<(2 + Int(userLength))], as: UTF8.self)
                let password = String(decoding: message[(3 + Int(userLength))...], as: UTF8.self)
                guard name == credentials.0, password == credentials.1 else {
                    seen.withLockedValue {
                        $0.append(Seen(method: "SOCKS5-AUTH", target: "", proxyAuthorization: name, status: 1))
                    }
                    return try await outbound.write(ByteBuffer(bytes: [1, 1]))
                }
                user = name
                try await outbound.write(ByteBuffer(bytes: [1, 0]))
            }
            // Request: version, command, reserved, address type, address, port.
            guard try await need(5), let header = buffer.getBytes(at: buffer.readerIndex, length: 5), header[0] == 5
            else { return }
            let addressLength: Int
            switch header[3] {
            case 1: addressLength = 4
            case 3: addressLength = 1 + Int(header[4])
            case 4: addressLength = 16
            default:
                // Address type not supported.
                return try await outbound.write(ByteBuffer(bytes: [5, 8, 0, 1, 0, 0, 0, 0, 0, 0]))
            }
            guard try await need(4 + addressLength + 2), let request = buffer.readBytes(length: 4 + addressLength + 2)
            else { return }
            let address = Array(request[4..<(4 + addressLength)])
            let port = Int(request[4 + addressLength]) << 8 | Int(request[5 + addressLength])
            let host =
                switch header[3] {
                case 1: address.map(String.init).joined(separator: ".")
                // Recorded in brackets, so that an address and a name `::1` (which no resolver knows) differ.
                case 4:
                    "["
                        + ((try? SocketAddress(packedIPAddress: ByteBuffer(bytes: address), port: port))?.ipAddress
                            ?? "?") + "]"
                default: String(decoding: address.dropFirst(), as: UTF8.self)
                }
            func reply(_ code: UInt8) async throws {
                seen.withLockedValue {
                    $0.append(
                        Seen(method: "SOCKS5", target: "\(host):\(port)", proxyAuthorization: user, status: Int(code))
                    )
                }
                try await outbound.write(ByteBuffer(bytes: [5, code, 0, 1, 0, 0, 0, 0, 0, 0]))
            }
            guard header[1] == 1 else { return try await reply(7) }  // command not supported
            guard let loopbackHost = loopback(host) else { return try await reply(2) }  // not allowed
            try await relay(connection, outbound, iterator, buffer, to: loopbackHost, port: port) { opened in
                try await reply(opened ? 0 : 5)  // succeeded, or connection refused
                return nil
            }
        }
    }
}
