import Foundation
import PackTrust
import TestSupport
import Testing

@Suite("minisign keys and signatures")
struct MinisignTests {
    static let message = Array("A pack's bytes, or any file's.\n".utf8)

    @Test("sign and verify with both algorithms; key files read back as written", arguments: [Minisign.Algorithm.prehashed, .legacy])
    func roundTrip(algorithm: Minisign.Algorithm) throws {
        let key = Minisign.SecretKey.generate()
        let reread = try Minisign.SecretKey(fileContents: Array(key.fileContents.utf8))
        #expect(reread.id == key.id && reread.publicKey == key.publicKey)
        let publicKey = try Minisign.PublicKey(fileContents: Array(key.publicKey.fileContents.utf8))
        #expect(publicKey == key.publicKey)
        #expect(try Minisign.PublicKey(base64: publicKey.base64) == publicKey)
        let signature = try key.sign(Self.message, trustedComment: "catalog version 3", algorithm: algorithm)
        let parsed = try Minisign.Signature(fileContents: Array(signature.fileContents.utf8))
        #expect(parsed == signature && parsed.algorithm == algorithm)
        try publicKey.verify(parsed, of: Self.message)
        // Another key's public key: the key id says so before any cryptography.
        let other = Minisign.SecretKey.generate().publicKey
        #expect(throws: TrustError.self) { try other.verify(parsed, of: Self.message) }
        #expect((try? other.verify(parsed, of: Self.message)) == nil)
        do {
            try other.verify(parsed, of: Self.message)
        } catch {
            #expect(error.code == .keyMismatch)
        }
    }

    /// Flips bit `bit` of `bytes`.
    static func flipped(_ bytes: [UInt8], _ bit: Int) -> [UInt8] {
        var copy = bytes
        copy[bit / 8] ^= UInt8(1 << (bit % 8))
        return copy
    }

    /// What verifying the signature file `file` over `message` reports; `nil` if it verifies.
    static func failure(_ key: Minisign.PublicKey, file: [UInt8], message: [UInt8]) -> TrustError? {
        do {
            try key.verify(try Minisign.Signature(fileContents: file), of: message)
            return nil
        } catch {
            return error
        }
    }

    @Test(
        "every single-bit flip in the file, the signature line, the trusted comment or the global signature is refused, naming what failed",
        arguments: [Minisign.Algorithm.prehashed, .legacy])
    func everyBitFlip(algorithm: Minisign.Algorithm) throws {
        let key = Minisign.SecretKey.generate()
        let publicKey = key.publicKey
        let signature = try key.sign(Self.message, trustedComment: "timestamp:1795753922\tfile:x.pack\thashed", algorithm: algorithm)
        let file = Array(signature.fileContents.utf8)
        #expect(Self.failure(publicKey, file: file, message: Self.message) == nil)

        // The file's bytes: the signature no longer matches them.
        for bit in 0..<Self.message.count * 8 {
            let error = Self.failure(publicKey, file: file, message: Self.flipped(Self.message, bit))
            #expect(error?.code == .badSignature && error?.location.field == "signature", "file bit \(bit): \(String(describing: error))")
        }
        // The signature line (algorithm, key id, signature), flipped in its decoded bytes.
        let raw = Array(Data(base64Encoded: String(signature.fileContents.split(separator: "\n")[1])) ?? Data())
        #expect(raw.count == 74)
        for bit in 0..<raw.count * 8 {
            var lines = signature.fileContents.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            lines[1] = Data(Self.flipped(raw, bit)).base64EncodedString()
            let error = Self.failure(publicKey, file: Array(lines.joined(separator: "\n").utf8), message: Self.message)
            // Bit 13 turns ED into Ed (or back): a known algorithm, so the signature is what fails.
            let expected: TrustError.Code = bit == 13 ? .badSignature : bit < 16 ? .malformedSignature : bit < 80 ? .keyMismatch : .badSignature
            #expect(error?.code == expected && error?.location.field == "signature", "signature bit \(bit): \(String(describing: error))")
        }
        // The trusted comment: its global signature no longer matches (or it is no longer one line of UTF-8).
        let comment = Array(signature.trustedComment.utf8)
        for bit in 0..<comment.count * 8 {
            var lines = signature.fileContents.split(separator: "\n", omittingEmptySubsequences: false).map { Array($0.utf8) }
            lines[2] = Array("trusted comment: ".utf8) + Self.flipped(comment, bit)
            let bytes = Array(lines.joined(separator: [0x0A]))
            let error = Self.failure(publicKey, file: bytes, message: Self.message)
            #expect(error != nil, "comment bit \(bit)")
            if let error, error.code != .malformedSignature {
                #expect(error.code == .badTrustedComment && error.location.field == "trusted comment", "comment bit \(bit): \(error)")
            }
        }
        // The global signature.
        for bit in 0..<64 * 8 {
            var lines = signature.fileContents.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            lines[3] = Data(Self.flipped(signature.globalSignature, bit)).base64EncodedString()
            let error = Self.failure(publicKey, file: Array(lines.joined(separator: "\n").utf8), message: Self.message)
            #expect(error?.code == .badTrustedComment && error?.location.field == "trusted comment", "global bit \(bit): \(String(describing: error))")
        }
    }

