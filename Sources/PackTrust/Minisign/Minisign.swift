import Crypto
import Foundation

/// minisign's key and signature files (https://jedisct1.github.io/minisign/), read and written
/// byte for byte as `minisign` does, so either tool verifies what the other signed.
///
/// - Public key: `untrusted comment: …`, then base64 of `Ed`, the 8-byte key id and the 32-byte
///   Ed25519 public key.
/// - Secret key (unencrypted, as `minisign -G -W` writes it): base64 of `Ed`, the KDF algorithm
///   (two zero bytes: none), `B2`, 48 zero bytes of KDF salt and limits, the key id, the 64-byte
///   Ed25519 secret key (seed, then public key) and a 32-byte checksum, BLAKE2b-256 of `Ed`, the
///   key id and the secret key (minisign itself writes zeros there for unencrypted keys; both
///   are read).
/// - Signature: `untrusted comment: …`, base64 of the algorithm (`ED`: Ed25519 over BLAKE2b-512
///   of the file, minisign's default; `Ed`: over the file itself, `-l`), the key id and the
///   signature; `trusted comment: …`; base64 of the global signature, Ed25519 over the signature
///   and the trusted comment, which is how the comment is signed too.
public enum Minisign {
    /// The signature algorithms.
    public enum Algorithm: String, Sendable {
        /// `ED`: Ed25519 over BLAKE2b-512 of the file (minisign's default).
        case prehashed = "ED"
        /// `Ed`: Ed25519 over the file itself (`minisign -l`).
        case legacy = "Ed"
    }

    static let untrustedPrefix = "untrusted comment: "
    static let trustedPrefix = "trusted comment: "
    /// The longest trusted comment minisign accepts.
    static let maxTrustedComment = 8192
    /// The largest key or signature file read (a signature with the longest comments is < 12 KiB).
    /// The largest key or signature file read.
    public static let maxFileSize = 64 * 1024

    /// An 8-byte key id, shown as minisign shows it: 16 uppercase hex digits of the id read as a
    /// little-endian number.
    public struct KeyID: Hashable, Sendable, CustomStringConvertible {
        /// The id's eight bytes, as the files carry them.
        public let bytes: [UInt8]

        init(_ bytes: some Collection<UInt8>) { self.bytes = Array(bytes) }

        /// The id from its 16 hex digits as ``description`` writes them.
        public init?(hex: String) {
            let digits = Array(hex.utf8)
            guard digits.count == 16 else { return nil }
            var bytes: [UInt8] = []
            for index in stride(from: 14, through: 0, by: -2) {
                guard let byte = UInt8(String(decoding: digits[index..<index + 2], as: UTF8.self), radix: 16) else { return nil }
                bytes.append(byte)
            }
            self.bytes = bytes
        }

        /// 16 uppercase hex digits, as minisign prints the id.
        public var description: String {
            bytes.reversed().map { String($0, radix: 16, uppercase: true) }.map { $0.count == 1 ? "0" + $0 : $0 }.joined()
        }
    }

    /// A public key: its id and the Ed25519 key.
    public struct PublicKey: Sendable, Equatable {
        /// The key id that signatures name.
        public let id: KeyID
        /// The Ed25519 public key.
        public let key: Curve25519.Signing.PublicKey

        /// The same id and key.
        public static func == (a: PublicKey, b: PublicKey) -> Bool {
            a.id == b.id && a.key.rawRepresentation == b.key.rawRepresentation
        }

        init(id: KeyID, key: Curve25519.Signing.PublicKey) {
            self.id = id
            self.key = key
        }

        /// The key from the base64 string `minisign -P` takes (56 characters).
        public init(base64 text: String) throws(TrustError) {
            let raw = try Minisign.decode(text.trimmingCharacters(in: .whitespaces), count: 42, what: "public key", code: .malformedKey)
            guard raw.prefix(2).elementsEqual("Ed".utf8) else {
                throw TrustError(.malformedKey, "not an Ed25519 key (algorithm \(Minisign.printable(raw.prefix(2))))", at: .field("public key"))
            }
            guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: raw[10..<42]) else {
                throw TrustError(.malformedKey, "not a valid Ed25519 public key", at: .field("public key"))
            }
            self.init(id: KeyID(raw[2..<10]), key: key)
        }

