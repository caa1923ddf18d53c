import Foundation
import SystemPackage

/// Extracts entries into a folder without ever writing outside it, all or nothing.
///
/// Before anything is written, every name is checked (one unsafe name, absolute, `..`,
/// backslash, drive prefix or control characters, refuses the whole extraction) and so is every
/// conflict: a file where a folder must go, a symbolic link on the way, an existing file when
/// ``overwrite`` is off. Then each file is written under a temporary name
/// (`O_CREAT | O_EXCL | O_NOFOLLOW`), its CRC-32 checked and synced; only when all of them are
/// written are they renamed into place and their folders synced. Any error removes the
/// temporary files and the folders the extraction created. Folders are walked with
/// `openat(O_NOFOLLOW)`, so an existing symbolic link in the target is never followed; entries
/// never become symbolic links; modes from the zip are ignored (files 0644, folders 0755).
public struct PackExtractor {
    /// The pack entries are extracted from.
    public let pack: Pack
    /// Replace existing files (never folders, never through symbolic links).
    public var overwrite: Bool

    /// An extractor for `pack`; existing files are replaced only when `overwrite` is `true`.
    public init(pack: Pack, overwrite: Bool = false) {
        self.pack = pack
        self.overwrite = overwrite
    }

    /// The entries `paths` select: each an entry's path or a folder's (everything below it);
    /// all entries when `paths` is empty.
    public func select(_ paths: [String]) throws(PackError) -> [PackEntry] {
        if paths.isEmpty { return Array(pack.entries) }
        var chosen: [Int] = []
        var seen = Set<Int>()
        for path in paths {
            if let number = pack.entryNumber(forPath: path) {
                if seen.insert(number).inserted { chosen.append(number) }
                continue
            }
            let below = pack.allEntries(under: path)
            guard !below.isEmpty else { throw PackError(.entryNotFound, at: .pack(pack.path, entry: path)) }
            for number in below where seen.insert(number).inserted { chosen.append(number) }
        }
        return chosen.map { pack.makeEntry($0) }
    }

    /// One file to write: where it goes and its temporary name once written.
    private struct Planned {
        var entry: PackEntry
        var folders: [String]
        var leaf: String
        var temporary: String?
    }

    /// Extracts `entries` into the directory at `url` (created if missing) and returns how many
    /// files it wrote.
    @discardableResult
    public func extract(_ entries: [PackEntry], to url: URL) throws(PackError) -> Int {
        try extract(entries, to: try filePath(of: url))
    }

    /// Extracts `entries` into `folder` (created if missing) and returns how many files it wrote.
    @discardableResult
    public func extract(_ entries: [PackEntry], to folder: String) throws(PackError) -> Int {
        for entry in entries {
            if let problem = PackPath.problem(with: entry.pathBytes, allowDirectory: true) {
                throw PackError(.unsafeName, problem + "; nothing was extracted", at: .pack(pack.path, entry: entry.path))
            }
        }
        var plan: [Planned] = []
        var folderEntries: [[String]] = []
        for entry in entries {
            var components = entry.path.split(separator: "/").map(String.init)
            if entry.isDirectory {
                folderEntries.append(components)
            } else {
                let leaf = components.removeLast()
                plan.append(Planned(entry: entry, folders: components, leaf: leaf))
            }
        }
        try checkConflicts(plan, target: folder)
        let created = try Self.makeFolders(folder)
        let root = try Self.openFolder(folder, target: folder)
        defer { _ = try? root.close() }
        var made = FolderMaker(root: root, target: folder)
        do throws(PackError) {
            for components in folderEntries { try made.open(components).close(made.root) }
            for index in plan.indices {
                let parent = try made.open(plan[index].folders)
                defer { parent.close(made.root) }
                plan[index].temporary = try writeTemporary(plan[index].entry, named: plan[index].leaf, in: parent.file, target: folder)
            }
            // Everything is written and synced: put it in place.
            var touched = Set<[String]>()
            for item in plan {
                let parent = try made.open(item.folders)
                defer { parent.close(made.root) }
                guard let temporary = item.temporary else { continue }
                if case .failure(let error) = Platform.rename(temporary, to: item.leaf, in: parent.file) {
                    throw PackError.system(error, "cannot rename into place", at: .file(folder)).located(item.entry)
                }
                touched.insert(item.folders)
            }
            for folders in touched {
                let parent = try made.open(folders)
                defer { parent.close(made.root) }
                if case .failure(let error) = Platform.synchronize(parent.file) {
                    throw PackError.system(error, "cannot sync the folder", at: .file(folder))
                }
            }
        } catch {
            for item in plan {
                guard let temporary = item.temporary, let parent = try? made.open(item.folders) else { continue }
                Platform.removeFile(temporary, in: parent.file)
                parent.close(made.root)
            }
            made.removeCreated()
            for path in created.reversed() { Platform.removeFolder(path) }
            throw error
        }
        return plan.count
    }

