import SystemPackage

/// A file another module of the package writes at positions and reads back (a download's
/// partial file, a journal), through the same system layer as the builder: every call retried
/// on `EINTR`, every failure a ``PackError`` carrying the system's `Errno`.
///
/// `@unchecked Sendable`: `pwrite` and `pread` carry their own offsets, so threads may write
/// disjoint ranges at once; the descriptor is closed only in `deinit`.
package final class WritableFile: @unchecked Sendable {
    /// Where the file is.
    package let path: String
    private let descriptor: FileDescriptor

    /// Opens `path` for reading and writing; `create` makes it (mode 0644) if it is missing,
    /// `truncate` empties it. Never follows a symbolic link at `path`.
    package init(path: String, create: Bool = false, truncate: Bool = false) throws(PackError) {
        var options: FileDescriptor.OpenOptions = [.closeOnExec, .noFollow]
        if create { options.insert(.create) }
        if truncate { options.insert(.truncate) }
        switch Platform.system({
            try FileDescriptor.open(path, .readWrite, options: options, permissions: [.ownerReadWrite, .groupRead, .otherRead])
        }) {
        case .success(let opened): descriptor = opened
        case .failure(let error): throw PackError.system(error, "cannot open for writing", at: .file(path))
        }
        self.path = path
    }

    deinit { _ = try? descriptor.close() }

    /// The file's size now.
    package func size() throws(PackError) -> UInt64 {
        switch Platform.system({ try descriptor.stat() }) {
        case .success(let status): return UInt64(clamping: status.size)
        case .failure(let error): throw PackError.system(error, "cannot stat", at: .file(path))
        }
    }

    /// The file's identity now (device, inode, size, modification time).
    package func identity() throws(PackError) -> FileIdentity {
        switch Platform.system({ try descriptor.stat() }) {
        case .success(let status): return FileIdentity(status)
        case .failure(let error): throw PackError.system(error, "cannot stat", at: .file(path))
        }
    }

    /// Makes the file `size` bytes long (`ftruncate`): cut, or extended with zeros.
    package func resize(to size: UInt64) throws(PackError) {
        guard size <= UInt64(Int64.max) else { throw PackError(.tooLarge, "\(size) bytes", at: .file(path)) }
        if case .failure(let error) = Platform.system({ try descriptor.resize(to: Int64(size)) }) {
            throw PackError.system(error, "cannot resize to \(size) bytes", at: .file(path))
        }
    }

    /// Writes all of `bytes` at `offset` (`pwrite`, again until done).
    package func write(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws(PackError) {
        guard offset <= UInt64(Int64.max) - UInt64(bytes.count) else {
            throw PackError(.invalidArgument, "\(bytes.count) bytes at \(offset) lie past any file", at: .pack(path, offset: offset))
        }
        if case .failure(let error) = Platform.system({ _ = try descriptor.writeAll(toAbsoluteOffset: Int64(offset), bytes) }) {
            throw PackError.system(error, "cannot write \(bytes.count) bytes", at: .pack(path, offset: offset))
        }
    }

    /// Writes all of `bytes` at `offset`.
    package func write(_ bytes: [UInt8], at offset: UInt64) throws(PackError) {
        let result = bytes.withUnsafeBytes { raw in Result { () throws(PackError) in try write(raw, at: offset) } }
        try result.get()
    }

    /// Appends `bytes` at the file's end (a log: each call one whole record).
    package func append(_ bytes: [UInt8]) throws(PackError) {
        try write(bytes, at: try size())
    }

    /// Reads up to `buffer.count` bytes at `offset` (`pread`); returns how many the file had.
    package func read(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) throws(PackError) -> Int {
        guard offset <= UInt64(Int64.max) else { return 0 }
        var done = 0
        while done < buffer.count {
            let position = Int64(offset) + Int64(done)
            switch Platform.system({ try descriptor.read(fromAbsoluteOffset: position, into: UnsafeMutableRawBufferPointer(rebasing: buffer[done...])) }) {
            case .success(0): return done
            case .success(let count): done += count
            case .failure(let error): throw PackError.system(error, "cannot read", at: .pack(path, offset: UInt64(position)))
            }
        }
        return done
    }

    /// Starts writing everything written so far back to the disk without waiting for it, so a
    /// later ``synchronize()`` has little left to do (Linux's `sync_file_range`; elsewhere
    /// nothing). A hint: failures are left to the sync to report.
    package func startWriteback() {
        guard let size = try? size() else { return }
        Platform.startWriteback(descriptor, offset: 0, length: size)
    }

    /// Makes what was written durable (`F_FULLFSYNC` on Apple platforms, `fsync` elsewhere).
    package func synchronize() throws(PackError) {
        if case .failure(let error) = Platform.synchronize(descriptor) { throw PackError.system(error, "cannot sync", at: .file(path)) }
    }

    /// Takes the advisory lock on this file (`flock`, exclusive): `wait` blocks until the holder
    /// lets go; otherwise returns `false` at once when another process or descriptor holds it.
    /// The lock lasts until this object is released (or the process ends: a killed holder never
    /// leaves it held).
    package func lock(wait: Bool) throws(PackError) -> Bool {
        switch Platform.lock(descriptor, wait: wait) {
        case .success(let taken): return taken
        case .failure(let error): throw PackError.system(error, "cannot lock", at: .file(path))
        }
    }
}

/// Replacing files so that a crash at any moment leaves the complete old file or the complete
/// new one, as git publishes its packs: the new file is synced, renamed over the old, and the
/// folder synced (on Apple platforms with `F_FULLFSYNC`). The builder, the catalog publisher and
/// the delivery installer all replace files this way.
package enum DurableFile {
    /// Renames `temporary` (in the same folder, or one on the same file system) over
    /// `destination` after syncing it, then syncs `destination`'s folder.
    package static func replace(_ destination: String, with temporary: String) throws(PackError) {
        try WritableFile(path: temporary).synchronize()
        try rename(temporary, over: destination)
    }

    /// Renames `temporary`, already synced, over `destination`, then syncs the folder.
    package static func rename(_ temporary: String, over destination: String) throws(PackError) {
        if case .failure(let error) = Platform.rename(temporary, to: destination) {
            throw PackError.system(error, "cannot rename \(temporary) into place", at: .file(destination))
        }
        try synchronizeFolder(of: destination)
    }

    /// Writes `bytes` as the whole new content of `path`: to a temporary file beside it, synced,
    /// then renamed over it.
    package static func write(_ bytes: [UInt8], to path: String) throws(PackError) {
        let temporary = path + ".tmp-\(Platform.processID)-\(UInt32.random(in: 0...UInt32.max))"
        do throws(PackError) {
            let file = try WritableFile(path: temporary, create: true, truncate: true)
            try file.write(bytes, at: 0)
            try file.synchronize()
        } catch {
            Platform.removeFile(temporary)
            throw error
        }
        do throws(PackError) {
            try rename(temporary, over: path)
        } catch {
            Platform.removeFile(temporary)
            throw error
        }
    }

    /// Syncs the folder holding `path`, so a rename or a new name in it is durable.
    package static func synchronizeFolder(of path: String) throws(PackError) {
        let folder = FilePath(path).removingLastComponent()
        let name = folder.isEmpty ? "." : folder.string
        let directory: FileDescriptor
        switch Platform.system({ try FileDescriptor.open(name, .readOnly, options: [.directory, .closeOnExec]) }) {
        case .success(let opened): directory = opened
        case .failure(let error): throw PackError.system(error, "cannot open the folder to sync it", at: .file(name))
        }
        defer { _ = try? directory.close() }
        if case .failure(let error) = Platform.synchronize(directory) {
            throw PackError.system(error, "fsync of the folder failed", at: .file(name))
        }
    }
}

/// Files and folders by path, for the modules built on this one: what Foundation's
/// `FileManager` offers, with typed errors and no following of symbolic links where it matters.
package enum FileSystem {
    /// Whether something exists at `path` (without following a symbolic link there).
    package static func exists(_ path: String) -> Bool {
        if case .success = Platform.system({ try FilePath(path).stat(followTargetSymlink: false) }) { return true }
        return false
    }

    /// Creates the folder at `path` and any missing parents (mode 0755).
    package static func makeFolder(_ path: String) throws(PackError) {
        var built = FilePath(path.hasPrefix("/") ? "/" : "")
        for component in FilePath(path).components {
            built.append(component)
            switch Platform.makeFolder(built.string) {
            case .success, .failure(.fileExists): continue
            case .failure(let error): throw PackError.system(error, "cannot create the folder", at: .file(built.string))
            }
        }
        switch Platform.system({ try FilePath(path).stat() }) {
        case .success(let status) where status.type == .directory: return
        case .success: throw PackError(.notAFolder, "it is not a folder", at: .file(path))
        case .failure(let error): throw PackError.system(error, "cannot create the folder", at: .file(path))
        }
    }

    /// Copies the regular file at `source` to a new file at `destination` (replacing one that is
    /// there), in 1 MiB pieces, and syncs it. Nothing is renamed: the caller publishes it.
    package static func copy(_ source: String, to destination: String) throws(PackError) {
        let (input, _) = try FileAccess.openRegularFile(source)
        defer { _ = try? input.close() }
        let output = try WritableFile(path: destination, create: true, truncate: true)
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 64)
        defer { scratch.deallocate() }
        var offset: UInt64 = 0
        while true {
            switch FileAccess.read(input, into: scratch) {
            case .failure(let error): throw PackError.system(error, "read failed", at: .file(source))
            case .success(0): try output.synchronize(); return
            case .success(let count):
                try output.write(UnsafeRawBufferPointer(rebasing: scratch[0..<count]), at: offset)
                offset += UInt64(count)
            }
        }
    }

    /// Removes the file at `path`, if there is one.
    package static func remove(_ path: String) { Platform.removeFile(path) }

    /// Makes sure `path` is a folder of its own: a symbolic link or a file at `path` is removed
    /// (never followed), then the folder is created if missing. For a work folder whose files
    /// are written and removed by name: through a link planted there, they would be someone
    /// else's.
    package static func makeOwnFolder(_ path: String) throws(PackError) {
        switch Platform.system({ try FilePath(path).stat(followTargetSymlink: false) }) {
        case .success(let status) where status.type == .directory: return
        case .success: remove(path)
        case .failure: break
        }
        try makeFolder(path)
    }

    /// Removes the entries of the folder at `path` that `remove(name, isRegularFile)` picks, by
    /// name relative to the open folder: the folder itself is never followed if it is a
    /// symbolic link (nothing is removed then), nor is an entry that is one (the link goes,
    /// not what it points to). Folders in it are left. Failures are ignored: it cleans up.
    package static func removeEntries(in path: String, where remove: (_ name: String, _ isRegularFile: Bool) -> Bool) {
        guard case .success(let descriptor) = Platform.system({
            try FileDescriptor.open(path, .readOnly, options: [.directory, .noFollow, .closeOnExec])
        }), let stream = try? Platform.FolderStream(taking: descriptor)
        else { return }
        var doomed: [String] = []
        while let name = stream.next(terminated: true) {
            let status = name.withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) { Platform.linkStatus(of: $0.baseAddress!, in: stream.descriptor) }
            }
            guard case .success(let found) = status, found.type != .directory else { continue }
            let text = String(decoding: name.dropLast(), as: UTF8.self)
            if remove(text, found.type == .regular) { doomed.append(text) }
        }
        for name in doomed { Platform.removeFile(name, in: stream.descriptor) }
    }

    /// The names in the folder at `path` (an empty list when it cannot be read).
    package static func names(in path: String) -> [String] {
        guard case .success(let descriptor) = Platform.system({
            try FileDescriptor.open(path, .readOnly, options: [.directory, .closeOnExec])
        }), let stream = try? Platform.FolderStream(taking: descriptor)
        else { return [] }
        var names: [String] = []
        while let name = stream.next() { names.append(String(decoding: name, as: UTF8.self)) }
        return names.sorted()
    }
}