        /// The key from a `.pub` file's contents.
        public init(fileContents: [UInt8]) throws(TrustError) {
            let lines = try Minisign.lines(fileContents, what: "public key file", code: .malformedKey)
            guard lines.count == 2, lines[0].hasPrefix(Minisign.untrustedPrefix) else {
                throw TrustError(.malformedKey, "expected an untrusted comment line and a base64 key line", at: .field("public key"))
            }
            try self.init(base64: lines[1])
        }

        /// The base64 string (`minisign -P` form).
        public var base64: String { Data(Array("Ed".utf8) + id.bytes + key.rawRepresentation).base64EncodedString() }

        /// A `.pub` file, as `minisign -G` writes it.
        public var fileContents: String { "\(Minisign.untrustedPrefix)minisign public key \(id)\n\(base64)\n" }

        /// Checks `signature` on `message` and the global signature on its trusted comment.
        ///
        /// - Throws: ``TrustError/Code/keyMismatch`` for a signature by another key,
        ///   ``TrustError/Code/badSignature`` when it does not verify for these bytes,
        ///   ``TrustError/Code/badTrustedComment`` when the trusted comment or its signature changed.
        public func verify(_ signature: Signature, of message: UnsafeRawBufferPointer) throws(TrustError) {
            var digest: [UInt8]?
            try verify(signature, of: message, digest: &digest)
        }

        /// ``verify(_:of:)``, reusing the message's BLAKE2b-512 in `digest` when it is there (and
        /// leaving it there once computed): one pass over a large message for several keys.
        func verify(_ signature: Signature, of message: UnsafeRawBufferPointer, digest: inout [UInt8]?) throws(TrustError) {
            guard signature.keyID == id else {
                throw TrustError(.keyMismatch, "signed by key \(signature.keyID), not by key \(id)", at: .field("signature"))
            }
            let verified: Bool
            switch signature.algorithm {
            case .prehashed:
                let hash = digest ?? BLAKE2b.hash(message)
                digest = hash
                verified = key.isValidSignature(signature.signature, for: hash)
            case .legacy:
                verified = key.isValidSignature(signature.signature, for: message)
            }
            guard verified else {
                throw TrustError(.badSignature, "the signature does not match the file's bytes", at: .field("signature"))
            }
            guard key.isValidSignature(signature.globalSignature, for: signature.signature + Array(signature.trustedComment.utf8)) else {
                throw TrustError(.badTrustedComment, "the trusted comment does not match its signature", at: .field("trusted comment"))
            }
        }

