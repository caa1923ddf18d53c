import Foundation
import SystemPackage

/// Where a learner's devices leave their progress for each other: any store that lists, reads,
/// writes and deletes whole objects by name. Sync writes each name once and deletes only what a
/// verified snapshot covers, so a store needs no locking, no conditional writes and no
/// read-after-write consistency: an object missing from a listing is merged at a later sync.
///
/// Everything a remote returns is treated as hostile: sizes are checked, content is opened
/// only if the learner's key sealed it under that very name.
public protocol SyncRemote: Sendable {
    /// A name for the remote that stays the same across runs (a folder's path, an S3 URL): a
    /// progress file syncs with one remote, and keeps what it knows of it under this name.
    var identity: String { get }

    /// Every object whose name starts with `prefix`.
    func list(prefix: String) async throws(SyncError) -> [RemoteObject]

    /// The object `name`; ``SyncError/Code/tooLarge`` if it has more than `limit` bytes (the
    /// read stops there).
    func get(_ name: String, limit: Int) async throws(SyncError) -> [UInt8]

    /// Writes the object `name` (a retry writes the same bytes under the same name).
    func put(_ name: String, _ bytes: [UInt8]) async throws(SyncError)

    /// Deletes the object `name` (no error if it is gone).
    func delete(_ name: String) async throws(SyncError)
}

/// A folder as a remote: any folder a file-syncing service keeps in step across devices (iCloud
/// Drive, Dropbox, a network share), or a USB stick carried between them. No account, no server.
///
/// Objects are files under the folder; each is written to a temporary name, flushed and renamed
/// into place, so a reader never sees half an object.
public struct FolderRemote: SyncRemote {
    /// The folder.
    public let root: String

    /// The remote in `root` (created when the first object is written).
    public init(root: String) {
        self.root = (root as NSString).standardizingPath
    }

    /// `file://` and the folder's path.
    public var identity: String { "file://" + root }

    private func path(_ name: String) throws(SyncError) -> String {
        // Names come from sync itself, but the folder is shared: nothing may leave it.
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        guard !name.isEmpty, !parts.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }) else {
            throw SyncError(.invalidArgument, object: name, "not an object name inside the folder")
        }
        return root + "/" + name
    }

    /// Every regular file below `prefix`'s folder whose name starts with `prefix`.
    public func list(prefix: String) async throws(SyncError) -> [RemoteObject] {
        let folder = prefix.hasSuffix("/") ? String(prefix.dropLast()) : (prefix as NSString).deletingLastPathComponent
        let start = folder.isEmpty ? root : root + "/" + folder
        var objects: [RemoteObject] = []
        guard let walker = FileManager.default.enumerator(atPath: start) else { return [] }
        while let relative = walker.nextObject() as? String {
            let name = folder.isEmpty ? relative : folder + "/" + relative
            guard name.hasPrefix(prefix), !(relative as NSString).lastPathComponent.hasPrefix(".") else { continue }
            var status = stat()
            guard lstat(root + "/" + name, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { continue }
            objects.append(RemoteObject(name: name, size: Int(status.st_size)))
        }
        return objects.sorted { $0.name < $1.name }
    }

    /// Reads the file, at most `limit` bytes.
    public func get(_ name: String, limit: Int) async throws(SyncError) -> [UInt8] {
        let file = try path(name)
        do {
            let descriptor = try FileDescriptor.open(file, .readOnly, options: [.noFollow])
            return try descriptor.closeAfter { () throws -> [UInt8] in
                var bytes: [UInt8] = []
                var buffer = [UInt8](repeating: 0, count: 1 << 16)
                while true {
                    let count = try buffer.withUnsafeMutableBytes { try descriptor.read(into: $0) }
                    if count == 0 { return bytes }
                    bytes += buffer[0..<count]
                    if bytes.count > limit { throw SyncError(.tooLarge, object: name, "more than the \(limit) bytes sync reads") }
                }
            }
        } catch let error as SyncError {
            throw error
        } catch {
            throw SyncError(.fileSystem, object: name, "cannot be read: \(error)")
        }
    }

    /// Writes a temporary file beside it, flushes it, renames it into place.
    public func put(_ name: String, _ bytes: [UInt8]) async throws(SyncError) {
        let file = try path(name)
        let folder = (file as NSString).deletingLastPathComponent
        let temporary = folder + "/.\((file as NSString).lastPathComponent).\(UUID().uuidString).partial"
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let descriptor = try FileDescriptor.open(
                temporary, .writeOnly, options: [.create, .exclusiveCreate, .noFollow], permissions: [.ownerReadWrite, .groupRead, .otherRead])
            try descriptor.closeAfter {
                _ = try bytes.withUnsafeBytes { try descriptor.writeAll($0) }
                guard fsync(descriptor.rawValue) == 0 else { throw Errno(rawValue: errno) }
            }
            guard rename(temporary, file) == 0 else { throw Errno(rawValue: errno) }
        } catch {
            unlink(temporary)
            throw SyncError(.fileSystem, object: name, "cannot write: \(error)")
        }
    }

    /// Removes the file.
    public func delete(_ name: String) async throws(SyncError) {
        let file = try path(name)
        if unlink(file) != 0, errno != ENOENT {
            throw SyncError(.fileSystem, object: name, "cannot delete: \(String(cString: strerror(errno)))")
        }
    }
}
