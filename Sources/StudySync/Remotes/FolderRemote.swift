import Foundation

/// A folder as a remote: any folder a file-syncing service keeps in step across devices (iCloud
/// Drive, Dropbox, a network share), or a USB stick carried between them. No account, no server.
///
/// Objects are files under the folder; each is written to a temporary name, flushed and renamed
/// into place, so a reader never sees half an object.
///
/// The folder is shared, so others may have put anything in it. Below the folder nothing is
/// followed: every path is walked one component at a time (`openat` with `O_NOFOLLOW`), so a
/// symbolic link planted anywhere in it never takes a read, a write or a delete outside it; only
/// regular files are read (a FIFO or a device named like an object is refused, not waited on);
/// a listing looks at no more than ``listEntryLimit`` entries. The folder itself may be a link
/// (a synced folder often is).
public struct FolderRemote: SyncRemote {
    /// The folder.
    public let root: String

    /// The most entries a listing looks at before it is refused (``SyncError/Code/tooLarge``):
    /// 200,000 unless given.
    public let listEntryLimit: Int

    /// The remote in `root` (created when the first object is written).
    public init(root: String, listEntryLimit: Int = 200_000) {
        self.root = (root as NSString).standardizingPath
        self.listEntryLimit = listEntryLimit
    }

    /// `file://` and the folder's path.
    public var identity: String { "file://" + root }

    // MARK: Paths