        /// ``verify(_:of:)`` over an array.
        public func verify(_ signature: Signature, of message: [UInt8]) throws(TrustError) {
            try message.withUnsafeBytes { raw in Result { () throws(TrustError) in try verify(signature, of: raw) } }.get()
        }
    }

    /// A secret key: its id and the Ed25519 private key.
    public struct SecretKey: Sendable {
        /// The key id its signatures carry.
        public let id: KeyID
        /// The Ed25519 private key.
        public let key: Curve25519.Signing.PrivateKey

        /// A new random key pair.
        public static func generate() -> SecretKey {
            var id = [UInt8](repeating: 0, count: 8)
            var generator = SystemRandomNumberGenerator()
            for index in id.indices { id[index] = UInt8.random(in: .min ... .max, using: &generator) }
            return SecretKey(id: KeyID(id), key: Curve25519.Signing.PrivateKey())
        }

        init(id: KeyID, key: Curve25519.Signing.PrivateKey) {
            self.id = id
            self.key = key
        }

        /// The matching public key.
        public var publicKey: PublicKey { PublicKey(id: id, key: key.publicKey) }

        /// The key from a `.key` file's contents (unencrypted).
        public init(fileContents: [UInt8]) throws(TrustError) {
            let lines = try Minisign.lines(fileContents, what: "secret key file", code: .malformedKey)
            guard lines.count == 2, lines[0].hasPrefix(Minisign.untrustedPrefix) else {
                throw TrustError(.malformedKey, "expected an untrusted comment line and a base64 key line", at: .field("secret key"))
            }
            let raw = try Minisign.decode(lines[1], count: 158, what: "secret key", code: .malformedKey)
            guard raw[0..<2].elementsEqual("Ed".utf8), raw[4..<6].elementsEqual("B2".utf8) else {
                throw TrustError(.malformedKey, "not a minisign Ed25519 secret key", at: .field("secret key"))
            }
            guard raw[2] == 0, raw[3] == 0 else {
                throw TrustError(
                    .encryptedKey, "the key is encrypted with a password; packtool reads unencrypted keys (packtool keygen, or minisign -G -W)", at: .field("secret key"))
            }
            let id = KeyID(raw[54..<62])
            let secret = Array(raw[62..<126])
            let checksum = raw[126..<158]
            guard checksum.allSatisfy({ $0 == 0 }) || checksum.elementsEqual(Self.checksum(id: id, secret: secret)) else {
                throw TrustError(.malformedKey, "the key's checksum does not match: the file is damaged", at: .field("secret key"))
            }
            guard let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: secret[0..<32]),
                key.publicKey.rawRepresentation.elementsEqual(secret[32..<64])
            else { throw TrustError(.malformedKey, "its two halves do not belong together: the file is damaged", at: .field("secret key")) }
            self.init(id: id, key: key)
        }

        /// A `.key` file in minisign's unencrypted format.
        public var fileContents: String {
            let secret = Array(key.rawRepresentation) + Array(key.publicKey.rawRepresentation)
            var raw = Array("Ed".utf8) + [0, 0] + Array("B2".utf8) + [UInt8](repeating: 0, count: 48)
            raw += id.bytes + secret + Self.checksum(id: id, secret: secret)
            return "\(Minisign.untrustedPrefix)minisign secret key\n\(Data(raw).base64EncodedString())\n"
        }

        static func checksum(id: KeyID, secret: [UInt8]) -> [UInt8] {
            BLAKE2b.hash(Array("Ed".utf8) + id.bytes + secret, digestLength: 32)
        }

        /// Signs `message`: Ed25519 over its BLAKE2b-512 (`.prehashed`) or over the bytes
        /// (`.legacy`), and the global signature over the signature and the trusted comment.
        public func sign(
            _ message: UnsafeRawBufferPointer, trustedComment: String, untrustedComment: String = "signature from packtool secret key",
            algorithm: Algorithm = .prehashed
        ) throws(TrustError) -> Signature {
            let comment = String(trustedComment.unicodeScalars.filter { $0 != "\n" && $0 != "\r" })
            guard comment.utf8.count <= Minisign.maxTrustedComment else {
                throw TrustError(.invalidArgument, "the trusted comment is longer than \(Minisign.maxTrustedComment) bytes")
            }
            let signed: [UInt8] =
                switch algorithm {
                case .prehashed: BLAKE2b.hash(message)
                case .legacy: Array(message)
                }
            do {
                let signature = Array(try key.signature(for: signed))
                let global = Array(try key.signature(for: signature + Array(comment.utf8)))
                return Signature(
                    algorithm: algorithm, keyID: id, signature: signature, trustedComment: comment, globalSignature: global,
                    untrustedComment: String(untrustedComment.unicodeScalars.filter { $0 != "\n" && $0 != "\r" }))
            } catch {
                throw TrustError(.badSignature, "Ed25519 signing failed: \(error)")
            }
        }

        /// ``sign(_:trustedComment:untrustedComment:algorithm:)`` over an array.
        public func sign(_ message: [UInt8], trustedComment: String, algorithm: Algorithm = .prehashed) throws(TrustError) -> Signature {
            try message.withUnsafeBytes { raw in
                Result { () throws(TrustError) in try sign(raw, trustedComment: trustedComment, algorithm: algorithm) }
            }.get()
        }
    }

    /// One signature as a `.minisig` file carries it.
    public struct Signature: Sendable, Equatable {
        /// `ED` (prehashed) or `Ed` (legacy).
        public var algorithm: Algorithm
        /// The id of the key that signed.
        public var keyID: KeyID
        /// The Ed25519 signature of the file (or of its BLAKE2b-512).
        public var signature: [UInt8]
        /// The signed comment (one line, without the `trusted comment: ` prefix).
        public var trustedComment: String
        /// The Ed25519 signature of ``signature`` followed by ``trustedComment``.
        public var globalSignature: [UInt8]
        /// The first line's comment (without its prefix); not signed.
        public var untrustedComment: String

        /// The four lines of a `.minisig` file.
        public var fileContents: String {
            let line = Data(Array(algorithm.rawValue.utf8) + keyID.bytes + signature).base64EncodedString()
            return "\(Minisign.untrustedPrefix)\(untrustedComment)\n\(line)\n\(Minisign.trustedPrefix)\(trustedComment)\n"
                + "\(Data(globalSignature).base64EncodedString())\n"
        }

        /// The signatures of a `.minisig` file: one block of four lines, or several one after
        /// another (a catalog signed by more than one key; `minisign -V` reads the first).
        public static func parseAll(_ contents: [UInt8]) throws(TrustError) -> [Signature] {
            let lines = try Minisign.lines(contents, what: "signature file", code: .malformedSignature)
            guard !lines.isEmpty, lines.count % 4 == 0 else {
                throw TrustError(.malformedSignature, "expected blocks of four lines, found \(lines.count) lines", at: .field("signature"))
            }
            var signatures: [Signature] = []
            for start in stride(from: 0, to: lines.count, by: 4) {
                signatures.append(try Signature(lines: Array(lines[start..<start + 4])))
            }
            return signatures
        }

        /// The signature of a `.minisig` file of one block.
        public init(fileContents: [UInt8]) throws(TrustError) {
            let all = try Self.parseAll(fileContents)
            guard all.count == 1 else {
                throw TrustError(.malformedSignature, "expected one signature, found \(all.count)", at: .field("signature"))
            }
            self = all[0]
        }

        init(
            algorithm: Algorithm, keyID: KeyID, signature: [UInt8], trustedComment: String, globalSignature: [UInt8],
            untrustedComment: String
        ) {
            self.algorithm = algorithm
            self.keyID = keyID
            self.signature = signature
            self.trustedComment = trustedComment
            self.globalSignature = globalSignature
            self.untrustedComment = untrustedComment
        }

        private init(lines: [String]) throws(TrustError) {
            guard lines[0].hasPrefix(Minisign.untrustedPrefix) else {
                throw TrustError(.malformedSignature, "the first line is not an untrusted comment", at: .field("untrusted comment"))
            }
            let raw = try Minisign.decode(lines[1], count: 74, what: "signature", code: .malformedSignature)
            guard let algorithm = Algorithm(rawValue: String(decoding: raw[0..<2], as: UTF8.self)) else {
                throw TrustError(.malformedSignature, "unknown algorithm \(Minisign.printable(raw[0..<2]))", at: .field("signature"))
            }
            guard lines[2].hasPrefix(Minisign.trustedPrefix) else {
                throw TrustError(.malformedSignature, "the third line is not a trusted comment", at: .field("trusted comment"))
            }
            let comment = String(lines[2].dropFirst(Minisign.trustedPrefix.count))
            guard comment.utf8.count <= Minisign.maxTrustedComment else {
                throw TrustError(.malformedSignature, "longer than \(Minisign.maxTrustedComment) bytes", at: .field("trusted comment"))
            }
            let global = try Minisign.decode(lines[3], count: 64, what: "global signature", code: .malformedSignature)
            self.init(
                algorithm: algorithm, keyID: KeyID(raw[2..<10]), signature: Array(raw[10..<74]), trustedComment: comment,
                globalSignature: global, untrustedComment: String(lines[0].dropFirst(Minisign.untrustedPrefix.count)))
        }
    }

    /// The file's lines (`\n` or `\r\n`, a last newline optional), UTF-8 and bounded in size.
    static func lines(_ contents: [UInt8], what: String, code: TrustError.Code) throws(TrustError) -> [String] {
        guard contents.count <= maxFileSize else {
            throw TrustError(code, "the \(what) is \(contents.count) bytes, more than the \(maxFileSize) a \(what) can have")
        }
        guard let text = String(validating: contents, as: UTF8.self) else {
            throw TrustError(code, "the \(what) is not UTF-8 text")
        }
        // Split on the scalar, not the Character: Swift reads "\r\n" as one Character, so a
        // Character split would leave a CRLF file in one line. minisign trims a trailing CR and
        // LF from each line it reads; so does this.
        var lines = text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            String(line.last == "\r" ? line.dropLast() : line)
        }
        if lines.last == "" { lines.removeLast() }
        return lines
    }

    /// Strict base64 of exactly `count` bytes.
    static func decode(_ text: String, count: Int, what: String, code: TrustError.Code) throws(TrustError) -> [UInt8] {
        guard let data = Data(base64Encoded: text) else {
            throw TrustError(code, "the \(what) is not valid base64", at: .field(what))
        }
        guard data.count == count else {
            throw TrustError(code, "the \(what) decodes to \(data.count) bytes, not \(count)", at: .field(what))
        }
        return Array(data)
    }

    static func printable(_ bytes: some Collection<UInt8>) -> String {
        bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) ? "\"\(String(decoding: bytes, as: UTF8.self))\"" : "0x" + bytes.map { String($0, radix: 16) }.joined()
    }
}
