import Dispatch
import Foundation
import SystemPackage

/// Format 2's SHA-256 of every entry, from the bytes written: a thread of its own reads each
/// entry back from the pack (the page cache) as soon as the writer has flushed it, while the
/// writer goes on; at the end the writer's thread joins in, while the disk syncs what was
/// written. Hashing then costs a build little more than the time the disk takes anyway.
final class WrittenHasher: @unchecked Sendable {
    private let condition = NSCondition()
    /// Each entry's data, in entry order, as the writer adds them.
    private var spans: [(offset: UInt64, count: UInt64)] = []
    /// Bytes before this offset are in the file.
    private var flushed: UInt64 = 0
    /// No more entries will be added.
    private var closed = false
    /// The next entry to claim.
    private var next = 0
    private var hashes: [EntryHash?]
    private var failure: PackError?
    private let file: FileDescriptor
    private let path: String
    private let group = DispatchGroup()

    /// Starts hashing the entries of the pack being written at `path`, `count` of them.
    init(path: String, count: Int) throws(PackError) {
        self.path = path
        hashes = [EntryHash?](repeating: nil, count: count)
        switch Platform.system({ try FileDescriptor.open(path, .readOnly, options: [.closeOnExec, .noFollow]) }) {
        case .success(let opened): file = opened
        case .failure(let error): throw PackError.system(error, "cannot open to hash what was written", path: path)
        }
        DispatchQueue.global(qos: .utility).async(group: group) { self.work() }
    }

    deinit { _ = try? file.close() }

    /// The next entry's data is `offset..<offset+count`; the file holds every byte before `flushed`.
    func add(offset: UInt64, count: UInt64, flushed: UInt64) {
        condition.lock()
        spans.append((offset, count))
        self.flushed = flushed
        condition.signal()
        condition.unlock()
    }

    /// Every entry is added and in the file: hashes the rest on this thread too, then returns
    /// every entry's SHA-256.
    func finish(flushed: UInt64) throws(PackError) -> [EntryHash] {
        condition.lock()
        self.flushed = flushed
        closed = true
        condition.broadcast()
        condition.unlock()
        work()
        group.wait()
        if let failure { throw failure }
        return try hashes.enumerated().map { (index, hash) throws(PackError) in
            guard let hash else { throw PackError(.io, "entry \(index) was not hashed", path: path) }
            return hash
        }
    }

    /// Stops the thread (after a failed build); safe to call after ``finish(flushed:)``.
    func cancel() {
        condition.lock()
        closed = true
        if failure == nil { failure = PackError(.io, "cancelled", path: path) }
        condition.broadcast()
        condition.unlock()
        group.wait()
    }

    /// Claims entries whose bytes are in the file and hashes them, until none are left.
    private func work() {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 << 10, alignment: 64)
        defer { buffer.deallocate() }
        while true {
            condition.lock()
            while failure == nil, next < spans.count ? spans[next].offset + spans[next].count > flushed : !closed {
                condition.wait()
            }
            guard failure == nil, next < spans.count else {
                condition.unlock()
                return
            }
            let index = next
            let span = spans[index]
            next += 1
            condition.unlock()
            let result = hash(span, buffer)
            condition.lock()
            switch result {
            case .success(let hash): hashes[index] = hash
            case .failure(let error): failure = failure ?? error
            }
            condition.broadcast()
            condition.unlock()
        }
    }

    private func hash(_ span: (offset: UInt64, count: UInt64), _ buffer: UnsafeMutableRawBufferPointer) -> Result<EntryHash, PackError> {
        var hasher = EntryHash.Hasher()
        var done: UInt64 = 0
        while done < span.count {
            let part = UnsafeMutableRawBufferPointer(rebasing: buffer[..<Int(min(UInt64(buffer.count), span.count - done))])
            switch Platform.system({ try file.read(fromAbsoluteOffset: Int64(span.offset + done), into: part) }) {
            case .failure(let error): return .failure(PackError.system(error, "cannot read back what was written", path: path))
            case .success(0): return .failure(PackError(.io, "the file ended early", path: path, offset: span.offset + done))
            case .success(let count):
                hasher.update(UnsafeRawBufferPointer(rebasing: part[..<count]))
                done += UInt64(count)
            }
        }
        return .success(hasher.finish())
    }
}
