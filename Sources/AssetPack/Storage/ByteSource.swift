import SystemPackage

/// Which way a ``Pack`` reads its file.
public enum PackBackend: Sendable {
    /// Map the file read-only: zero-copy views, the fastest lookups. The file must never be
    /// truncated or rewritten in place while it is mapped: the process would die by `SIGBUS`.
    case mapped
    /// Read with `pread` into owned buffers: every I/O failure (a truncated or failing file)
    /// becomes a ``PackError``. For untrusted or removable files, and for whole-pack checks.
    case read
}

/// A pack file opened for `pread`; `@unchecked Sendable` because `pread` carries its own offset
/// and the descriptor is only closed in `deinit`.
final class FileReader: @unchecked Sendable {
    let file: FileDescriptor

    init(file: FileDescriptor) { self.file = file }

    deinit { _ = try? file.close() }
}

/// The bytes of an opened pack file, through a mapping or through pread.
enum ByteSource: Sendable {
    case mapped(ByteStorage)
    case file(FileReader, size: UInt64)
    /// Only the last bytes of a file of `size` bytes, from `start` on (a pack's index, central
    /// directory and end records, fetched before the rest: ``PackLayout``).
    case tail(ByteStorage, start: UInt64, size: UInt64)

    /// The first byte that can be read: 0, or where a ``tail(_:start:size:)`` begins.
    var firstAvailable: UInt64 {
        if case .tail(_, let start, _) = self { return start }
        return 0
    }

    var size: UInt64 {
        switch self {
        case .mapped(let storage): UInt64(storage.count)
        case .file(_, let size): size
        case .tail(_, _, let size): size
        }
    }

    /// Opens `path` read-only with the given backend. Anything but a regular file (a folder, a
    /// FIFO, a device) is refused before it is read, and never blocks the open.
    static func open(path: String, backend: PackBackend) throws(PackError) -> (ByteSource, FileIdentity) {
        let (file, status) = try FileAccess.openRegularFile(path)
        let identity = FileIdentity(status)
        guard status.size <= Int64(Int.max) else {
            _ = try? file.close()
            throw PackError(.tooLarge, "\(status.size) bytes", at: .file(path))
        }
        let size = Int(status.size)
        switch backend {
        case .read:
            return (.file(FileReader(file: file), size: UInt64(size)), identity)
        case .mapped:
            defer { _ = try? file.close() }  // the mapping survives close()
            guard size > 0 else { return (.mapped(ByteStorage(base: nil, count: 0, kind: .mapping)), identity) }
            switch Platform.mapReadOnly(file, count: size) {
            case .success(let base): return (.mapped(ByteStorage(base: base, count: size, kind: .mapping)), identity)
            case .failure(let error): throw PackError.system(error, "cannot map", at: .file(path))
            }
        }
    }

    /// Tells the kernel the mapped pages wholly inside `offset..<offset+count` are not needed now:
    /// they leave resident memory and are read again from the file if touched. The file never
    /// changes under a mapping (the contract), so nothing is lost.
    func release(_ offset: UInt64, _ count: Int) {
        guard case .mapped(let storage) = self, let base = storage.base else { return }
        Platform.discardPages(of: base, in: Int(offset)..<Int(offset) + count)
    }

    /// The bytes `offset..<offset+count`, or an error if any of them lie outside the file.
    func bytes(at offset: UInt64, count: Int) throws(PackError) -> PackData {
        guard count >= 0, offset <= size, UInt64(count) <= size - offset else {
            throw PackError(
                .entryOutOfBounds, "\(count) bytes at \(offset) lie outside the \(size)-byte file", at: .pack(offset: offset))
        }
        switch self {
        case .mapped(let storage):
            return PackData(storage: storage, start: Int(offset), count: count)
        case .tail(let storage, let start, _):
            guard offset >= start else {
                throw PackError(.entryOutOfBounds, "bytes at \(offset) come before the part of the file at hand (from \(start))", at: .pack(offset: offset))
            }
            return PackData(storage: storage, start: Int(offset - start), count: count)
        case .file(let reader, _):
            let storage = try ByteStorage.heap(capacity: count) { (buffer) throws(PackError) -> Int in
                try reader.read(at: offset, into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<count]))
                return count
            }
            return PackData(storage: storage, start: 0, count: count)
        }
    }

    /// The bytes `offset..<offset+count` for a moment: a view of the mapping, or read with `pread`
    /// into `scratch` (at least `count` bytes). The view lasts while the source does and until
    /// `scratch` is reused; for reading many blocks one after another without an allocation each.
    func bytes(
        at offset: UInt64, count: Int, scratch: UnsafeMutableRawBufferPointer
    ) throws(PackError) -> UnsafeRawBufferPointer {
        guard case .file(let reader, let size) = self else {
            return try bytes(at: offset, count: count).withUnsafeBytes { $0 }
        }
        guard count >= 0, count <= scratch.count, offset <= size, UInt64(count) <= size - offset else {
            throw PackError(
                .entryOutOfBounds, "\(count) bytes at \(offset) lie outside the \(size)-byte file", at: .pack(offset: offset))
        }
        let buffer = UnsafeMutableRawBufferPointer(rebasing: scratch[..<count])
        try reader.read(at: offset, into: buffer)
        return UnsafeRawBufferPointer(buffer)
    }
}

extension FileReader {
    /// Fills `buffer` from `offset` on; a short file or a failing read is an error.
    func read(at offset: UInt64, into buffer: UnsafeMutableRawBufferPointer) throws(PackError) {
        var done = 0
        while done < buffer.count {
            let part = UnsafeMutableRawBufferPointer(rebasing: buffer[done...])
            switch Platform.system({ try file.read(fromAbsoluteOffset: Int64(offset) + Int64(done), into: part) }) {
            case .failure(let error):
                throw PackError.system(error, "read failed", at: .pack(offset: offset + UInt64(done)))
            case .success(0):
                throw PackError(.io, "the file ended early (truncated while open?)", at: .pack(offset: offset + UInt64(done)))
            case .success(let read):
                done += read
            }
        }
    }
}
