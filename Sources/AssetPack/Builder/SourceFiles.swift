import Dispatch

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How a source file must be read: it has to be the file that was listed, unchanged.
struct SourceFile: Sendable {
    var path: String
    /// The file as listed (device, inode, size, modification time).
    var listed: FileIdentity

    /// An error if the file is not the one listed any more (its identity after reading differs).
    func checkUnchanged(_ descriptor: Int32) -> PackError? {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return PackError.errno(errno, "cannot stat", path: path) }
        let now = FileIdentity(info)
        if now.size != listed.size {
            return PackError(.fileChanged, "size was \(listed.size), now \(now.size)", path: path)
        }
        guard now == listed else { return PackError(.fileChanged, "modified or replaced while being packed", path: path) }
        return nil
    }

    /// Reads the whole file into `buffer` (exactly its listed size), checking that it is still
    /// the file listed; returns its CRC-32.
    func load(into buffer: UnsafeMutableRawBufferPointer) -> Result<UInt32, PackError> {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return .failure(PackError.errno(errno, "cannot open", path: path)) }
        defer { close(descriptor) }
        var done = 0
        while done < buffer.count, let base = buffer.baseAddress {
            let count = read(descriptor, base + done, buffer.count - done)
            if count < 0, errno == EINTR { continue }
            if count < 0 { return .failure(PackError.errno(errno, "read failed", path: path)) }
            if count == 0 {
                return .failure(
                    PackError(.fileChanged, "shrank to \(done) of \(buffer.count) bytes while being packed", path: path))
            }
            done += count
        }
        // A file that grew, shrank or was rewritten after it was listed has a new size or time.
        if let changed = checkUnchanged(descriptor) { return .failure(changed) }
        return .success(CRC32.checksum(UnsafeRawBufferPointer(buffer)))
    }

    /// Streams the file into the pack in 1 MiB pieces (for files too large to hold in memory).
    func copy(to output: OutputFile, crc: inout CRC32) throws(PackError) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw PackError.errno(errno, "cannot open", path: path) }
        defer { close(descriptor) }
        if let changed = checkUnchanged(descriptor) { throw changed }
        var remaining = listed.size
        while true {
            // Ask for one byte more than expected, so a file that grew is noticed.
            let want = Int(min(remaining + 1, 1 << 20))
            let got = try output.appendInPlace(upTo: want) { (buffer) throws(PackError) -> Int in
                while true {
                    let count = read(descriptor, buffer.baseAddress, buffer.count)
                    if count < 0, errno == EINTR { continue }
                    guard count >= 0 else { throw PackError.errno(errno, "read failed", path: path) }
                    guard UInt64(count) <= remaining else {
                        throw PackError(.fileChanged, "grew past \(listed.size) bytes while being packed", path: path)
                    }
                    crc.update(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
                    return count
                }
            }
            if got == 0 { break }
            remaining -= UInt64(got)
        }
        guard remaining == 0 else {
            throw PackError(
                .fileChanged, "shrank to \(listed.size - remaining) of \(listed.size) bytes while being packed",
                path: path)
        }
        if let changed = checkUnchanged(descriptor) { throw changed }
    }
}

/// Lists the regular files under a source folder, with raw names checked for UTF-8.
enum FolderWalker {
    struct Identity: Equatable {
        var device: UInt64
        var inode: UInt64
    }

    struct File {
        var relativePath: String
        var source: SourceFile
    }

    static func files(in folder: String, visited: inout [Identity]) throws(PackError) -> [File] {
        var files: [File] = []
        try walk(folder, relative: "", visited: &visited, into: &files)
        return files
    }

    private static func walk(
        _ folder: String, relative: String, visited: inout [Identity], into files: inout [File]
    ) throws(PackError) {
        var info = stat()
        guard stat(folder, &info) == 0 else { throw PackError.errno(errno, "cannot read folder", path: folder) }
        guard (info.st_mode & S_IFMT) == S_IFDIR else { throw PackError(.io, "not a folder", path: folder) }
        let identity = Identity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
        guard !visited.contains(identity) else {
            throw PackError(.io, "a symbolic link leads back into a folder being packed", path: folder)
        }
        visited.append(identity)
        defer { visited.removeLast() }
        guard let directory = opendir(folder) else { throw PackError.errno(errno, "cannot read folder", path: folder) }
        defer { closedir(directory) }
        var names: [[UInt8]] = []
        while let item = readdir(directory) {
            let name = directoryEntryName(item)
            if name.first == UInt8(ascii: ".") { continue }  // hidden, and "." and ".."
            names.append(name)
        }
        names.sort(by: byteOrder)
        let prefix = folder.hasSuffix("/") ? folder : folder + "/"
        let statuses = statAll(names, in: dirfd(directory))
        for (name, status) in zip(names, statuses) {
            let ascii = name.allSatisfy { $0 < 0x80 }
            guard let display = ascii ? String(decoding: name, as: UTF8.self) : String(validating: name, as: UTF8.self)
            else {
                throw PackError(
                    .unsafeName, "the file name is not valid UTF-8", path: prefix + String(decoding: name, as: UTF8.self))
            }
            let fullPath = prefix + display
            let relativePath = relative.isEmpty ? display : relative + "/" + display
            guard status.error == 0 else {
                throw PackError.errno(status.error, "cannot stat (a broken symbolic link?)", path: fullPath)
            }
            let entry = status.info
            switch entry.st_mode & S_IFMT {
            case S_IFDIR:
                try walk(fullPath, relative: relativePath, visited: &visited, into: &files)
            case S_IFREG:
                files.append(File(relativePath: relativePath, source: SourceFile(path: fullPath, listed: FileIdentity(entry))))
            default:
                throw PackError(.io, "not a regular file or folder", path: fullPath)
            }
        }
    }
}

