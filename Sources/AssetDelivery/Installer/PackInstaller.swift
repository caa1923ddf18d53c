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
    /// Packs replaced by a new version, or repaired (an installed file whose bytes were not the
    /// catalog's).
    public var updated: [String] = []
    /// Packs already current (their files' SHA-256 is the catalog's).
    public var unchanged: [String] = []
    /// Bytes received from the origin (pointer, roots, catalog, signatures and packs).
    public var bytesFetched: UInt64 = 0
    /// Bytes copied from packs already on the device instead of fetched.
    public var bytesReused: UInt64 = 0
    /// HTTP requests made.
    public var requests = 0
    /// Wall-clock seconds.
    public var seconds: Double = 0
    /// How the saved trust state was found: a first run, verified, or rebuilt from the shipped
    /// root (and why).
    public var trustState: StateRestoration = .firstRun
    /// Why the origin's newest publication was not installed (a cache that is behind): the
    /// update waits for it, installed packs stay current with the catalog accepted before.
    public var pending: String?
    /// The origin answered range requests with whole files: packs were fetched whole.
    public var wholeFiles = false
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
/// a kill without fetching a journaled byte again, and renames each verified file over the old
/// one, so a reader of the old pack keeps intact bytes (`AssetStore.remount(path:)` moves a
/// store to the new generation; ``attach(_:)`` does it automatically). A failed or cancelled
/// run leaves installed packs untouched and its progress for the next run; a damaged installed
/// pack is repaired on the next update.
///
/// One installer works on a folder at a time (a lock in the folder); the trust state is saved
/// before the first pack is renamed into place, and re-verified from `root` on every run.
public actor PackInstaller {
    /// The folder holding the installed packs, the trust state and work in progress.
    public nonisolated let folder: String
    /// The repository's base URL (where `latest.json` is).
    public nonisolated let repository: URL
    /// The locale every chain ends in (the content's development locale).
    public nonisolated let developmentLocale: String
    /// Progress of every update, in order.
    public nonisolated let events: AsyncStream<DeliveryEvent>
    /// What a second installer on the folder does while this one works.
    public nonisolated let whenBusy: BusyFolderPolicy
    /// The longest an update may take, in seconds: an origin that trickles bytes just fast
    /// enough to keep each request alive is still cut off (``DeliveryError/Code/timeout``).
    /// Anything that is not a number of seconds above 0 (NaN, 0, negative) leaves no time at all.
    public nonisolated let deadline: TimeInterval

    private let verifier: CatalogVerifier
    private let transport: any DeliveryTransport
    private let continuation: AsyncStream<DeliveryEvent>.Continuation
    private var stores: [AssetStore] = []

    /// An installer over `folder` (created if missing) for the repository at `repository`, trusting `root`.
    public init(
        folder: String, repository: URL, root: Root, transport: any DeliveryTransport = URLSessionTransport(),
        developmentLocale: String = "en", whenBusy: BusyFolderPolicy = .fail, deadline: TimeInterval = 3600
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
        self.whenBusy = whenBusy
        self.deadline = deadline
        (events, continuation) = AsyncStream.makeStream(of: DeliveryEvent.self)
        do {
            try FileSystem.makeFolder(folder + "/.partial")
        } catch {
            throw DeliveryError.fileSystem(error)
        }
    }

    /// Remounts every pack this installer replaces in `store`, as soon as it is in place.
    public func attach(_ store: AssetStore) { stores.append(store) }

    /// Where an installed pack lives: `NAME.pack`, or `NAME.LOCALE.pack` for a locale pack.
    ///
    /// - Throws: ``DeliveryError/Code/notInCatalog`` for a name or locale that is not one safe
    ///   file name component (the catalog refuses such packs; this is the last guard).
    public nonisolated func path(name: String, locale: String?) throws(DeliveryError) -> String {
        guard let file = PackMetadata.installedFileName(name: name, locale: locale) else {
            throw DeliveryError(.notInCatalog, "\(name) (\(locale ?? "base")) is not a name a pack may have", at: .file(folder))
        }
        return folder + "/" + file
    }

    /// The packs in the folder now.
    public nonisolated func installedPacks() -> [String] {
        FileSystem.names(in: folder).filter { $0.hasSuffix(".pack") && !$0.hasPrefix(".") }.map { folder + "/" + $0 }
    }

    /// Fetches and checks the newest catalog (and any newer root); nothing is installed.
    public func checkForUpdates() async throws(DeliveryError) -> Catalog {
        try await within {
            try await self.update(started: Date(), counters: Counters()).catalog.catalog
        }
    }

    /// Installs or updates the base packs and the packs of each locale's fallback chain (and, if
    /// `names` is not empty, only packs with those names).
    @discardableResult
    public func makeAvailable(locales: [String], names: [String] = []) async throws(DeliveryError) -> InstallReport {
        try await within {
            let lock = try await FolderLock.take(self.folder, policy: self.whenBusy)
            defer { lock.release() }
            return try await self.install(locales: locales, names: names)
        }
    }

    private func install(locales: [String], names: [String]) async throws -> InstallReport {
        let started = Date()
        let counters = Counters()
        let update = CatalogUpdate(
            repository: repository, transport: transport, verifier: verifier, statePath: folder + "/state.json", counters: counters)
        var target = try await update.resolve(started: started)
        // The work folder must be the installer's own: a symbolic link planted there would make
        // the partial files (and the clean-up of stale ones) another folder's.
        do {
            try FileSystem.makeOwnFolder(folder + "/.partial")
        } catch {
            throw DeliveryError.fileSystem(error)
        }
        var installed = InstalledPacks(folder: folder)
        defer { installed.save() }
        var prepared: [(Catalog.Entry, PackDownload, DownloadResult, replacing: Bool)] = []
        var unchanged: [Catalog.Entry] = []
        var wanted = try select(target.catalog.catalog, locales: locales, names: names)
        // 1. Every changed pack fetched and verified beside the folder; nothing renamed yet. A
        // pack the origin does not serve yet (a cache that has the new catalog but not the new
        // pack) means the update waits: the catalog accepted before stays installed.
        let local = localEntries(trusting: installed)
        while true {
            InstalledPacks.removeStalePartials(in: folder + "/.partial", keep: wanted)
            prepared = []
            unchanged = []
            var missing: Catalog.Entry?
            for entry in wanted {
                try checkCancelled()
                let current = try installed.sha256(of: entry.installedFileName)
                if current == entry.sha256 {
                    unchanged.append(entry)
                    continue
                }
                let download = try makeDownload(entry, local: local)
                do {
                    prepared.append((entry, download, try await run(download), current != nil))
                } catch is PackDownload.NotServed {
                    missing = entry
                    break
                }
            }
            guard let missing else { break }
            let reason = "the origin does not serve \(missing.path) (\(missing.label)) of catalog version \(target.catalog.catalog.version) yet"
            guard let fallback = target.previous, fallback.catalog.version != target.catalog.catalog.version else {
                throw DeliveryError(.notInCatalog, reason, at: .file(repository.appendingPathComponent(missing.path).absoluteString, item: missing.label))
            }
            do {
                try verifier.checkNotExpired(fallback, updateStarted: started)
            } catch {
                throw DeliveryError.trust(error)
            }
            target = UpdateTarget(catalog: fallback, chain: target.chain, restoration: target.restoration, pending: reason, previous: fallback)
            wanted = try select(fallback.catalog, locales: locales, names: names)
        }
        // 2. The catalog is accepted (saved durably before the first rename: a run cut off
        // from here on finishes this catalog, never goes back), then every pack swapped in.
        try update.save(target)
        var report = InstallReport(catalogVersion: target.catalog.catalog.version)
        report.trustState = target.restoration
        report.pending = target.pending
        report.unchanged = unchanged.map(\.label)
        for (entry, download, result, replacing) in prepared {
            try download.commit()
            installed.installed(entry.installedFileName, sha256: entry.sha256)
            if replacing { report.updated.append(entry.label) } else { report.installed.append(entry.label) }
            for store in stores { _ = try? store.remount(path: download.destination) }
            continuation.yield(
                DeliveryEvent(
                    phase: .installed, pack: entry.label, bytesDone: result.bytesFetched, bytesTotal: result.bytesFetched,
                    entriesFetched: result.entriesFetched, entriesReused: result.entriesReused))
            counters.set {
                $0.bytesFetched += result.bytesFetched
                $0.bytesReused += result.bytesReused
                $0.requests += result.requests
                $0.wholeFile = $0.wholeFile || result.wholeFile
            }
        }
        let totals = counters.value
        report.bytesFetched = totals.bytesFetched
        report.bytesReused = totals.bytesReused
        report.requests = totals.requests
        report.wholeFiles = totals.wholeFile
        report.seconds = Date().timeIntervalSince(started)
        continuation.yield(DeliveryEvent(phase: .finished, pack: nil, bytesDone: totals.bytesFetched, bytesTotal: totals.bytesFetched, entriesFetched: 0, entriesReused: 0))
        return report
    }

    /// The download of one pack of the catalog into the work folder.
    private func makeDownload(_ entry: Catalog.Entry, local: [EntryHash: LocalEntry]) throws -> PackDownload {
        PackDownload(
            entry: entry, url: repository.appendingPathComponent(entry.path), destination: try path(name: entry.name, locale: entry.locale),
            workFolder: folder + "/.partial", transport: transport, local: local,
            progress: { [continuation] done, total in
                continuation.yield(DeliveryEvent(phase: .fetching, pack: entry.label, bytesDone: done, bytesTotal: total, entriesFetched: 0, entriesReused: 0))
            })
    }

    /// Runs a download, its errors as ``DeliveryError`` (``PackDownload/NotServed`` passes).
    private func run(_ download: PackDownload) async throws -> DownloadResult {
        do {
            return try await download.run()
        } catch let error as DeliveryError {
            throw error
        } catch let error as PackDownload.NotServed {
            throw error
        } catch is CancellationError {
            throw DeliveryError(.cancelled, "what was fetched is kept for the next run", at: .item(download.label))
        } catch {
            throw DeliveryError(.network, "\(error)", at: .file(download.url.absoluteString, item: download.label))
        }
    }

    /// Runs `body` within the installer's ``deadline``, with errors as ``DeliveryError``.
    private func within<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws(DeliveryError) -> T {
        let limit = deadline > 0 ? deadline : 0  // NaN too
        let address = repository.absoluteString
        do {
            return try await withThrowingTaskGroup(of: T?.self) { group in
                group.addTask { try await body() }
                group.addTask {
                    try await Task.sleep(nanoseconds: UInt64(min(limit, 1e9) * 1e9))
                    return nil
                }
                defer { group.cancelAll() }
                guard let first = try await group.next(), let value = first else {
                    throw DeliveryError(
                        .timeout, "the update took longer than \(Int(min(limit, 1e9))) s; what was fetched is kept for the next run", at: .file(address))
                }
                return value
            }
        } catch let error as DeliveryError {
            throw error
        } catch is CancellationError {
            throw DeliveryError(.cancelled, "what was fetched is kept for the next run", at: .file(address))
        } catch {
            throw DeliveryError(.network, "\(error)", at: .file(address))
        }
    }

    /// The catalog an update would install (used by ``checkForUpdates()``).
    private func update(started: Date, counters: Counters) async throws -> UpdateTarget {
        let update = CatalogUpdate(
            repository: repository, transport: transport, verifier: verifier, statePath: folder + "/state.json", counters: counters)
        return try await update.resolve(started: started)
    }

    /// Removes the installed packs of `locale` (never base packs).
    public func remove(locale: String) async throws(DeliveryError) {
        let lock: FolderLock
        do {
            lock = try await FolderLock.take(folder, policy: whenBusy)
        } catch let error as DeliveryError {
            throw error
        } catch {
            throw DeliveryError(.cancelled, "\(error)", at: .file(folder))
        }
        defer { lock.release() }
        for path in installedPacks() {
            guard let pack = try? Pack(path: path, backend: .read), let tag = pack.metadata?.locale, tag == locale else { continue }
            FileSystem.remove(path)
        }
    }

    private func checkCancelled() throws(DeliveryError) {
        if Task.isCancelled { throw DeliveryError(.cancelled, "what was fetched is kept for the next run") }
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

    /// Every entry of every installed format-2 pack, by the SHA-256 its index lists (checked
    /// when the bytes are copied, unless the pack is trusted: verified at install, unchanged).
    private nonisolated func localEntries(trusting installed: InstalledPacks) -> [EntryHash: LocalEntry] {
        var found: [EntryHash: LocalEntry] = [:]
        for path in installedPacks() {
            guard let pack = try? Pack(path: path, backend: .read) else { continue }
            let trusted = installed.isTrusted(String(path.dropFirst(folder.count + 1)))
            for entry in pack.entries {
                if let hash = try? pack.sha256(of: entry), found[hash] == nil { found[hash] = LocalEntry(pack: pack, entry: entry, trusted: trusted) }
            }
        }
        return found
    }
}
