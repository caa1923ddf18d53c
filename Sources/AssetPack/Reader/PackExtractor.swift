#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Extracts entries into a folder without ever writing outside it.
///
/// Names are all checked before anything is written: one unsafe name (absolute, `..`,
/// backslash, drive prefix, control characters) refuses the whole extraction. Folders are
/// walked with `openat(O_NOFOLLOW)`, so an existing symbolic link in the target is never
/// followed; entries never become symbolic links; modes from the zip are ignored (files 0644,
/// folders 0755). Each file is written under a temporary name (`O_CREAT | O_EXCL | O_NOFOLLOW`),
/// its CRC-32 checked, and only then renamed into place; any error removes it.
public struct PackExtractor {
    public let pack: Pack
    /// Replace existing files (never folders, never through symbolic links).
    public var overwrite: Bool

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
            guard !below.isEmpty else { throw PackError(.entryNotFound, path: pack.path, entry: path) }
            for number in below where seen.insert(number).inserted { chosen.append(number) }
        }
        return chosen.map { pack.makeEntry($0) }
    }

    /// Extracts `entries` into `folder` (created if missing) and returns how many files it wrote.
    @discardableResult
    public func extract(_ entries: [PackEntry], to folder: String) throws(PackError) -> Int {
        for entry in entries {
            if let problem = PackPath.problem(with: entry.path.utf8, allowDirectory: true) {
                throw PackError(.unsafeName, problem + "; nothing was extracted", path: pack.path, entry: entry.path)
            }
        }
        try Self.makeFolder(folder)
        let root = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard root >= 0 else { throw PackError.errno(errno, "cannot open", path: folder) }
        defer { close(root) }
        var written = 0
        for entry in entries {
            var components = entry.path.split(separator: "/").map(String.init)
            let isFolder = entry.isDirectory
            let leaf = isFolder ? nil : components.removeLast()
            let parent = try openFolders(components, from: root, target: folder, entry: entry)
            defer { if parent != root { close(parent) } }
            guard let leaf else { continue }
            try writeFile(entry, named: leaf, in: parent, target: folder)
            written += 1
        }
        return written
    }

    private func openFolders(_ components: [String], from root: Int32, target: String, entry: PackEntry)
        throws(PackError) -> Int32
    {
        var current = root
        for component in components {
            var next = openat(current, component, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            if next < 0, errno == ENOENT {
                if mkdirat(current, component, 0o755) != 0, errno != EEXIST {
                    let code = errno
                    if current != root { close(current) }
                    throw PackError.errno(code, "cannot create folder \"\(component)\"", path: target)
                }
                next = openat(current, component, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            }
            if next < 0 {
                let code = errno
                if current != root { close(current) }
                let reason =
                    code == ELOOP || code == ENOTDIR
                    ? "\"\(component)\" exists and is not a folder (symbolic links are never followed)"
                    : String(cString: strerror(code))
                throw PackError(.fileExists, reason, path: target, entry: entry.path)
            }
            if current != root { close(current) }
            current = next
        }
        return current
    }

    private func writeFile(_ entry: PackEntry, named name: String, in folder: Int32, target: String) throws(PackError) {
        var existing = stat()
        if fstatat(folder, name, &existing, AT_SYMLINK_NOFOLLOW) == 0 {
            if (existing.st_mode & S_IFMT) == S_IFDIR {
                throw PackError(.fileExists, "a folder is in the way", path: target, entry: entry.path)
            }
            guard overwrite else {
                throw PackError(.fileExists, "use --force to overwrite", path: target, entry: entry.path)
            }
        }
        let bytes = try pack.data(for: entry)
        let crc = bytes.withUnsafeBytes { CRC32.checksum($0) }
        guard crc == entry.crc32 else {
            throw PackError(
                .crcMismatch, "data has CRC \(hex32(crc)), the pack says \(hex32(entry.crc32))", path: pack.path,
                entry: entry.path)
        }
        let temporary = ".\(name.prefix(200)).partial-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let descriptor = openat(folder, temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw PackError.errno(errno, "cannot create", path: target) }
        var closed = false
        do throws(PackError) {
            try bytes.withUnsafeBytes { (raw) throws(PackError) in
                var done = 0
                while done < raw.count {
                    let wrote = write(descriptor, raw.baseAddress! + done, raw.count - done)
                    if wrote < 0, errno == EINTR { continue }
                    guard wrote > 0 else { throw PackError.errno(errno, "write failed", path: target) }
                    done += wrote
                }
            }
            closed = true
            guard close(descriptor) == 0 else { throw PackError.errno(errno, "write failed", path: target) }
            guard renameat(folder, temporary, folder, name) == 0 else {
                throw PackError.errno(errno, "cannot rename into place", path: target)
            }
        } catch {
            if !closed { close(descriptor) }
            unlinkat(folder, temporary, 0)
            var located = error
            if located.entry == nil { located.entry = entry.path }
            throw located
        }
    }

    /// Creates `folder` and its missing parents.
    static func makeFolder(_ folder: String) throws(PackError) {
        var path = folder.hasPrefix("/") ? "/" : ""
        for component in folder.split(separator: "/") {
            path += component
            if mkdir(path, 0o755) != 0, errno != EEXIST {
                throw PackError.errno(errno, "cannot create folder", path: path)
            }
            path += "/"
        }
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
            result.append(table.sorted(position))
            position += 1
        }
        return result
    }
}
