import AssetPack
import Crypto
import Foundation

/// The root of trust an app ships: the public keys that may sign catalogs, how many of them
/// must (the threshold), a version and an expiry. In the spirit of TUF's root role, kept small.
///
/// `root.json` holds the fields under `signed` and, under `signatures`, Ed25519 signatures by
/// key id. What is signed is `assetpack root v1\n` followed by the fields written canonically
/// (``signedBytes``: compact, keys in a fixed order), so a file reformatted by hand still
/// verifies and one whose meaning changed does not.
///
/// Version 1 is signed by a threshold of its own keys. Root N+1 must be signed by a threshold of
/// root N's keys and by a threshold of its own; a client walks from the root it trusts through
/// each next version in turn and uses the newest, which must not have expired.
public struct Root: Sendable, Equatable {
    /// 1 for the first root; each rotation adds one.
    public var version: Int
    /// After this moment a client refuses the root (and whatever it would vouch for).
    public var expires: Date
    /// How many of ``keys`` must sign a catalog or the next root.
    public var threshold: Int
    /// The keys that may sign.
    public var keys: [Minisign.PublicKey]
    /// Signatures by key id (hex as minisign shows it).
    public var signatures: [(keyID: Minisign.KeyID, signature: [UInt8])]

    /// The same fields and signatures.
    public static func == (a: Root, b: Root) -> Bool {
        a.version == b.version && a.expires == b.expires && a.threshold == b.threshold && a.keys == b.keys
            && a.signatures.map(\.keyID) == b.signatures.map(\.keyID) && a.signatures.map(\.signature) == b.signatures.map(\.signature)
    }

    /// The largest root file read.
    public static let maxFileSize = 1 << 20
    static let domain = Array("assetpack root v1\n".utf8)

    /// An unsigned root.
    public init(version: Int, expires: Date, threshold: Int, keys: [Minisign.PublicKey]) throws(TrustError) {
        self.version = version
        self.expires = expires
        self.threshold = threshold
        self.keys = keys
        signatures = []
        try checkShape()
    }

    /// Threshold and keys: at least one key, no key twice, 1 ≤ threshold ≤ keys.
    func checkShape() throws(TrustError) {
        guard version >= 1 else { throw TrustError(.malformedRoot, "version \(version) is not 1 or more", at: .field("version")) }
        guard !keys.isEmpty else { throw TrustError(.malformedRoot, "it lists no keys", at: .field("keys")) }
        guard Set(keys.map(\.id)).count == keys.count,
            Set(keys.map { $0.key.rawRepresentation }).count == keys.count
        else { throw TrustError(.malformedRoot, "a key is listed twice", at: .field("keys")) }
        guard threshold >= 1, threshold <= keys.count else {
            throw TrustError(.malformedRoot, "threshold \(threshold) is not between 1 and its \(keys.count) keys", at: .field("threshold"))
        }
    }

    /// What the signatures cover.
    public var signedBytes: [UInt8] { Self.domain + Array(signedJSON.utf8) }

    private var signedJSON: String {
        let keyList = keys.map { "{\"id\":\(JSONEscape.quoted($0.id.description)),\"publicKey\":\(JSONEscape.quoted($0.base64))}" }
        return "{\"type\":\"root\",\"version\":\(version),\"expires\":\(JSONEscape.quoted(Timestamp.format(expires))),"
            + "\"threshold\":\(threshold),\"keys\":[\(keyList.joined(separator: ","))]}"
    }

    /// Adds `key`'s signature (replacing an earlier one by the same key).
    public mutating func sign(with key: Minisign.SecretKey) throws(TrustError) {
        let signature: [UInt8]
        do {
            signature = Array(try key.key.signature(for: signedBytes))
        } catch {
            throw TrustError(.badSignature, "Ed25519 signing failed: \(error)")
        }
        signatures.removeAll { $0.keyID == key.id }
        signatures.append((key.id, signature))
    }

    /// The number of distinct keys of `signers` whose signature on this root verifies.
    public func validSignatures(by signers: [Minisign.PublicKey]) -> Int {
        let bytes = signedBytes
        var counted = Set<Minisign.KeyID>()
        for (id, signature) in signatures where !counted.contains(id) {
            guard let key = signers.first(where: { $0.id == id }) else { continue }
            if key.key.isValidSignature(signature, for: bytes) { counted.insert(id) }
        }
        return counted.count
    }

