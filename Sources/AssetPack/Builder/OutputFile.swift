import Dispatch
import SystemPackage

/// Simulated disk faults for tests: writes that stop after a budget (as on a full disk) and
/// writes that accept fewer bytes than asked (short writes), and a failing `fsync`.
final class WriteFaults {
    /// Bytes that may still be written before writes fail with `ENOSPC`; `nil` for no limit.
    var budget: Int?
    /// The most one write call accepts; `nil` for all of it.
    var maximumPerCall: Int?
    var failSync = false

    init(budget: Int? = nil, maximumPerCall: Int? = nil, failSync: Bool = false) {
        self.budget = budget
        self.maximumPerCall = maximumPerCall
        self.failSync = failSync
    }
}

/// A buffered, append-only output file that can patch bytes it has already written.
final class OutputFile {
    let path: String
    private let file: FileDescriptor
    private let faults: WriteFaults?
    private var buffer: [UInt8] = []
    /// The file offset of `buffer[0]`.
    private var bufferStart: UInt64 = 0
    private let capacity = 1 << 20
    /// Where the bytes not yet handed to writeback start.
    private var writebackStart: UInt64 = 0
    private let writebackChunk: UInt64 = 8 << 20

    /// Creates `path`, which must not exist (`O_EXCL`: never follows or reuses a planted file).
    init(creating path: String, faults: WriteFaults? = nil) throws(PackError) {
        self.path = path
        self.faults = faults
        let options: FileDescriptor.OpenOptions = [.create, .exclusiveCreate, .closeOnExec, .noFollow]
        let permissions: FilePermissions = [.ownerReadWrite, .groupRead, .otherRead]
        switch Platform.system({ try FileDescriptor.open(path, .writeOnly, options: options, permissions: permissions) }) {
        case .success(let opened): file = opened
        case .failure(let error): throw PackError.system(error, "cannot create", at: .file(path))
        }
        buffer.reserveCapacity(capacity)
    }

    deinit { _ = try? file.close() }

    /// Whether `other` is open on this very file (same device and inode).
    func isSameFile(as other: FileDescriptor) -> Bool {
        guard let mine = try? file.stat(), let theirs = try? other.stat() else { return false }
        return mine.deviceID == theirs.deviceID && mine.inode == theirs.inode
    }

    /// Every byte before this offset is in the file (not only in the buffer).
    var flushedPosition: UInt64 { bufferStart }

    /// The offset the next appended byte will have.
    var position: UInt64 { bufferStart + UInt64(buffer.count) }

    func append(_ bytes: [UInt8]) throws(PackError) {
        if bytes.count > capacity {
            try bytes.withUnsafeBytes { raw in Result { () throws(PackError) in try append(raw) } }.get()
            return
        }
        if buffer.count + bytes.count > capacity { try flush() }
        buffer.append(contentsOf: bytes)
    }

    func append(_ bytes: UnsafeRawBufferPointer) throws(PackError) {
        if buffer.count + bytes.count > capacity { try flush() }
        if bytes.count > capacity {
            try writeFully(bytes, at: position)
            bufferStart += UInt64(bytes.count)
        } else {
            buffer.append(contentsOf: bytes)
        }
    }

    /// Lets `fill` write up to `count` bytes straight into the buffer; returns how many it wrote.
    func appendInPlace(
        upTo count: Int, _ fill: (UnsafeMutableRawBufferPointer) throws(PackError) -> Int
    ) throws(PackError) -> Int {
        let count = min(count, capacity)
        if buffer.count + count > capacity { try flush() }
        let old = buffer.count
        buffer.append(contentsOf: repeatElement(0, count: count))
        let result = buffer.withUnsafeMutableBytes { all in
            Result { () throws(PackError) -> Int in
                try fill(UnsafeMutableRawBufferPointer(rebasing: all[old..<old + count]))
            }
        }
        switch result {
        case .success(let written):
            buffer.removeSubrange((old + written)...)
            return written
        case .failure(let error):
            buffer.removeSubrange(old...)
            throw error
        }
    }

    /// Overwrites bytes at `offset`, which must already have been appended.
    func patch(_ bytes: [UInt8], at offset: UInt64) throws(PackError) {
        if offset >= bufferStart {
            let start = Int(offset - bufferStart)
            buffer.replaceSubrange(start..<start + bytes.count, with: bytes)
        } else {
            try bytes.withUnsafeBytes { raw in Result { () throws(PackError) in try writeFully(raw, at: offset) } }.get()
        }
    }

    func flush() throws(PackError) {
        guard !buffer.isEmpty else { return }
        try buffer.withUnsafeBytes { raw in Result { () throws(PackError) in try writeFully(raw, at: bufferStart) } }
            .get()
        bufferStart += UInt64(buffer.count)
        buffer.removeAll(keepingCapacity: true)
        startWriteback()
    }

    /// Hands every full 8 MiB written so far to the kernel's writeback, so the disk writes
    /// while the pack is still being built and the final `fsync` waits for little. Only a hint:
    /// failures are left to `fsync` to report.
    private func startWriteback() {
        guard bufferStart - writebackStart >= writebackChunk else { return }
        Platform.startWriteback(file, offset: writebackStart, length: bufferStart - writebackStart)
        writebackStart = bufferStart
    }

    /// Flushes and makes the file durable (`F_FULLFSYNC` on Apple platforms, `fsync` elsewhere);
    /// an error is final (never retried: the kernel may have dropped the dirty pages).
    func synchronize() throws(PackError) {
        try flush()
        if faults?.failSync == true { throw PackError.system(.ioError, "fsync failed", at: .file(path)) }
        if case .failure(let error) = Platform.synchronize(file) { throw PackError.system(error, "fsync failed", at: .file(path)) }
    }

    private func writeFully(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws(PackError) {
        var done = 0
        while done < bytes.count {
            var request = bytes.count - done
            if let faults {
                request = min(request, faults.maximumPerCall ?? request)
                if let budget = faults.budget {
                    guard budget > 0 else {
                        throw PackError.system(.noSpace, "write failed", at: .pack(path, offset: offset + UInt64(done)))
                    }
                    request = min(request, budget)
                    faults.budget = budget - request
                }
            }
            let part = UnsafeRawBufferPointer(rebasing: bytes[done..<done + request])
            switch Platform.system({ try file.write(toAbsoluteOffset: Int64(offset) + Int64(done), part) }) {
            case .success(0):
                throw PackError(.io, "write made no progress", at: .pack(path, offset: offset + UInt64(done)))
            case .success(let wrote):
                done += wrote
            case .failure(let error):
                throw PackError.system(error, "write failed", at: .pack(path, offset: offset + UInt64(done)))
            }
        }
    }
}

/// ``OutputFile/synchronize()`` on another thread while the caller works on; ``wait()`` for its
/// outcome. The caller must not write to the file until then.
final class SyncInBackground: @unchecked Sendable {
    private let group = DispatchGroup()
    private var outcome: Result<Void, PackError> = .success(())
    private let output: OutputFile

    init(_ output: OutputFile) {
        self.output = output
        DispatchQueue.global(qos: .userInitiated).async(group: group) { [self] in
            do throws(PackError) {
                try self.output.synchronize()
            } catch {
                outcome = .failure(error)
            }
        }
    }

    func wait() -> Result<Void, PackError> {
        group.wait()
        return outcome
    }
}