    /// Finds every reason the extraction would fail on the target's contents, before writing.
    private func checkConflicts(_ plan: [Planned], target: String) throws(PackError) {
        // Among the entries themselves: a file whose path is also a folder of another entry.
        var files = Set<String>()
        for item in plan { files.insert((item.folders + [item.leaf]).joined(separator: "/")) }
        for item in plan {
            var prefix = ""
            for component in item.folders {
                prefix += prefix.isEmpty ? component : "/" + component
                if files.contains(prefix) {
                    throw PackError(
                        .nameCollision, "\"\(prefix)\" is both a file and a folder; nothing was extracted",
                        at: .pack(pack.path, entry: item.entry.path))
                }
            }
        }
        // Against what is already in the target.
        guard case .success(let root) = Platform.system({
            try FileDescriptor.open(target, .readOnly, options: [.directory, .closeOnExec])
        }) else { return }  // no target yet: nothing can be in the way
        defer { _ = try? root.close() }
        for item in plan {
            var current = root
            var missing = false
            var opened: [FileDescriptor] = []
            defer { for file in opened { _ = try? file.close() } }
            for component in item.folders {
                switch Platform.open(component, in: current, .readOnly, options: [.directory, .noFollow, .closeOnExec]) {
                case .success(let next):
                    opened.append(next)
                    current = next
                case .failure(.noSuchFileOrDirectory):
                    missing = true
                case .failure(let error):
                    throw Self.blocked(component, error, target: target, entry: item.entry)
                }
                if missing { break }
            }
            guard !missing else { continue }
            let status = Platform.system { try FilePath(item.leaf).stat(relativeTo: current, flags: .symlinkNoFollow) }
            guard case .success(let existing) = status else { continue }
            if existing.type == .directory {
                throw PackError(.fileExists, "a folder is in the way; nothing was extracted", at: .pack(target, entry: item.entry.path))
            }
            guard overwrite else {
                throw PackError(.fileExists, "use --force to overwrite; nothing was extracted", at: .pack(target, entry: item.entry.path))
            }
        }
    }

    /// The error for a path component that cannot be opened as a folder.
    static func blocked(_ component: String, _ error: Errno, target: String, entry: PackEntry) -> PackError {
        guard error == .tooManySymbolicLinkLevels || error == .notDirectory else {
            return PackError.system(error, "cannot open folder \"\(component)\"", at: .file(target)).located(entry)
        }
        return PackError(
            .fileExists, "\"\(component)\" exists and is not a folder (symbolic links are never followed)",
            at: .pack(target, entry: entry.path), underlying: error)
    }

    /// Writes `entry` to a new temporary file in `folder`, checks its CRC-32, syncs it and returns
    /// the temporary name. The file is removed again on any error.
    private func writeTemporary(
        _ entry: PackEntry, named name: String, in folder: FileDescriptor, target: String
    ) throws(PackError) -> String {
        let bytes = try pack.data(for: entry)
        let crc = bytes.withUnsafeBytes { CRC32.checksum($0) }
        guard crc == entry.crc32 else {
            throw PackError(
                .crcMismatch, "data has CRC \(hex32(crc)), the pack says \(hex32(entry.crc32))", at: .pack(pack.path, entry: entry.path))
        }
        let temporary = ".\(name.prefix(200)).partial-\(Platform.processID)-\(UInt32.random(in: 0...UInt32.max))"
        let file: FileDescriptor
        switch Platform.open(
            temporary, in: folder, .writeOnly, options: [.create, .exclusiveCreate, .noFollow, .closeOnExec])
        {
        case .success(let opened): file = opened
        case .failure(let error): throw PackError.system(error, "cannot create", at: .file(target)).located(entry)
        }
        var failure: Errno?
        if case .failure(let error) = bytes.withUnsafeBytes({ FileAccess.writeAll(file, $0) }) { failure = error }
        if failure == nil, case .failure(let error) = Platform.synchronize(file) { failure = error }
        if case .failure(let error) = Platform.system({ try file.close() }), failure == nil { failure = error }
        if let failure {
            Platform.removeFile(temporary, in: folder)
            throw PackError.system(failure, "write failed", at: .file(target)).located(entry)
        }
        return temporary
    }

