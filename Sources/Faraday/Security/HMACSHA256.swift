#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// HMAC-SHA256 (RFC 2104 over FIPS 180-4's SHA-256), for the core's keyed digests: the cache
/// keys a user's credentials by it, so that neither its keys nor its files hold them. The core
/// depends on no crypto library (swift-crypto is for the targets that need more); this is tested
/// against NIST's SHA-256 examples and RFC 4231's HMAC cases.
struct HMACSHA256: Sendable {
    /// The key, padded to a block (hashed first when longer), XORed with the inner and the outer
    /// pads.
    private let innerPad: [UInt8]
    private let outerPad: [UInt8]

    init(key: some Collection<UInt8>) {
        var block = key.count > SHA256.blockSize ? SHA256.hash(key) : Array(key)
        block += [UInt8](repeating: 0, count: SHA256.blockSize - block.count)
        innerPad = block.map { $0 ^ 0x36 }
        outerPad = block.map { $0 ^ 0x5c }
    }

    /// The 32-byte authentication code of `message`.
    func code(for message: some Collection<UInt8>) -> [UInt8] {
        var inner = SHA256()
        inner.update(innerPad)
        inner.update(message)
        var outer = SHA256()
        outer.update(outerPad)
        outer.update(inner.finalize())
        return outer.finalize()
    }

    /// A new random key of 32 bytes, from the system's secure generator.
    static func randomKey() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in generator.next() }
    }
}

/// SHA-256 (FIPS 180-4), fed in pieces.
struct SHA256 {
    static let blockSize = 64

    private var state: [UInt32] = [
        0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19,
    ]
    private var pending: [UInt8] = []
    private var length: UInt64 = 0

    private static let k: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]

    /// The digest of `message` in one call.
    static func hash(_ message: some Collection<UInt8>) -> [UInt8] {
        var sha = SHA256()
        sha.update(message)
        return sha.finalize()
    }

    mutating func update(_ bytes: some Collection<UInt8>) {
        length &+= UInt64(bytes.count)
        pending.append(contentsOf: bytes)
        guard pending.count >= Self.blockSize else { return }
        let whole = pending.count - pending.count % Self.blockSize
        pending.withUnsafeBufferPointer { buffer in
            for start in stride(from: 0, to: whole, by: Self.blockSize) {
                compress(UnsafeBufferPointer(rebasing: buffer[start..<start + Self.blockSize]))
            }
        }
        pending.removeFirst(whole)
    }

    /// The 32-byte digest of everything fed.
    mutating func finalize() -> [UInt8] {
        let bits = length &* 8
        var tail: [UInt8] = [0x80]
        tail += [UInt8](repeating: 0, count: (Self.blockSize * 2 - 9 - pending.count % Self.blockSize) % 64)
        tail += (0..<8).map { UInt8(truncatingIfNeeded: bits >> (56 - 8 * UInt64($0))) }
        update(tail)
        return state.flatMap { word in (0..<4).map { UInt8(truncatingIfNeeded: word >> (24 - 8 * UInt32($0))) } }
    }

    private mutating func compress(_ block: UnsafeBufferPointer<UInt8>) {
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { compress(block, schedule: $0) }
    }

    private mutating func compress(_ block: UnsafeBufferPointer<UInt8>, schedule w: UnsafeMutableBufferPointer<UInt32>)
    {
        for t in 0..<16 {
            w[t] =
                UInt32(block[4 * t]) << 24 | UInt32(block[4 * t + 1]) << 16 | UInt32(block[4 * t + 2]) << 8
                | UInt32(block[4 * t + 3])
        }
        for t in 16..<64 {
            let s0 = w[t - 15].rotatedRight(7) ^ w[t - 15].rotatedRight(18) ^ (w[t - 15] >> 3)
            let s1 = w[t - 2].rotatedRight(17) ^ w[t - 2].rotatedRight(19) ^ (w[t - 2] >> 10)
            w[t] = w[t - 16] &+ s0 &+ w[t - 7] &+ s1
        }
        var (a, b, c, d, e, f, g, h) = (state[0], state[1], state[2], state[3], state[4], state[5], state[6], state[7])
        for t in 0..<64 {
            let s1 = e.rotatedRight(6) ^ e.rotatedRight(11) ^ e.rotatedRight(25)
            let choice = (e & f) ^ (~e & g)
            let temp1 = h &+ s1 &+ choice &+ Self.k[t] &+ w[t]
            let s0 = a.rotatedRight(2) ^ a.rotatedRight(13) ^ a.rotatedRight(22)
            let majority = (a & b) ^ (a & c) ^ (b & c)
            let temp2 = s0 &+ majority
            (h, g, f, e, d, c, b, a) = (g, f, e, d &+ temp1, c, b, a, temp1 &+ temp2)
        }
        for (index, value) in [a, b, c, d, e, f, g, h].enumerated() { state[index] &+= value }
    }
}

extension UInt32 {
    fileprivate func rotatedRight(_ count: UInt32) -> UInt32 { self >> count | self << (32 - count) }
}
