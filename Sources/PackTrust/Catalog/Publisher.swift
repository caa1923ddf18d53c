import AssetPack
import Foundation

/// Writes a repository folder a plain web server or object store can serve as it is:
/// `packs/<sha256>.pack` (immutable, named by the SHA-256 of the file, so a CDN may cache them
/// forever and the same pack is stored once), `catalog.json` and `catalog.json.minisig`.
public enum Publisher {
    /// Publishes `packs` as catalog `version`, signed by each of `keys`.
    ///
    /// Everything is checked before anything is written: the version must be greater than the
    /// folder's current catalog, every pack format 2 with a distinct name and locale.
    public static func publish(
        packs paths: [String], to folder: String, keys: [Minisign.SecretKey], version: Int, expires: Date
    ) throws(TrustError) -> Catalog {
        guard !keys.isEmpty else { throw TrustError(.invalidArgument, "no signing key given") }
        guard !paths.isEmpty else { throw TrustError(.invalidArgument, "no pack given") }
        guard version >= 1, version <= 1 << 53 else { throw TrustError(.invalidArgument, "version \(version) is not from 1 to 2^53") }
        let repository = RepositoryFolder(path: folder)
        if let existing = try repository.read("catalog.json", limit: Catalog.maxFileSize) {
            let current: Catalog
            do {
                current = try Catalog(fileContents: existing)
            } catch {
                throw error.at(file: repository.file("catalog.json"))
            }
            guard version > current.version else {
                throw TrustError(
                    .versionNotNewer, "version \(version) is not greater than version \(current.version), already published",
                    file: repository.file("catalog.json"))
            }
        }
        var entries: [Catalog.Entry] = []
        var seen = Set<String>()
        for path in paths {
            let pack: Pack
            do {
                pack = try Pack(path: path, backend: .read)
                try pack.verify()
            } catch {
                throw TrustError(.packMismatch, "\(error)", file: path)
            }
            guard let metadata = pack.metadata, metadata.formatVersion >= 2 else {
                throw TrustError(
                    .invalidArgument, "a catalog lists format-2 packs (every entry's SHA-256); rebuild it without --format 1", file: path)
            }
            guard seen.insert(metadata.name + "\u{0}" + (metadata.locale ?? "")).inserted else {
                throw TrustError(.invalidArgument, "a second pack named \(metadata.name) (\(metadata.locale ?? "base"))", file: path)
            }
            let sha256 = try CatalogVerifier.fileSHA256(path)
            entries.append(
                Catalog.Entry(
                    name: metadata.name, locale: metadata.locale, contentVersion: metadata.contentVersion, size: pack.fileSize,
                    sha256: sha256, digest: metadata.digest, path: "packs/\(sha256.hex).pack"))
        }
        let catalog = Catalog(version: version, expires: expires, packs: entries)
        let bytes = catalog.fileContents
        var signatureText = ""
        for key in keys {
            signatureText += try key.sign(bytes, trustedComment: catalog.trustedComment).fileContents
        }
        // Now write: the packs first (a catalog never names a missing pack), then the catalog and
        // its signature, each under a temporary name renamed into place.
        do {
            try FileManager.default.createDirectory(atPath: repository.file("packs"), withIntermediateDirectories: true)
            for (path, entry) in zip(paths, entries) {
                let destination = repository.file(entry.path)
                if let attributes = try? FileManager.default.attributesOfItem(atPath: destination),
                    (attributes[.size] as? NSNumber)?.uint64Value == entry.size
                {
                    continue
                }
                let temporary = destination + ".partial"
                try? FileManager.default.removeItem(atPath: temporary)
                try FileManager.default.copyItem(atPath: path, toPath: temporary)
                try replace(destination, with: temporary)
            }
            try write(bytes, to: repository.file("catalog.json"))
            try write(Array(signatureText.utf8), to: repository.file("catalog.json.minisig"))
        } catch let error as TrustError {
            throw error
        } catch {
            throw TrustError(.fileUnreadable, "cannot write the repository: \(error)", file: folder)
        }
        return catalog
    }

    static func write(_ bytes: [UInt8], to path: String) throws {
        let temporary = path + ".partial"
        try Data(bytes).write(to: URL(fileURLWithPath: temporary))
        try replace(path, with: temporary)
    }

    static func replace(_ path: String, with temporary: String) throws {
        guard rename(temporary, path) == 0 else {
            throw TrustError(.fileUnreadable, "cannot rename \(temporary) into place (errno \(errno))", file: path)
        }
    }
}