    /// Checks that a threshold of this root's own keys signed it.
    public func checkSelfSigned() throws(TrustError) {
        let valid = validSignatures(by: keys)
        guard valid >= threshold else {
            throw TrustError(.untrustedRoot, "root version \(version) carries \(valid) valid signatures by its own keys, its threshold is \(threshold)")
        }
    }

    /// Checks that `next` may follow this root: the next version, signed by a threshold of this
    /// root's keys and of its own.
    public func checkSuccessor(_ next: Root) throws(TrustError) {
        guard next.version == version + 1 else {
            throw TrustError(.untrustedRoot, "root version \(next.version) cannot follow version \(version)")
        }
        let byPrevious = next.validSignatures(by: keys)
        guard byPrevious >= threshold else {
            throw TrustError(
                .untrustedRoot, "root version \(next.version) carries \(byPrevious) valid signatures by root \(version)'s keys, its threshold is \(threshold)")
        }
        try next.checkSelfSigned()
    }

    /// The file: `{"signed": {...}, "signatures": [...]}`, one line, a newline at the end.
    public var fileContents: String {
        let list = signatures.map { "{\"keyId\":\(JSONEscape.quoted($0.keyID.description)),\"signature\":\(JSONEscape.quoted(Data($0.signature).base64EncodedString()))}" }
        return "{\"signed\":\(signedJSON),\"signatures\":[\(list.joined(separator: ","))]}\n"
    }

    /// Reads a root file (checking its shape, not its signatures).
    public init(fileContents bytes: [UInt8]) throws(TrustError) {
        guard bytes.count <= Self.maxFileSize else {
            throw TrustError(.tooLarge, "a root is at most \(Self.maxFileSize) bytes, this one \(bytes.count)")
        }
        let document = try JSONText.parse(bytes, code: .malformedRoot)
        let reader = FieldReader(code: .malformedRoot)
        let signed = try reader.object(document["signed"], "signed")
        guard try reader.string(signed["type"], "signed.type") == "root" else {
            throw TrustError(.malformedRoot, "type is not \"root\"", at: .field("signed.type"))
        }
        version = try reader.integer(signed["version"], "signed.version", max: 1 << 31)
        expires = try reader.time(signed["expires"], "signed.expires")
        threshold = try reader.integer(signed["threshold"], "signed.threshold", max: 1 << 16)
        let keyList = try reader.array(signed["keys"], "signed.keys", max: 256)
        var keys: [Minisign.PublicKey] = []
        for (index, entry) in keyList.enumerated() {
            let field = "signed.keys[\(index)]"
            let object = try reader.object(entry, field)
            let key: Minisign.PublicKey
            do {
                key = try Minisign.PublicKey(base64: try reader.string(object["publicKey"], field + ".publicKey"))
            } catch {
                throw TrustError(error.code == .malformedKey ? .malformedRoot : error.code, error.detail, at: .field(field + ".publicKey"))
            }
            guard try reader.string(object["id"], field + ".id") == key.id.description else {
                throw TrustError(.malformedRoot, "the id is not the key's own (\(key.id))", at: .field(field + ".id"))
            }
            keys.append(key)
        }
        self.keys = keys
        var signatures: [(Minisign.KeyID, [UInt8])] = []
        for (index, entry) in try reader.array(document["signatures"], "signatures", max: 256).enumerated() {
            let field = "signatures[\(index)]"
            let object = try reader.object(entry, field)
            // Signatures by keys this root does not list count for the previous root (rotation).
            guard let id = Minisign.KeyID(hex: try reader.string(object["keyId"], field + ".keyId")) else {
                throw TrustError(.malformedRoot, "not a key id of 16 hex digits", at: .field(field + ".keyId"))
            }
            let text = try reader.string(object["signature"], field + ".signature")
            guard let raw = Data(base64Encoded: text), raw.count == 64 else {
                throw TrustError(.malformedRoot, "not a base64 Ed25519 signature", at: .field(field + ".signature"))
            }
            signatures.append((id, Array(raw)))
        }
        self.signatures = signatures
        try checkShape()
    }
}
