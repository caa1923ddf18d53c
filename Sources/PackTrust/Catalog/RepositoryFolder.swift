import AssetPack
import Foundation

/// A repository folder as `packtool publish` writes it and a web server serves it
/// (``RepositoryLayout``).
public struct RepositoryFolder: Sendable {
    /// The folder.
    public let path: String

    /// The repository in the folder at `path`.
    public init(path: String) { self.path = path }

    /// The path of a file of the repository.
    public func file(_ relative: String) -> String { path + "/" + relative }

    /// A file's bytes, `nil` if it does not exist, an error if it exceeds `limit`.
    public func read(_ relative: String, limit: Int) throws(TrustError) -> [UInt8]? {
        let full = file(relative)
        guard FileSystem.exists(full) else { return nil }
        do {
            return try readRegularFile(full, limit: limit)
        } catch {
            if error.code == .tooLarge {
                throw TrustError(.tooLarge, "more than \(limit) bytes", at: .file(full))
            }
            throw TrustError(.fileUnreadable, "\(error)", at: .file(full))
        }
    }

    /// The folder's `latest.json`, or `nil` when nothing was published yet.
    public func latest() throws(TrustError) -> LatestPointer? {
        guard let bytes = try read(RepositoryLayout.latest, limit: LatestPointer.maxFileSize) else { return nil }
        do {
            return try LatestPointer(fileContents: bytes)
        } catch {
            throw error.at(file: file(RepositoryLayout.latest))
        }
    }

    /// Runs every check of ``CatalogVerifier`` on the folder's current catalog, packs included;
    /// returns it with the state to keep.
    public func verify(
        with verifier: CatalogVerifier, state: TrustState?, updateStarted: Date
    ) throws(TrustError) -> (VerifiedCatalog, TrustState, StateRestoration) {
        guard let pointer = try latest() else {
            throw TrustError(.fileUnreadable, "missing: nothing is published here", at: .file(file(RepositoryLayout.latest)))
        }
        let (restoredChain, floor, restoration) = verifier.restore(state)
        var chain = restoredChain
        while chain.current.version < pointer.rootVersion {
            let version = chain.current.version + 1
            guard let bytes = try read(RepositoryLayout.root(version), limit: Root.maxFileSize) else {
                throw TrustError(.fileUnreadable, "missing, though \(RepositoryLayout.latest) names root version \(pointer.rootVersion)", at: .file(file(RepositoryLayout.root(version))))
            }
            try verifier.advance(&chain, rootFile: bytes, version: version)
        }
        let version = pointer.catalogVersion
        guard let catalog = try read(RepositoryLayout.catalog(version), limit: Catalog.maxFileSize) else {
            throw TrustError(.fileUnreadable, "missing", at: .file(file(RepositoryLayout.catalog(version))))
        }
        guard let signatures = try read(RepositoryLayout.signatures(version), limit: Minisign.maxFileSize) else {
            throw TrustError(.fileUnreadable, "missing", at: .file(file(RepositoryLayout.signatures(version))))
        }
        let verified = try verifier.verify(
            catalog: catalog, signatures: signatures, chain: chain, floor: floor, updateStarted: updateStarted,
            files: CatalogFiles(version: version, base: path + "/"))
        for entry in verified.catalog.packs {
            try CatalogVerifier.checkPack(entry, at: file(entry.path))
        }
        return (verified, CatalogVerifier.state(accepting: verified, chain: chain), restoration)
    }
}
