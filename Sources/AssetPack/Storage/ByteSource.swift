#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Which way a ``Pack`` reads its file.
public enum PackBackend: Sendable {
    /// Map the file read-only: zero-copy views, the fastest lookups. The file must never be
    /// truncated or rewritten in place while it is mapped: the process would die by `SIGBUS`.
    case mapped
    /// Read with `pread` into owned buffers: every I/O failure (a truncated or failing file)
    /// becomes a ``PackError``. For untrusted or removable files, and for whole-pack checks.
    case read
}

/// Identifies a file on disk: which file (device and inode) and which version of it.
public struct FileIdentity: Hashable, Sendable {
    public var device: UInt64
    public var inode: UInt64
    public var size: UInt64
    public var modificationSeconds: Int64
    public var modificationNanoseconds: Int64

    init(_ info: stat) {
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = UInt64(info.st_size)
        modificationSeconds = Int64(info.st_mtim.tv_sec)
        modificationNanoseconds = Int64(info.st_mtim.tv_nsec)
    }

    init(device: UInt64, inode: UInt64, size: UInt64, modificationSeconds: Int64, modificationNanoseconds: Int64) {
        self.device = device
        self.inode = inode
        self.size = size
        self.modificationSeconds = modificationSeconds
        self.modificationNanoseconds = modificationNanoseconds
    }

    /// The identity of the file at `path` now (`stat`, following links).
    public init(path: String) throws(PackError) {
        var info = stat()
        guard stat(path, &info) == 0 else { throw PackError.errno(errno, "cannot stat", path: path) }
        self.init(info)
    }
}

/// A pack file opened with pread; `@unchecked Sendable` because `pread` carries its own offset
/// and the descriptor is only closed in `deinit`.
final class FileReader: @unchecked Sendable {
    let descriptor: Int32

    init(descriptor: Int32) { self.descriptor = descriptor }

    deinit { close(descriptor) }
}

/// The bytes of an opened pack file, through a mapping or through pread.
enum ByteSource: Sendable {
    case mapped(ByteStorage)
    case file(FileReader, size: UInt64)

    var size: UInt64 {
        switch self {
        case .mapped(let storage): UInt64(storage.count)
        case .file(_, let size): size
        }
    }

    /// Opens `path` read-only with the given backend.
    static func open(path: String, backend: PackBackend) throws(PackError) -> (ByteSource, FileIdentity) {
        let descriptor = openReadOnly(path)
        guard descriptor >= 0 else { throw PackError.errno(errno, "cannot open", path: path) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            let code = errno
            close(descriptor)
            throw PackError.errno(code, "cannot stat", path: path)
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            close(descriptor)
            throw PackError(.io, "not a regular file", path: path)
        }
        let identity = FileIdentity(info)
        let size = Int(info.st_size)
        switch backend {
        case .read:
            return (.file(FileReader(descriptor: descriptor), size: UInt64(size)), identity)
        case .mapped:
            defer { close(descriptor) }  // the mapping survives close()
            guard size > 0 else { return (.mapped(ByteStorage(base: nil, count: 0, kind: .mapping)), identity) }
            guard let pointer = mmap(nil, size, PROT_READ, MAP_PRIVATE, descriptor, 0), pointer != MAP_FAILED else {
                throw PackError.errno(errno, "cannot map", path: path)
            }
            return (.mapped(ByteStorage(base: UnsafeRawPointer(pointer), count: size, kind: .mapping)), identity)
        }
    }

    /// Tells the kernel the mapped pages wholly inside `offset..<offset+count` are not needed now
    /// (`MADV_DONTNEED`): they leave resident memory and are read again from the file if touched.
    /// The file never changes under a mapping (the contract), so nothing is lost.
    func release(_ offset: UInt64, _ count: Int) {
        guard case .mapped(let storage) = self, let base = storage.base else { return }
        let page = UInt64(sysconf(Int32(_SC_PAGESIZE)))
        let start = (offset + page - 1) / page * page
        let end = (offset + UInt64(count)) / page * page
        guard end > start else { return }
        madvise(UnsafeMutableRawPointer(mutating: base + Int(start)), Int(end - start), MADV_DONTNEED)
    }

    /// The bytes `offset..<offset+count`, or an error if any of them lie outside the file.
    func bytes(at offset: UInt64, count: Int) throws(PackError) -> PackData {
        guard count >= 0, offset <= size, UInt64(count) <= size - offset else {
            throw PackError(
                .entryOutOfBounds, "\(count) bytes at \(offset) lie outside the \(size)-byte file", offset: offset)
        }
        switch self {
        case .mapped(let storage):
            return PackData(storage: storage, start: Int(offset), count: count)
        case .file(let reader, _):
            let storage = try ByteStorage.heap(capacity: count) { (buffer) throws(PackError) -> Int in
                var done = 0
                while done < count {
                    let got = pread(
                        reader.descriptor, buffer.baseAddress! + done, count - done, off_t(offset) + off_t(done))
                    if got < 0 {
                        if errno == EINTR { continue }
                        throw PackError.errno(errno, "read failed", offset: offset + UInt64(done))
                    }
                    if got == 0 {
                        throw PackError(
                            .io, "the file ended early (truncated while open?)", offset: offset + UInt64(done))
                    }
                    done += got
                }
                return done
            }
            return PackData(storage: storage, start: 0, count: count)
        }
    }
}

private func openReadOnly(_ path: String) -> Int32 { open(path, O_RDONLY | O_CLOEXEC) }

extension PackError {
    /// An I/O error from a failed system call, with the system's own words.
    static func errno(_ code: Int32, _ what: String, path: String? = nil, offset: UInt64? = nil) -> PackError {
        let reason = String(cString: strerror(code))
        if code == ENOENT { return PackError(.fileNotFound, path: path) }
        return PackError(.io, "\(what): \(reason)", path: path, offset: offset)
    }
}