extension FolderWalker {
    /// Byte order, shorter first on a tie (memcmp: the generic comparison is several times slower).
    fileprivate static func byteOrder(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        let order = a.withUnsafeBytes { a in
            b.withUnsafeBytes { b in
                guard let left = a.baseAddress, let right = b.baseAddress else { return Int32(0) }
                return memcmp(left, right, min(a.count, b.count))
            }
        }
        return order != 0 ? order < 0 : a.count < b.count
    }

    /// `fstatat` (following links) of every name in an open folder, relative to it so the kernel
    /// does not walk the whole path again, and spread over the cores for folders of many files.
    fileprivate static func statAll(_ names: [[UInt8]], in folder: Int32) -> [(info: stat, error: Int32)] {
        let results = DisjointWrites(UnsafeMutableBufferPointer<(info: stat, error: Int32)>.allocate(capacity: names.count))
        defer { results.buffer.deallocate() }
        results.buffer.initialize(repeating: (stat(), 0))
        let lanes = names.count >= 256 ? SourceReader.lanes : 1
        DispatchQueue.concurrentPerform(iterations: lanes) { lane in
            for index in stride(from: lane, to: names.count, by: lanes) {
                var info = stat()
                // (A name that is not UTF-8 is refused before its status is looked at.)
                let status = fstatat(folder, String(decoding: names[index], as: UTF8.self), &info, 0)
                results.buffer[index] = (info, status == 0 ? 0 : errno)
            }
        }
        return Array(results.buffer)
    }
}

/// Publishes a file crash-safely: written under a temporary name in the destination's folder,
/// checked, synced, renamed over the destination, and the folder synced.
struct AtomicPublisher {
    let destination: String
    let folder: String
    let temporaryPath: String
    private static let marker = ".tmp-"

    init(destination: String) throws(PackError) {
        self.destination = destination
        let slash = destination.lastIndex(of: "/")
        folder = slash.map { $0 == destination.startIndex ? "/" : String(destination[..<$0]) } ?? "."
        let base = slash.map { String(destination[destination.index(after: $0)...]) } ?? destination
        guard !base.isEmpty else { throw PackError(.invalidArgument, "the destination is a folder", path: destination) }
        var info = stat()
        guard stat(folder, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
            throw PackError(.fileNotFound, "the destination folder does not exist", path: folder)
        }
        Self.removeStale(base: base, in: folder)
        let prefix = "." + base + Self.marker
        temporaryPath = (folder == "/" ? "/" : folder + "/") + prefix + "\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    }

    /// Re-opens the written file and checks its structure (every header, the central directory and
    /// the index, as ``Pack/verify()`` does, but not the entries' CRC-32s, which were computed
    /// from the bytes as they were written), syncs it and renames it into place.
    func publish(_ output: OutputFile) throws(PackError) {
        try output.flush()
        do {
            try Pack(path: temporaryPath).verifyStructure()
        } catch {
            throw PackError(.io, "the written pack failed verification: \(error.description)", path: destination)
        }
        try output.synchronize()
        guard rename(temporaryPath, destination) == 0 else {
            throw PackError.errno(errno, "cannot rename into place", path: destination)
        }
        let directory = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directory >= 0 else { throw PackError.errno(errno, "cannot open folder to sync", path: folder) }
        defer { close(directory) }
        guard fsync(directory) == 0 else { throw PackError.errno(errno, "fsync of the folder failed", path: folder) }
    }

    func discard() { unlink(temporaryPath) }

    /// Removes temporary files left by builds of the same destination whose process is gone.
    private static func removeStale(base: String, in folder: String) {
        let prefix = Array(("." + base + marker).utf8)
        guard let directory = opendir(folder) else { return }
        defer { closedir(directory) }
        while let item = readdir(directory) {
            let name = directoryEntryName(item)
            guard name.starts(with: prefix) else { continue }
            let rest = name.dropFirst(prefix.count)
            guard let dash = rest.firstIndex(of: UInt8(ascii: "-")),
                let pid = Int32(String(decoding: rest[..<dash], as: UTF8.self))
            else { continue }
            if pid != getpid(), kill(pid, 0) != 0, errno == ESRCH {
                unlink((folder == "/" ? "/" : folder + "/") + String(decoding: name, as: UTF8.self))
            }
        }
    }
}

/// The name of a `readdir` entry, read in place: a `dirent` is only as long as its name, so
/// copying the whole fixed-size `d_name` field (as `item.pointee` would) reads past the end of
/// the last entry in the buffer.
func directoryEntryName(_ item: UnsafeMutablePointer<dirent>) -> [UInt8] {
    guard let offset = MemoryLayout<dirent>.offset(of: \dirent.d_name) else { return [] }
    let name = UnsafeRawPointer(item).advanced(by: offset).assumingMemoryBound(to: CChar.self)
    return Array(UnsafeRawBufferPointer(start: name, count: strlen(name)))
}
