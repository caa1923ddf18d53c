import AssetLibrary
import AssetPack
import Foundation
import PackTrust

/// A step of an update, as ``PackInstaller/events`` reports it.
public enum DeliveryPhase: String, Sendable {
    /// Fetching and checking the catalog (and any new root).
    case checking
    /// Building one pack: fetching ranges, copying entries already on the device.
    case fetching
    /// One pack is verified and in place.
    case installed
    /// The update is over.
    case finished
}

/// Progress of an update: the phase, the pack, bytes done and total, entries fetched and reused.
public struct DeliveryEvent: Sendable, Equatable {
    /// What is happening.
    public var phase: DeliveryPhase
    /// The pack, as `name` or `name (locale)`; `nil` for the catalog.
    public var pack: String?
    /// Bytes fetched so far for this pack.
    public var bytesDone: UInt64
    /// Bytes this pack needs from the origin.
    public var bytesTotal: UInt64
    /// Entries fetched from the origin (this pack).
    public var entriesFetched: Int
    /// Entries copied from packs already on the device (this pack).
    public var entriesReused: Int
}

/// What an update did.
public struct InstallReport: Sendable, Equatable {
    /// The catalog version installed from.
    public var catalogVersion: Int
    /// Packs that were not on the device before.
    public var installed: [String] = []
    /// Packs replaced by a new version.
    public var updated: [String] = []
    /// Packs already current.
    public var unchanged: [String] = []
    /// Bytes received from the origin (catalog, signatures and packs).
    public var bytesFetched: UInt64 = 0
    /// Bytes copied from packs already on the device instead of fetched.
    public var bytesReused: UInt64 = 0
    /// HTTP requests made.
    public var requests = 0
    /// Wall-clock seconds.
    public var seconds: Double = 0
}