    /// Creates `folder` and its missing parents; returns the ones it created, outermost first.
    @discardableResult
    package static func makeFolders(_ folder: String) throws(PackError) -> [String] {
        var created: [String] = []
        var path = folder.hasPrefix("/") ? "/" : ""
        for component in folder.split(separator: "/") {
            path += component
            switch Platform.makeFolder(path) {
            case .success: created.append(path)
            case .failure(.fileExists): break
            case .failure(let error): throw PackError.system(error, "cannot create folder", at: .file(path))
            }
            path += "/"
        }
        return created
    }

    static func openFolder(_ folder: String, target: String) throws(PackError) -> FileDescriptor {
        switch Platform.system({ try FileDescriptor.open(folder, .readOnly, options: [.directory, .closeOnExec]) }) {
        case .success(let file): return file
        case .failure(let error): throw PackError.system(error, "cannot open", at: .file(target))
        }
    }
}

/// Opens (creating as needed) folders below the extraction's root, remembering those it made so
/// a failed extraction can remove them.
private struct FolderMaker {
    let root: FileDescriptor
    let target: String
    /// Folders created, as component paths, in creation order.
    private(set) var created: [[String]] = []

    init(root: FileDescriptor, target: String) {
        self.root = root
        self.target = target
    }

    /// An open folder below the root; close it with ``OpenFolder/close(_:)``.
    struct OpenFolder {
        let file: FileDescriptor

        func close(_ root: FileDescriptor) {
            if file != root { _ = try? file.close() }
        }
    }

    mutating func open(_ components: [String]) throws(PackError) -> OpenFolder {
        var current = root
        for (depth, component) in components.enumerated() {
            let options: FileDescriptor.OpenOptions = [.directory, .noFollow, .closeOnExec]
            var next = Platform.open(component, in: current, .readOnly, options: options)
            if case .failure(.noSuchFileOrDirectory) = next {
                switch Platform.makeFolder(component, in: current) {
                case .success: created.append(Array(components[...depth]))
                case .failure(.fileExists): break
                case .failure(let error):
                    if current != root { _ = try? current.close() }
                    throw PackError.system(error, "cannot create folder \"\(component)\"", at: .file(target))
                }
                next = Platform.open(component, in: current, .readOnly, options: options)
            }
            if current != root { _ = try? current.close() }
            switch next {
            case .success(let file): current = file
            case .failure(let error):
                throw PackError(
                    .fileExists, "\"\(component)\" cannot be opened as a folder: \(error.description)", at: .file(target),
                    underlying: error)
            }
        }
        return OpenFolder(file: current)
    }

    /// Removes the folders this extraction created, deepest first (only if empty).
    func removeCreated() {
        for components in created.reversed() {
            guard let name = components.last else { continue }
            var current = root
            var ok = true
            for component in components.dropLast() {
                guard case .success(let next) = Platform.open(
                    component, in: current, .readOnly, options: [.directory, .noFollow, .closeOnExec])
                else {
                    ok = false
                    break
                }
                if current != root { _ = try? current.close() }
                current = next
            }
            if ok { Platform.removeFolder(name, in: current) }
            if current != root { _ = try? current.close() }
        }
    }
}

extension PackError {
    /// The same error, about `entry` if it names none yet.
    func located(_ entry: PackEntry) -> PackError {
        var copy = self
        if copy.location.entry == nil { copy.location.entry = entry.path }
        return copy
    }
}

extension Pack {
    /// The entry numbers of everything below `folder`, in path order.
    func allEntries(under folder: String) -> [Int] {
        var prefix = Array(folder.utf8)
        while prefix.last == UInt8(ascii: "/") { prefix.removeLast() }
        prefix.append(UInt8(ascii: "/"))
        var result: [Int] = []
        var position = table.lowerBound(prefix)
        while position < table.count, table.pathBytes(table.sorted(position)).starts(with: prefix) {
            if table.sorted(position) < count { result.append(table.sorted(position)) }
            position += 1
        }
        return result
    }
}
