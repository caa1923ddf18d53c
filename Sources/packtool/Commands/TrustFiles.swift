import ArgumentParser
import AssetPack
import ErrorReporting
import Foundation
import PackTrust
import SystemPackage

// Reading and writing the files the trust commands take: keys, roots, signatures, expiry times.

/// Reads a file named on the command line; a missing or oversized file is one clear line.
func readArgumentFile(_ path: String, limit: Int, what: String) throws(TrustError) -> [UInt8] {
    do {
        return try readRegularFile(path, limit: limit)
    } catch {
        throw TrustError(error.code == .tooLarge ? .tooLarge : .fileUnreadable, "cannot read the \(what): \(error.detail)", at: .file(path))
    }
}

func readSecretKey(_ path: String) throws(TrustError) -> Minisign.SecretKey {
    do throws(TrustError) {
        return try Minisign.SecretKey(fileContents: try readArgumentFile(path, limit: 64 * 1024, what: "secret key"))
    } catch {
        throw error.at(file: path)
    }
}

func readPublicKey(_ path: String) throws(TrustError) -> Minisign.PublicKey {
    do throws(TrustError) {
        return try Minisign.PublicKey(fileContents: try readArgumentFile(path, limit: 64 * 1024, what: "public key"))
    } catch {
        throw error.at(file: path)
    }
}

func readRoot(_ path: String) throws(TrustError) -> Root {
    do throws(TrustError) {
        return try Root(fileContents: try readArgumentFile(path, limit: Root.maxFileSize, what: "root"))
    } catch {
        throw error.at(file: path)
    }
}

/// The moment an `--expires` value names: a duration from now (`30d`, `12h`) or a time
/// (`2026-12-27T00:00:00Z`).
func expiryDate(_ value: String, example: String) throws(TrustError) -> Date {
    guard let moment = Timestamp.expiry(value, from: Date()) else {
        throw TrustError(.invalidArgument, "--expires \(value) is not like \(example)")
    }
    return moment
}

/// Creates `path` with `bytes`, mode 0600 when `secret`; never overwrites.
func createFile(_ path: String, _ bytes: [UInt8], secret: Bool) throws(TrustError) {
    do {
        let file = try FileDescriptor.open(
            FilePath(path), .writeOnly, options: [.create, .exclusiveCreate],
            permissions: secret ? [.ownerReadWrite] : [.ownerReadWrite, .groupRead, .otherRead])
        defer { _ = try? file.close() }
        _ = try bytes.withUnsafeBytes { try file.writeAll($0) }
    } catch Errno.fileExists {
        throw TrustError(.fileExists, "already exists; a key is never overwritten", at: .file(path))
    } catch {
        throw TrustError(.fileUnreadable, "cannot be written: \(error)", at: .file(path))
    }
}

func writeReplacing(_ path: String, _ bytes: [UInt8]) throws(TrustError) {
    do {
        try DurableFile.write(bytes, to: path)
    } catch {
        throw TrustError(.fileUnreadable, "cannot be written: \(error)", at: .file(path))
    }
}

/// Creates `path`; never overwrites.
func writeNew(_ path: String, _ bytes: [UInt8]) throws(TrustError) {
    try createFile(path, bytes, secret: false)
}

/// Runs `body`, which prints; a failed write to standard output becomes a ``TrustError``.
func emit(_ body: () throws -> Void) throws(TrustError) {
    do {
        try body()
    } catch {
        throw TrustError(.fileUnreadable, "cannot write to standard output: \(error)")
    }
}
