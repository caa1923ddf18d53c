import Crypto
import Foundation

/// How an object is sealed: ChaCha20-Poly1305 under the learner's key, the object's kind and
/// full name authenticated with it, so an object is refused if a byte changes, if it is cut
/// short, if it is copied under another name (another device's, another sequence number, a
/// replay of an older one) or if another learner's key sealed it.
///
/// ```
/// "SSY1"  kind (1 byte)  nonce (12)  ciphertext  tag (16)
/// ```
///
/// The nonce is a keyed hash of the name and the content: sealing the same content under the
/// same name gives the same bytes, so a retry after a timeout writes exactly what the first try
/// did. A nonce repeats only with the same name and content, where it reveals nothing new.
enum SealedObject {
    static let magic = Array("SSY1".utf8)
    /// Bytes an object has beyond its content.
    static let overhead = 4 + 1 + 12 + 16

    static func associatedData(kind: ObjectName.Kind, name: String) -> [UInt8] {
        magic + [kind.rawValue] + Array(name.utf8)
    }

    /// Seals `content` as the object `name`.
    static func seal(_ content: [UInt8], kind: ObjectName.Kind, name: String, key: LearnerKey) throws(SyncError) -> [UInt8] {
        let associated = associatedData(kind: kind, name: name)
        var authenticated = associated
        authenticated += content
        let code = Array(HMAC<SHA256>.authenticationCode(for: authenticated, using: key.nonceKey))
        do {
            let nonce = try ChaChaPoly.Nonce(data: code.prefix(12))
            let box = try ChaChaPoly.seal(content, using: key.sealingKey, nonce: nonce, authenticating: associated)
            return magic + [kind.rawValue] + Array(box.nonce) + Array(box.ciphertext) + Array(box.tag)
        } catch {
            throw SyncError(.invalidArgument, "cannot seal: \(error)", at: .file(name))
        }
    }

    /// Opens the object `name`: its content, or ``SyncError/Code/notAuthentic`` for anything that
    /// is not what `key` sealed under that name.
    static func open(_ bytes: [UInt8], kind: ObjectName.Kind, name: String, key: LearnerKey) throws(SyncError) -> [UInt8] {
        guard bytes.count >= overhead else {
            throw SyncError(.notAuthentic, "\(bytes.count) bytes: shorter than any sealed object (cut short?)", at: .file(name))
        }
        guard Array(bytes[0..<4]) == magic, bytes[4] == kind.rawValue else {
            throw SyncError(.notAuthentic, "not a sealed \(kind) object of this version", at: .file(name))
        }
        do {
            let box = try ChaChaPoly.SealedBox(
                nonce: ChaChaPoly.Nonce(data: bytes[5..<17]), ciphertext: bytes[17..<(bytes.count - 16)], tag: bytes[(bytes.count - 16)...])
            return Array(try ChaChaPoly.open(box, using: key.sealingKey, authenticating: associatedData(kind: kind, name: name)))
        } catch {
            throw SyncError(
                .notAuthentic, "does not open with the learner's key: changed, cut short, copied from another name, or sealed with another key", at: .file(name))
        }
    }

    /// The tag of a name: 16 hexadecimal digits of a keyed hash of the content.
    static func tag(for content: [UInt8], key: LearnerKey) -> String {
        let code = HMAC<SHA256>.authenticationCode(for: content, using: key.nameKey)
        return Array(code).prefix(8).map { String(format: "%02x", $0) }.joined()
    }
}