    @Test(
        "a .minisig packed with signatures that name the root's key costs one check per key, not a pass over the catalog each (CPU before authentication)",
        arguments: [(Minisign.Algorithm.prehashed, 1 << 20), (.legacy, 16 << 20)])
    func signatureFlood(algorithm: Minisign.Algorithm, size: Int) throws {
        let key = Minisign.SecretKey.generate()
        var root = try Root(version: 1, expires: Date().addingTimeInterval(86_400), threshold: 1, keys: [key.publicKey])
        try root.sign(with: key)
        let verifier = try CatalogVerifier(trustedRoot: root)
        let (chain, _, _) = verifier.restore(nil)
        // As many signatures by the root's key (of other bytes) as a signature file may hold.
        let block = try key.sign(Array("other bytes".utf8), trustedComment: "t", algorithm: algorithm).fileContents
        let file = Array(String(repeating: block, count: Minisign.maxFileSize / block.utf8.count).utf8)
        let catalog = [UInt8](repeating: 0x20, count: size)
        let started = Date()
        #expect(throws: TrustError.self) {
            try verifier.verify(catalog: catalog, signatures: file, chain: chain, floor: nil, updateStarted: Date())
        }
        let seconds = Date().timeIntervalSince(started)
        #expect(seconds < 3, "\(seconds) s to refuse \(file.count / block.utf8.count) signatures of a \(size)-byte catalog")
    }

    @Test("damaged key and signature files are refused with what is wrong")
    func damagedFiles() throws {
        let key = Minisign.SecretKey.generate()
        let keyFile = key.fileContents
        let publicFile = key.publicKey.fileContents
        let signatureFile = try key.sign(Self.message, trustedComment: "t").fileContents
        func secret(_ text: String) -> TrustError.Code? {
            do { _ = try Minisign.SecretKey(fileContents: Array(text.utf8)); return nil } catch { return error.code }
        }
        func pub(_ text: String) -> TrustError.Code? {
            do { _ = try Minisign.PublicKey(fileContents: Array(text.utf8)); return nil } catch { return error.code }
        }
        func sig(_ text: String) -> TrustError.Code? {
            do { _ = try Minisign.Signature(fileContents: Array(text.utf8)); return nil } catch { return error.code }
        }
        #expect(secret(String(keyFile.dropLast(20))) == .malformedKey)  // truncated
        #expect(secret(keyFile + String(repeating: "A", count: 70_000)) == .malformedKey)  // oversized
        #expect(secret(keyFile.replacingOccurrences(of: "\nRW", with: "\nR*W")) == .malformedKey)  // junk in base64
        #expect(pub(String(publicFile.dropLast(10))) == .malformedKey)
        #expect(pub(publicFile.replacingOccurrences(of: "\nRW", with: "\n!RW")) == .malformedKey)
        #expect(sig(String(signatureFile.dropLast(30))) == .malformedSignature)
        #expect(sig(signatureFile.replacingOccurrences(of: "trusted comment: ", with: "comment: ")) == .malformedSignature)
        #expect(sig("") == .malformedSignature)
        // The checksum of the secret key guards against damage.
        var lines = keyFile.split(separator: "\n").map(String.init)
        var raw = Array(Data(base64Encoded: lines[1]) ?? Data())
        raw[100] ^= 1
        lines[1] = Data(raw).base64EncodedString()
        #expect(secret(lines.joined(separator: "\n")) == .malformedKey)
        // A password-encrypted key says so.
        raw = Array(Data(base64Encoded: String(keyFile.split(separator: "\n")[1])) ?? Data())
        raw[2] = UInt8(ascii: "S")
        raw[3] = UInt8(ascii: "c")
        #expect(secret("untrusted comment: x\n" + Data(raw).base64EncodedString() + "\n") == .encryptedKey)
    }
}
