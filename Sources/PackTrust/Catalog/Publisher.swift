import AssetPack
import Foundation

/// Writes a repository folder a plain web server, CDN or object store can serve as it is, laid
/// out as ``RepositoryLayout`` says: immutable packs named by their SHA-256, an immutable
/// catalog and signatures per version, and `latest.json`, the one small object overwritten.
public enum Publisher {
    /// Publishes `packs` as catalog `version`, signed by each of `keys`.
    ///
    /// Everything is checked before anything is written: the version must be greater than the
    /// folder's current one, every pack a format-2 pack that verifies, with a safe name and a
    /// canonical locale, no two installing to the same file. Then, in this order, each written
    /// under a temporary name, synced and renamed: the packs, the catalog's signatures, the
    /// catalog, and `latest.json` last, so that whatever a cache serves of old and new, what it
    /// names exists.
    public static func publish(
        packs paths: [String], to folder: String, keys: [Minisign.SecretKey], version: Int, expires: Date
    ) throws(TrustError) -> Catalog {
        guard !keys.isEmpty else { throw TrustError(.invalidArgument, "no signing key given") }
        guard !paths.isEmpty else { throw TrustError(.invalidArgument, "no pack given") }
        guard version >= 1, version <= 1 << 53 else { throw TrustError(.invalidArgument, "version \(version) is not from 1 to 2^53") }
        let repository = RepositoryFolder(path: folder)
        if let current = try repository.latest(), version <= current.catalogVersion {
            throw TrustError(
                .versionNotNewer, "version \(version) is not greater than version \(current.catalogVersion), already published", at: .file(repository.file(RepositoryLayout.latest)))
        }
        for relative in [RepositoryLayout.catalog(version), RepositoryLayout.signatures(version)] where FileSystem.exists(repository.file(relative)) {
            throw TrustError(.versionNotNewer, "version \(version) was published before: its files are never rewritten", at: .file(repository.file(relative)))
        }
        var entries: [Catalog.Entry] = []
        var seen = Set<String>()
        for path in paths {
            let pack: Pack
            do {
                pack = try Pack(path: path, backend: .read)
                try pack.verify()
            } catch {
                throw TrustError(.packMismatch, "\(error)", at: .file(path))
            }
            guard let metadata = pack.metadata, metadata.formatVersion >= 2 else {
                throw TrustError(
                    .invalidArgument, "a catalog lists format-2 packs (every entry's SHA-256); rebuild it without --format 1", at: .file(path))
            }
            if let problem = PackMetadata.nameProblem(metadata.name) {
                throw TrustError(.unsafePath, "its name \(JSONEscape.quoted(metadata.name)): \(problem)", at: .file(path))
            }
            if let locale = metadata.locale, let problem = PackMetadata.localeProblem(locale) {
                throw TrustError(.unsafePath, "its locale: \(problem)", at: .file(path))
            }
            let fileName = metadata.name + (metadata.locale.map { "." + $0 } ?? "") + ".pack"
            guard seen.insert(PackPath.collisionKey(fileName)).inserted else {
                throw TrustError(.invalidArgument, "a second pack named \(metadata.name) (\(metadata.locale ?? "base")), or one whose file would collide with it", at: .file(path))
            }
            let tailOffset: UInt64
            do {
                tailOffset = try PackLayout.tailOffset(of: pack)
            } catch {
                throw TrustError(.packMismatch, "\(error)", at: .file(path))
            }
            let sha256 = try CatalogVerifier.fileSHA256(path).hash
            entries.append(
                Catalog.Entry(
                    name: metadata.name, locale: metadata.locale, contentVersion: metadata.contentVersion, size: pack.fileSize,
                    sha256: sha256, digest: metadata.digest, path: RepositoryLayout.pack(sha256), tailOffset: tailOffset))
        }
        let catalog = Catalog(version: version, expires: expires, packs: entries)
        let bytes = catalog.fileContents
        var signatureText = ""
        for key in keys {
            signatureText += try key.sign(bytes, trustedComment: catalog.trustedComment).fileContents
        }
        let rootVersion = newestRoot(in: repository)
        do throws(PackError) {
            for folder in ["packs", "catalogs"] { try FileSystem.makeFolder(repository.file(folder)) }
            for (path, entry) in zip(paths, entries) { try copyPack(path, to: repository.file(entry.path), sha256: entry.sha256) }
            try DurableFile.write(Array(signatureText.utf8), to: repository.file(RepositoryLayout.signatures(version)))
            try DurableFile.write(bytes, to: repository.file(RepositoryLayout.catalog(version)))
            try DurableFile.write(
                LatestPointer(catalogVersion: version, rootVersion: rootVersion).fileContents, to: repository.file(RepositoryLayout.latest))
        } catch {
            throw TrustError(.fileUnreadable, "cannot write the repository: \(error)", at: .file(folder))
        }
        return catalog
    }

    /// The newest root version the folder holds (`roots/N.root.json`), or 1.
    static func newestRoot(in repository: RepositoryFolder) -> Int {
        var newest = 1
        for name in FileSystem.names(in: repository.file("roots")) {
            guard name.hasSuffix(".root.json"), let number = Int(name.dropLast(".root.json".count)), number <= 1 << 31 else { continue }
            newest = max(newest, number)
        }
        return newest
    }

    /// Copies a pack to its content-addressed place, unless a file with that SHA-256 is there.
    private static func copyPack(_ source: String, to destination: String, sha256: EntryHash) throws(PackError) {
        if FileSystem.exists(destination), (try? Pack.fileSHA256(path: destination).hash) == sha256 { return }
        let temporary = destination + ".tmp-\(ProcessInfo.processInfo.processIdentifier)"
        FileSystem.remove(temporary)
        do throws(PackError) {
            try FileSystem.copy(source, to: temporary)
            try DurableFile.rename(temporary, over: destination)
        } catch {
            FileSystem.remove(temporary)
            throw error
        }
    }
}
