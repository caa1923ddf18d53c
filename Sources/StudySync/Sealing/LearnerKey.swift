import Crypto
import Foundation
import StudyProgress

/// The learner's key: which learner (a 64-bit id, the folder of the remote the learner's devices
/// share) and a 256-bit secret that seals everything sync writes. The store never sees the secret.
///
/// A learner carries it to a new device as a file or as its printable form, 17 groups of four
/// letters and digits (RFC 4648 base32) with a check at the end, so a mistyped secret is refused
/// before anything is read or written:
///
/// ```
/// SYNC-ABCD-EFGH-…-WXYZ
/// ```
public struct LearnerKey: Sendable, Hashable {
    /// The learner's id: `learners/ID/` on the remote.
    public let learner: UInt64
    /// The secret.
    let secret: SymmetricKey
    let secretBytes: [UInt8]
    /// ChaCha20-Poly1305's key for objects.
    let sealingKey: SymmetricKey
    /// HMAC key of the nonce (derived from what is sealed: the same bytes seal to the same object).
    let nonceKey: SymmetricKey
    /// HMAC key of the tag in an object's name.
    let nameKey: SymmetricKey

    /// A new learner: a random id and secret.
    public static func generate() -> LearnerKey {
        var random = SystemRandomNumberGenerator()
        let secret = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &random) }
        return LearnerKey(learner: .random(in: .min ... .max, using: &random), secret: secret)
    }

    init(learner: UInt64, secret: [UInt8]) {
        self.learner = learner
        secretBytes = secret
        self.secret = SymmetricKey(data: secret)
        let salt = Array("studysync/1 learner ".utf8) + Self.bigEndian(learner)
        func derive(_ purpose: String) -> SymmetricKey {
            HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: secret), salt: salt, info: Array(purpose.utf8), outputByteCount: 32)
        }
        sealingKey = derive("seal")
        nonceKey = derive("nonce")
        nameKey = derive("name")
    }

    /// Equal learner and secret.
    public static func == (lhs: LearnerKey, rhs: LearnerKey) -> Bool {
        lhs.learner == rhs.learner && lhs.secretBytes == rhs.secretBytes
    }

    /// Hashes the learner id.
    public func hash(into hasher: inout Hasher) { hasher.combine(learner) }

    /// The learner id as 16 hexadecimal digits.
    public var learnerID: String { DeviceID(rawValue: learner).description }

    /// A short fingerprint of the whole key (learner and secret), which a progress file keeps
    /// to refuse another key later without asking the store.
    public var fingerprint: String {
        let code = HMAC<SHA256>.authenticationCode(for: Array("fingerprint".utf8), using: nameKey)
        return learnerID + "-" + Array(code).prefix(8).map { String(format: "%02x", $0) }.joined()
    }

    // MARK: The printable form

    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

    /// `SYNC-` and 68 base32 characters in groups of four: the id, the secret and a 2-byte check.
    public var printable: String {
        var bytes = Self.bigEndian(learner) + secretBytes
        bytes += Array(SHA256.hash(data: bytes)).prefix(2)
        var characters: [UInt8] = []
        var buffer = 0
        var bits = 0
        for byte in bytes {
            buffer = buffer << 8 | Int(byte)
            bits += 8
            while bits >= 5 {
                characters.append(Self.alphabet[(buffer >> (bits - 5)) & 31])
                bits -= 5
            }
        }
        if bits > 0 { characters.append(Self.alphabet[(buffer << (5 - bits)) & 31]) }
        let text = String(decoding: characters, as: UTF8.self)
        var groups: [String] = []
        var index = text.startIndex
        while index < text.endIndex {
            let end = text.index(index, offsetBy: 4, limitedBy: text.endIndex) ?? text.endIndex
            groups.append(String(text[index..<end]))
            index = end
        }
        return "SYNC-" + groups.joined(separator: "-")
    }

    /// Reads the printable form (letters in any case; dashes, spaces and line breaks ignored).
    public init(printable text: String) throws(SyncError) {
        var body = text.uppercased().filter { !"- \n\r\t".contains($0) }
        guard body.hasPrefix("SYNC") else { throw SyncError(.malformedKey, "a learner key starts with SYNC-") }
        body.removeFirst(4)
        guard body.utf8.count == 68 else {
            throw SyncError(.malformedKey, "a learner key has 68 letters and digits after SYNC-, this one has \(body.utf8.count)")
        }
        var bytes: [UInt8] = []
        var buffer = 0
        var bits = 0
        for character in body.utf8 {
            guard let value = Self.alphabet.firstIndex(of: character) else {
                throw SyncError(.malformedKey, "'\(Character(UnicodeScalar(character)))' is not a letter or digit of a learner key (A–Z, 2–7)")
            }
            buffer = (buffer << 5 | value) & 0xFFFF
            bits += 5
            if bits >= 8 {
                bytes.append(UInt8(truncatingIfNeeded: buffer >> (bits - 8)))
                bits -= 8
            }
        }
        guard bytes.count == 42, Array(SHA256.hash(data: bytes[0..<40])).prefix(2).elementsEqual(bytes[40..<42]) else {
            throw SyncError(.malformedKey, "the learner key's check does not match: a letter is mistyped")
        }
        self.init(learner: bytes[0..<8].reduce(0) { $0 << 8 | UInt64($1) }, secret: Array(bytes[8..<40]))
    }

    /// Reads a key file (its printable form).
    public init(contentsOfFile path: String) throws(SyncError) {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw SyncError(.fileSystem, "cannot read the key file: \((error as NSError).localizedDescription)", at: .file(path))
        }
        guard data.count < 4096 else { throw SyncError(.malformedKey, "a key file is a line of text", at: .file(path)) }
        do {
            try self.init(printable: String(decoding: data, as: UTF8.self))
        } catch {
            throw SyncError(error.code, error.detail, at: .file(path))
        }
    }

    static func bigEndian(_ value: UInt64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * UInt64($0))) }
    }
}