/// Installs and updates the packs of a signed catalog into a folder, the way Apple's
/// `AssetPackManager` is used: check for updates, make packs or locales available, remove them.
///
/// ```swift
/// let installer = try PackInstaller(folder: packsFolder, repository: URL(string: "https://cdn.example.com/course/")!,
///                                   root: try Root(fileContents: bundledRoot))
/// let report = try await installer.makeAvailable(locales: ["ru"])   // base + ru + en packs
/// ```
///
/// Only the learner's packs are fetched: the base packs and those of each locale's fallback
/// chain. An update fetches only the entries whose SHA-256 no installed pack has, resumes after
/// a kill without fetching a synced byte again, and renames each verified file over the old
/// one, so a reader of the old pack keeps intact bytes (`AssetStore.remount(path:)` moves a
/// store to the new generation; ``attach(_:)`` does it automatically). A failed or cancelled
/// run leaves installed packs untouched and its verified progress for the next run.
public actor PackInstaller {
    /// The folder holding the installed packs, the trust state and work in progress.
    public nonisolated let folder: String
    /// The repository's base URL (where `catalog.json` is).
    public nonisolated let repository: URL
    /// The locale every chain ends in (the content's development locale).
    public nonisolated let developmentLocale: String
    /// Progress of every update, in order.
    public nonisolated let events: AsyncStream<DeliveryEvent>

    private let verifier: CatalogVerifier
    private let transport: any DeliveryTransport
    private let continuation: AsyncStream<DeliveryEvent>.Continuation
    private var stores: [AssetStore] = []

    /// An installer over `folder` (created if missing) for the repository at `repository`, trusting `root`.
    public init(
        folder: String, repository: URL, root: Root, transport: any DeliveryTransport = URLSessionTransport(),
        developmentLocale: String = "en"
    ) throws(DeliveryError) {
        do {
            verifier = try CatalogVerifier(trustedRoot: root)
        } catch {
            throw DeliveryError.trust(error)
        }
        self.folder = folder
        self.repository = repository
        self.transport = transport
        self.developmentLocale = developmentLocale
        (events, continuation) = AsyncStream.makeStream(of: DeliveryEvent.self)
        do {
            try FileManager.default.createDirectory(atPath: folder + "/.partial", withIntermediateDirectories: true)
        } catch {
            throw DeliveryError(.fileSystem, "cannot create the folder: \(error)", file: folder)
        }
    }

    /// Remounts every pack this installer replaces in `store`, as soon as it is in place.
    public func attach(_ store: AssetStore) { stores.append(store) }

    /// Where an installed pack lives: `NAME.pack`, or `NAME.LOCALE.pack` for a locale pack.
    public nonisolated func path(name: String, locale: String?) -> String {
        folder + "/" + name + (locale.map { "." + $0 } ?? "") + ".pack"
    }

    /// The packs in the folder now.
    public nonisolated func installedPacks() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasSuffix(".pack") }.sorted().map { folder + "/" + $0 }
    }

    /// Fetches and checks the catalog (and any newer root); nothing is installed.
    public func checkForUpdates() async throws(DeliveryError) -> Catalog {
        try await fetchCatalog(started: Date(), counters: Counters()).catalog.catalog
    }

    /// Installs or updates the base packs and the packs of each locale's fallback chain (and, if
    /// `names` is not empty, only packs with those names).
    @discardableResult
    public func makeAvailable(locales: [String], names: [String] = []) async throws(DeliveryError) -> InstallReport {
        let started = Date()
        let counters = Counters()
        let (verified, state) = try await fetchCatalog(started: started, counters: counters)
        let catalog = verified.catalog
        let wanted = try select(catalog, locales: locales, names: names)
        var report = InstallReport(catalogVersion: catalog.version)
        for entry in wanted {
            try checkCancelled()
            let label = entry.name + (entry.locale.map { " (\($0))" } ?? "")
            let destination = path(name: entry.name, locale: entry.locale)
            let exists = FileManager.default.fileExists(atPath: destination)
            if exists, let pack = try? Pack(path: destination, backend: .read), pack.fileSize == entry.size,
                pack.metadata?.digest == entry.digest
            {
                report.unchanged.append(label)
                continue
            }
            let url = repository.appendingPathComponent(entry.path)
            let download = PackDownload(
                entry: entry, url: url, destination: destination, workFolder: folder + "/.partial", transport: transport,
                local: localEntries(), progress: { [continuation] done, total in
                    continuation.yield(DeliveryEvent(phase: .fetching, pack: label, bytesDone: done, bytesTotal: total, entriesFetched: 0, entriesReused: 0))
                })
            let result: DownloadResult
            do {
                result = try await download.run()
            } catch let error as DeliveryError {
                throw error
            } catch is CancellationError {
                throw DeliveryError(.cancelled, "cancelled; what was fetched is kept for the next run", item: label)
            } catch {
                throw DeliveryError(.network, "\(error)", file: url.absoluteString, item: label)
            }
            counters.set {
                $0.bytesFetched += result.bytesFetched
                $0.bytesReused += result.bytesReused
                $0.requests += result.requests
            }
            if exists { report.updated.append(label) } else { report.installed.append(label) }
            for store in stores { _ = try? store.remount(path: destination) }
            continuation.yield(
                DeliveryEvent(
                    phase: .installed, pack: label, bytesDone: result.bytesFetched, bytesTotal: result.bytesFetched,
                    entriesFetched: result.entriesFetched, entriesReused: result.entriesReused))
        }
        // Only now is the catalog accepted: a failed run is retried against the same state.
        do {
            try Data(state.fileContents).write(to: URL(fileURLWithPath: folder + "/state.json"), options: .atomic)
        } catch {
            throw DeliveryError(.fileSystem, "cannot write the trust state: \(error)", file: folder + "/state.json")
        }
        let totals = counters.value
        report.bytesFetched = totals.bytesFetched
        report.bytesReused = totals.bytesReused
        report.requests = totals.requests
        report.seconds = Date().timeIntervalSince(started)
        continuation.yield(DeliveryEvent(phase: .finished, pack: nil, bytesDone: totals.bytesFetched, bytesTotal: totals.bytesFetched, entriesFetched: 0, entriesReused: 0))
        return report
    }

    /// Removes the installed packs of `locale` (never base packs).
    public func remove(locale: String) throws(DeliveryError) {
        for path in installedPacks() {
            guard let pack = try? Pack(path: path, backend: .read), let tag = pack.metadata?.locale, tag == locale else { continue }
            do {
                try FileManager.default.removeItem(atPath: path)
            } catch {
                throw DeliveryError(.fileSystem, "cannot remove: \(error)", file: path)
            }
        }
    }

    private func checkCancelled() throws(DeliveryError) {
        if Task.isCancelled { throw DeliveryError(.cancelled, "cancelled; what was fetched is kept for the next run") }
    }

    /// The packs of `catalog` for `locales`: base packs, then each chain's locale packs.
    private func select(_ catalog: Catalog, locales: [String], names: [String]) throws(DeliveryError) -> [Catalog.Entry] {
        let development: LocaleTag
        do {
            development = try LocaleTag(developmentLocale)
        } catch {
            throw DeliveryError.pack(error)
        }
        let available = catalog.packs.compactMap { $0.locale.flatMap { try? LocaleTag($0) } }
        var chain: [LocaleTag] = []
        for locale in locales {
            let tag: LocaleTag
            do {
                tag = try LocaleTag(locale)
            } catch {
                throw DeliveryError.pack(error)
            }
            let own = LocaleFallback.chain(for: tag, development: development, available: available)
            // A locale the catalog has no pack for would silently fall back to the development locale.
            let served = own.contains { item in
                !item.sameLocale(as: development) && available.contains { $0.sameLocale(as: item) }
            }
            guard served || tag.sameLocale(as: development) else {
                throw DeliveryError(.notInCatalog, "no pack for locale \(locale) in catalog version \(catalog.version)")
            }
            for item in own where !chain.contains(where: { $0.sameLocale(as: item) }) { chain.append(item) }
        }
        let chosen = catalog.packs.filter { entry in
            guard names.isEmpty || names.contains(entry.name) else { return false }
            guard let locale = entry.locale else { return true }
            guard let tag = try? LocaleTag(locale) else { return false }
            return chain.contains { $0.sameLocale(as: tag) }
        }
        for name in names where !catalog.packs.contains(where: { $0.name == name }) {
            throw DeliveryError(.notInCatalog, "no pack named \(name) in catalog version \(catalog.version)")
        }
        return chosen
    }

    /// Every entry of every installed format-2 pack, by SHA-256.
    private nonisolated func localEntries() -> [EntryHash: LocalEntry] {
        var found: [EntryHash: LocalEntry] = [:]
        for path in installedPacks() {
            guard let pack = try? Pack(path: path) else { continue }
            for entry in pack.entries {
                if let hash = try? pack.sha256(of: entry), found[hash] == nil { found[hash] = LocalEntry(pack: pack, entry: entry) }
            }
        }
        return found
    }

    /// Fetches the catalog, its signatures and any new roots, and runs every check on them.
    private func fetchCatalog(started: Date, counters: Counters) async throws(DeliveryError) -> (catalog: VerifiedCatalog, state: TrustState) {
        continuation.yield(DeliveryEvent(phase: .checking, pack: nil, bytesDone: 0, bytesTotal: 0, entriesFetched: 0, entriesReused: 0))
        let statePath = folder + "/state.json"
        var state = TrustState()
        if let bytes = FileManager.default.contents(atPath: statePath) {
            // A damaged state file is not fatal: start from the shipped root (rollback protection
            // then rests on the catalog's expiry until a catalog is accepted again).
            state = (try? TrustState(fileContents: Array(bytes))) ?? TrustState()
        }
        let catalogBytes = try await small("catalog.json", limit: UInt64(Catalog.maxFileSize), counters: counters)
        let signatureBytes = try await small("catalog.json.minisig", limit: 64 << 10, counters: counters)
        var roots: [Int: [UInt8]] = [:]
        var version = max(verifier.trustedRoot.version, state.root?.version ?? 0) + 1
        while roots.count < CatalogVerifier.maxRootSteps, let bytes = try await optional("roots/\(version).root.json", counters: counters) {
            roots[version] = bytes
            version += 1
        }
        do {
            return try verifier.verify(
                nextRoot: { (version) throws(TrustError) in roots[version] }, catalog: catalogBytes, signatures: signatureBytes, state: state,
                updateStarted: started)
        } catch {
            throw DeliveryError.trust(error)
        }
    }

    private func small(_ relative: String, limit: UInt64, counters: Counters) async throws(DeliveryError) -> [UInt8] {
        guard let bytes = try await optional(relative, limit: limit, counters: counters) else {
            throw DeliveryError(.httpStatus, "HTTP 404: not found", file: repository.appendingPathComponent(relative).absoluteString)
        }
        return bytes
    }

    private func optional(_ relative: String, limit: UInt64 = UInt64(Root.maxFileSize), counters: Counters) async throws(DeliveryError) -> [UInt8]? {
        let url = repository.appendingPathComponent(relative)
        do {
            let (response, data) = try await transport.data(url, limit: limit)
            counters.add(fetched: response.bodyBytes, requests: 1)
            if response.status == 404 || response.status == 403 { return nil }
            guard response.status == 200 else { throw DeliveryError(.httpStatus, "HTTP \(response.status)", file: url.absoluteString) }
            return Array(data)
        } catch let error as DeliveryError {
            throw error
        } catch {
            throw DeliveryError(.network, "\(error)", file: url.absoluteString)
        }
    }
}