    /// The components of an object name: none empty, `.` or `..` (names come from sync itself,
    /// but the folder is shared: nothing may leave it).
    private static func components(_ name: String) throws(SyncError) -> [String] {
        let parts = name.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard !name.isEmpty, !parts.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." || $0.utf8.contains(0) }) else {
            throw SyncError(.invalidArgument, "not an object name inside the folder", at: .file(name))
        }
        return parts
    }

    /// The root, opened (following a link: the learner chose the folder); `nil` if it is not there
    /// and `create` is false.
    private func openRoot(create: Bool) throws(SyncError) -> Int32? {
        if create, !FileManager.default.fileExists(atPath: root) {
            do {
                try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
            } catch {
                throw SyncError(.fileSystem, "cannot make the folder: \(error.localizedDescription)", at: .file(root))
            }
        }
        let descriptor = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if descriptor >= 0 { return descriptor }
        if errno == ENOENT, !create { return nil }
        throw SyncError(.fileSystem, "cannot open the folder: \(Self.message(errno))", at: .file(root))
    }

    /// Opens folder `name` of `parent` without following a link (made first when `create`);
    /// `nil` if it is not there. A link, a file or anything else where a folder should be is refused.
    private static func openFolder(_ name: String, in parent: Int32, create: Bool, naming: String) throws(SyncError) -> Int32? {
        while true {
            let descriptor = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            if descriptor >= 0 { return descriptor }
            let failure = errno
            if failure == EINTR { continue }
            if failure == ENOENT {
                guard create else { return nil }
                if mkdirat(parent, name, 0o755) != 0, errno != EEXIST {
                    throw SyncError(.fileSystem, "cannot make a folder: \(message(errno))", at: .file(naming))
                }
                continue
            }
            if failure == ELOOP || failure == ENOTDIR {
                throw SyncError(.fileSystem, "a link or a file stands where a folder should be; links are never followed", at: .file(naming))
            }
            throw SyncError(.fileSystem, "cannot open a folder: \(message(failure))", at: .file(naming))
        }
    }

    /// The folder that holds object `name`, walked from the root without following links, and
    /// the object's last component; `nil` if a folder on the way is not there (and not `create`).
    private func parent(of name: String, create: Bool) throws(SyncError) -> (folder: Int32, last: String)? {
        let parts = try Self.components(name)
        guard var folder = try openRoot(create: create) else { return nil }
        for part in parts.dropLast() {
            let next: Int32?
            do {
                next = try Self.openFolder(part, in: folder, create: create, naming: name)
            } catch {
                close(folder)
                throw error
            }
            close(folder)
            guard let next else { return nil }
            folder = next
        }
        return (folder, parts[parts.count - 1])
    }

    static func message(_ code: Int32) -> String { String(cString: strerror(code)) }

    // MARK: The remote

    /// Every regular file under `prefix`'s folder whose name starts with `prefix`; links, and
    /// files whose name starts with a dot (a write in progress), are left out.
    public func list(prefix: String) async throws(SyncError) -> [RemoteObject] {
        let folder = prefix.hasSuffix("/") ? String(prefix.dropLast()) : (prefix as NSString).deletingLastPathComponent
        let start: Int32
        if folder.isEmpty {
            guard let opened = try openRoot(create: false) else { return [] }
            start = opened
        } else {
            guard let opened = try parent(of: folder + "/x", create: false) else { return [] }
            start = opened.folder
        }
        var objects: [RemoteObject] = []
        var entries = 0
        try Self.walk(start, path: folder, prefix: prefix, depth: 0, limit: listEntryLimit, into: &objects, entries: &entries)
        return objects.sorted { $0.name < $1.name }
    }

    /// Lists the regular files below the open folder `folder` (named `path`), closing it, into
    /// `objects`; folders are entered without following links, at most 8 deep.
    private static func walk(
        _ folder: Int32, path: String, prefix: String, depth: Int, limit: Int, into objects: inout [RemoteObject], entries: inout Int
    ) throws(SyncError) {
        guard let directory = fdopendir(folder) else {
            close(folder)
            throw SyncError(.fileSystem, "cannot read a folder: \(message(errno))", at: .file(path))
        }
        defer { closedir(directory) }
        var folders: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafePointer(to: entry.pointee.d_name) { pointer in
                pointer.withMemoryRebound(to: CChar.self, capacity: MemoryLayout.size(ofValue: entry.pointee.d_name)) { String(cString: $0) }
            }
            guard name != ".", name != "..", !name.hasPrefix(".") else { continue }
            entries += 1
            guard entries <= limit else {
                throw SyncError(.tooLarge, "the folder holds more than \(limit) entries", at: .file(path))
            }
            var status = stat()
            guard fstatat(dirfd(directory), name, &status, AT_SYMLINK_NOFOLLOW) == 0 else { continue }
            let full = path.isEmpty ? name : path + "/" + name
            switch status.st_mode & S_IFMT {
            case S_IFDIR where depth < 8 && (prefix.hasPrefix(full + "/") || full.hasPrefix(prefix) || prefix.isEmpty):
                folders.append(name)
            case S_IFREG where full.hasPrefix(prefix):
                objects.append(RemoteObject(name: full, size: Int(status.st_size)))
            default:
                continue  // links, devices, FIFOs, sockets: never an object
            }
        }
        for name in folders.sorted() {
            let child = openat(dirfd(directory), name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard child >= 0 else { continue }  // replaced by a link since it was read: left out
            try walk(child, path: path.isEmpty ? name : path + "/" + name, prefix: prefix, depth: depth + 1, limit: limit, into: &objects, entries: &entries)
        }
    }

    /// Reads the file, at most `limit` bytes; a link, a folder, a FIFO or a device is refused
    /// (``SyncError/Code/notAuthentic``) without being opened for reading or waited on.
    public func get(_ name: String, limit: Int) async throws(SyncError) -> [UInt8] {
        guard let found = try parent(of: name, create: false) else {
            throw SyncError(.notFound, "no such file (deleted since it was listed?)", at: .file(name))
        }
        let (folder, last) = found
        defer { close(folder) }
        // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused just after.
        let descriptor = openat(folder, last, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            let failure = errno
            if failure == ENOENT { throw SyncError(.notFound, "no such file (deleted since it was listed?)", at: .file(name)) }
            if failure == ELOOP { throw SyncError(.notAuthentic, "a link, not a file: links are never followed", at: .file(name)) }
            throw SyncError(.fileSystem, "cannot be read: \(Self.message(failure))", at: .file(name))
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            throw SyncError(.notAuthentic, "not a regular file (a folder, a FIFO or a device): never read", at: .file(name))
        }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw SyncError(.fileSystem, "cannot be read: \(Self.message(errno))", at: .file(name))
            }
            if count == 0 { return bytes }
            bytes += buffer[0..<count]
            if bytes.count > limit { throw SyncError(.tooLarge, "more than the \(limit) bytes sync reads", at: .file(name)) }
        }
    }

    /// Writes a temporary file beside it, flushes it, renames it into place and flushes the
    /// folder (so the rename survives a power cut).
    public func put(_ name: String, _ bytes: [UInt8]) async throws(SyncError) {
        guard let found = try parent(of: name, create: true) else {
            throw SyncError(.fileSystem, "its folder cannot be made", at: .file(name))
        }
        let (folder, last) = found
        defer { close(folder) }
        let temporary = ".\(last).\(UUID().uuidString).partial"
        let descriptor = openat(folder, temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw SyncError(.fileSystem, "cannot write: \(Self.message(errno))", at: .file(name)) }
        var failure: Int32?
        bytes.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            var done = 0
            while done < buffer.count {
                let written = write(descriptor, base + done, buffer.count - done)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                done += written
            }
        }
        if failure == nil, fsync(descriptor) != 0 { failure = errno }
        close(descriptor)
        if failure == nil, renameat(folder, temporary, folder, last) != 0 { failure = errno }
        if let failure {
            unlinkat(folder, temporary, 0)
            throw SyncError(.fileSystem, "cannot write: \(Self.message(failure))", at: .file(name))
        }
        _ = fsync(folder)
    }

    /// Removes the file (a link of that name is removed itself, never what it points to).
    public func delete(_ name: String) async throws(SyncError) {
        guard let found = try parent(of: name, create: false) else { return }
        let (folder, last) = found
        defer { close(folder) }
        if unlinkat(folder, last, 0) != 0, errno != ENOENT {
            throw SyncError(.fileSystem, "cannot delete: \(Self.message(errno))", at: .file(name))
        }
    }
}
