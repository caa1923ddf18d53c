import AssetPack
import Foundation
import PackTrust

/// The catalog an update installs, and how it was chosen.
struct UpdateTarget {
    /// The catalog to install (the newest the origin serves, or the one accepted before when
    /// the origin is behind).
    var catalog: VerifiedCatalog
    /// The roots, from the shipped one to the newest.
    var chain: TrustChain
    /// How the saved state was found.
    var restoration: StateRestoration
    /// Why the origin's newest publication was not used, when it was not (a cache that is
    /// behind): the update waits, it does not fail.
    var pending: String?
    /// The catalog accepted before, still signed by the newest root's keys: what an update
    /// falls back to when the new one cannot be installed yet.
    var previous: VerifiedCatalog?
}

/// The trust side of an update: the saved state re-verified from the shipped root, then the
/// origin's `latest.json`, each new root as it arrives (one in memory at a time), and the
/// catalog it names, every check of ``CatalogVerifier`` applied.
///
/// A cache that serves old objects beside new ones only delays an update: a `latest.json` that
/// is behind, or that names a catalog the cache does not have yet, leaves the client on the
/// catalog it accepted last, which it finishes installing. Only the expiry of that catalog
/// ends the wait (a freeze is refused).
struct CatalogUpdate {
    let repository: URL
    let transport: any DeliveryTransport
    let verifier: CatalogVerifier
    let statePath: String
    let counters: Counters

    /// The catalog to install now.
    func resolve(started: Date) async throws -> UpdateTarget {
        let (saved, damage) = loadState()
        var (chain, floor, restoration) = verifier.restore(saved)
        if let damage { restoration = .rebuilt(reason: damage) }
        let pointerBytes = try await fetch(RepositoryLayout.latest, limit: UInt64(LatestPointer.maxFileSize))
        var pending: String?
        var pointer: LatestPointer?
        if let pointerBytes {
            do {
                pointer = try LatestPointer(fileContents: Array(pointerBytes))
            } catch {
                throw DeliveryError.trust(error.at(file: address(RepositoryLayout.latest)))
            }
        } else {
            pending = "the origin has no \(RepositoryLayout.latest) yet"
        }
        // New roots, one by one, each checked as it arrives.
        if let pointer {
            while chain.current.version < pointer.rootVersion {
                let version = chain.current.version + 1
                guard chain.roots.count <= CatalogVerifier.maxRootSteps else { break }
                guard let bytes = try await fetch(RepositoryLayout.root(version), limit: UInt64(Root.maxFileSize)) else {
                    pending = "the origin names root version \(pointer.rootVersion) but does not serve version \(version) yet"
                    break
                }
                do {
                    try verifier.advance(&chain, rootFile: Array(bytes), version: version)
                } catch {
                    throw DeliveryError.trust(error.at(file: address(RepositoryLayout.root(version))))
                }
            }
        }
        // The catalog the pointer names, when it is newer than the one accepted.
        var target: VerifiedCatalog?
        let accepted = floor.flatMap { try? verifier.verify(catalog: $0.accepted.bytes, signatures: $0.accepted.signatures, chain: chain, floor: nil, updateStarted: .distantPast) }
        if let pointer {
            if let accepted, pointer.catalogVersion < accepted.catalog.version {
                pending = "the origin serves catalog version \(pointer.catalogVersion), older than version \(accepted.catalog.version), accepted already: a cache is behind"
            } else if let accepted, pointer.catalogVersion == accepted.catalog.version {
                target = accepted
            } else if chain.current.version < pointer.rootVersion, let reason = pending {
                // A root the pointer names is not served yet (an edge that has the new pointer
                // and catalog but not the new root): its keys may be the catalog's, and it may
                // revoke the ones trusted now. Roots first, as TUF does: the update waits.
                pending = reason + "; catalog version \(pointer.catalogVersion) waits for it"
            } else {
                let version = pointer.catalogVersion
                let files = CatalogFiles(version: version, base: repository.absoluteString)
                if let catalog = try await fetch(RepositoryLayout.catalog(version), limit: UInt64(Catalog.maxFileSize)),
                    let signatures = try await fetch(RepositoryLayout.signatures(version), limit: UInt64(Minisign.maxFileSize))
                {
                    do {
                        target = try verifier.verify(
                            catalog: Array(catalog), signatures: Array(signatures), chain: chain, floor: floor, updateStarted: started, files: files)
                    } catch {
                        throw DeliveryError.trust(error)
                    }
                } else {
                    pending = "the origin names catalog version \(version) but does not serve it yet"
                }
            }
        }
        guard let chosen = target ?? accepted else {
            throw DeliveryError(.notInCatalog, pending ?? "nothing is published", at: .file(address(RepositoryLayout.latest)))
        }
        // Installing an older catalog again is fine; an expired one is not (a freeze).
        do {
            try verifier.checkNotExpired(chosen, updateStarted: started, file: address(RepositoryLayout.catalog(chosen.catalog.version)))
        } catch {
            throw DeliveryError.trust(error)
        }
        return UpdateTarget(catalog: chosen, chain: chain, restoration: restoration, pending: target == nil ? pending : nil, previous: accepted)
    }

    /// The saved state, or `nil` for a first run; a state file that cannot be read is reported
    /// and left for the shipped root to rebuild.
    private func loadState() -> (TrustState?, damage: String?) {
        guard FileSystem.exists(statePath) else { return (nil, nil) }
        do {
            return (try TrustState(fileContents: try readRegularFile(statePath, limit: TrustState.maxFileSize)), nil)
        } catch let error as PackError {
            return (TrustState(), "the state file cannot be read: \(error.description)")
        } catch {
            return (TrustState(), "the state file is damaged: \(error)")
        }
    }

    /// Saves the state that accepts `target`, durably, before any pack is renamed into place:
    /// an update cut off after that can be finished, never rolled back or mixed.
    func save(_ target: UpdateTarget) throws {
        let state = CatalogVerifier.state(accepting: target.catalog, chain: target.chain)
        do {
            try DurableFile.write(state.fileContents, to: statePath)
        } catch {
            throw DeliveryError.fileSystem(error)
        }
    }

    private func address(_ relative: String) -> String { repository.appendingPathComponent(relative).absoluteString }

    /// A small file of the repository (at most `limit` bytes), or `nil` when the origin has
    /// none (404 or 403).
    private func fetch(_ relative: String, limit: UInt64) async throws -> Data? {
        let url = repository.appendingPathComponent(relative)
        do {
            let (response, body) = try await transport.small(url, limit: limit)
            counters.add(fetched: response.bodyBytes, requests: 1)
            return body
        } catch let error as DeliveryError {
            throw error
        } catch is CancellationError {
            throw DeliveryError(.cancelled, at: .file(url.absoluteString))
        } catch {
            throw DeliveryError(.network, "\(error)", at: .file(url.absoluteString))
        }
    }
}
