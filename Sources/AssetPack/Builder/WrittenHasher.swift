import Dispatch
import Foundation
import SystemPackage

/// Format 2's SHA-256 of the larger entries, from the bytes written: a thread of its own reads
/// each entry back from the pack (the page cache) once the writer has flushed it, on the CPU time
/// the build leaves idle; at the end the writer's thread joins in, while the disk syncs what
/// was written. (Small files are hashed by the read-ahead workers, while they are in cache.)
final class WrittenHasher: @unchecked Sendable {
    private let condition = NSCondition()
    /// The entries to hash, in file order, as the writer adds them: each one's data.
    private var spans: [(offset: UInt64, count: UInt64)] = []
    /// Their entry numbers.
    private var numbers: [Int] = []
    /// Bytes before this offset are in the file.
    private var flushed: UInt64 = 0
    /// No more entries will be added.
    private var closed = false
    /// The next entry to claim.
    private var next = 0
    private var hashes: [EntryHash?] = []
    /// Entries the low-priority thread gave up, for the writer's thread.
    private var redo: [Int] = []
    private var failure: PackError?
    private let file: FileDescriptor
    private let path: String
    private let group = DispatchGroup()

    /// Starts hashing entries of the pack `output` is writing.
    init(_ output: OutputFile) throws(PackError) {
        path = output.path
        switch Platform.system({ try FileDescriptor.open(output.path, .readOnly, options: [.closeOnExec, .noFollow]) }) {
        case .success(let opened): file = opened
        case .failure(let error): throw PackError.system(error, "cannot open to hash what was written", at: .file(path))
        }
        // The file opened again by name must be the one being written, not one put in its place.
        // (Fully initialized here: a throw runs deinit, which closes the file.)
        guard output.isSameFile(as: file) else {
            throw PackError(.fileChanged, "was replaced while being written", at: .file(path))
        }
        // A thread of its own (its priority is lowered, which a shared worker would keep).
        group.enter()
        let thread = Thread { [self] in
            // While the build writes, only the CPU time it leaves idle; at the end, the
            // writer's thread joins in at full priority.
            Platform.yieldToOtherThreads()
            work(background: true)
            group.leave()
        }
        thread.qualityOfService = .utility
        thread.start()
    }

    deinit { _ = try? file.close() }

    /// Entry `number`'s data is `offset..<offset+count`, after that of every entry added before;
    /// the file holds every byte before `flushed`.
    func add(_ number: Int, offset: UInt64, count: UInt64, flushed: UInt64) {
        condition.lock()
        spans.append((offset, count))
        numbers.append(number)
        hashes.append(nil)
        // The thread wakes only when more of the file is in place (the writer flushes about
        // every MiB), not for every entry: a pack of many small files would wake it each time.
        if flushed > self.flushed {
            self.flushed = flushed
            condition.signal()
        }
        condition.unlock()
    }

    /// Every entry is added and in the file: hashes the rest on this thread too, then returns
    /// each added entry's number and SHA-256.
    func finish(flushed: UInt64) throws(PackError) -> [(number: Int, sha256: EntryHash)] {
        condition.lock()
        self.flushed = flushed
        closed = true
        condition.broadcast()
        condition.unlock()
        work()
        group.wait()
        work()  // what the other thread gave up as it finished
        if let failure { throw failure }
        return try hashes.enumerated().map { (index, hash) throws(PackError) in
            guard let hash else { throw PackError(.io, "entry \(numbers[index]) was not hashed", at: .file(path)) }
            return (numbers[index], hash)
        }
    }

    private var isClosed: Bool {
        condition.lock()
        defer { condition.unlock() }
        return closed
    }

    /// Bytes added and not yet claimed for hashing.
    var pendingBytes: UInt64 {
        condition.lock()
        defer { condition.unlock() }
        return spans[next...].reduce(0) { $0 + $1.count }
    }

    /// Stops the thread (after a failed build); safe to call after ``finish(flushed:)``.
    func cancel() {
        condition.lock()
        closed = true
        if failure == nil { failure = PackError(.io, "cancelled", at: .file(path)) }
        condition.broadcast()
        condition.unlock()
        group.wait()
    }

    /// Claims entries whose bytes are in the file and hashes them, until none are left. The
    /// low-priority thread gives up an entry larger than a read when ``finish(flushed:)`` has
    /// begun, for the writer's thread to hash at full priority.
    private func work(background: Bool = false) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.block, alignment: 64)
        defer { buffer.deallocate() }
        while true {
            condition.lock()
            while failure == nil, next < spans.count ? spans[next].offset + spans[next].count > flushed : !closed {
                condition.wait()
            }
            if !background, let index = redo.popLast() {
                condition.unlock()
                let result = hash(spans[index], buffer, abandonOnClose: false)
                store(result.map { [$0] } ?? [.failure(PackError(.io, "entry \(numbers[index]) was not hashed", at: .file(path)))], from: index)
                continue
            }
            guard failure == nil, next < spans.count else {
                condition.unlock()
                return
            }
            // A run of entries in place that one read can bring back, claimed at once.
            let first = next
            while next < spans.count, spans[next].offset + spans[next].count <= flushed,
                next == first || spans[next].offset + spans[next].count - spans[first].offset <= UInt64(Self.block)
            {
                next += 1
            }
            let claimed = Array(spans[first..<next])
            condition.unlock()
            guard let results = hash(claimed, buffer, abandonOnClose: background) else {
                // Given up: the writer's thread hashes it (after this thread is done).
                condition.lock()
                redo.append(first)
                condition.unlock()
                return
            }
            store(results, from: first)
        }
    }

    private func store(_ results: [Result<EntryHash, PackError>], from first: Int) {
        condition.lock()
        for (offset, result) in results.enumerated() {
            switch result {
            case .success(let hash): hashes[first + offset] = hash
            case .failure(let error): failure = failure ?? error
            }
        }
        condition.unlock()
    }

    /// At least this many bytes left to hash when the writer is done: worth syncing meanwhile.
    static let syncAlongside: UInt64 = 4 << 20

    /// The most bytes read back at once.
    static let block = 2 << 20

    /// The SHA-256s of a run of entries, one after another in the file: read back in one piece
    /// when the run fits the buffer (one read, not one per entry), else one entry at a time.
    /// `nil` if `abandonOnClose` and ``finish(flushed:)`` began while a large entry was hashed.
    private func hash(
        _ run: [(offset: UInt64, count: UInt64)], _ buffer: UnsafeMutableRawBufferPointer, abandonOnClose: Bool
    ) -> [Result<EntryHash, PackError>]? {
        guard let first = run.first, let last = run.last, last.offset + last.count >= first.offset,
            last.offset + last.count - first.offset <= UInt64(buffer.count)
        else {
            // One entry larger than a read (a run is cut before any such entry), or entries
            // not one after another: each on its own.
            if run.count == 1, let span = run.first {
                return hash(span, buffer, abandonOnClose: abandonOnClose).map { [$0] }
            }
            return run.compactMap { hash($0, buffer, abandonOnClose: false) }
        }
        let extent = UnsafeMutableRawBufferPointer(rebasing: buffer[..<Int(last.offset + last.count - first.offset)])
        if case .failure(let error) = read(into: extent, at: first.offset) { return [.failure(error)] }
        return run.map { span in
            let start = Int(span.offset - first.offset)
            return .success(EntryHash.of(UnsafeRawBufferPointer(rebasing: extent[start..<start + Int(span.count)])))
        }
    }

    /// Fills `part` from `offset` on.
    private func read(into part: UnsafeMutableRawBufferPointer, at offset: UInt64) -> Result<Void, PackError> {
        var done = 0
        while done < part.count {
            let rest = UnsafeMutableRawBufferPointer(rebasing: part[done...])
            switch Platform.system({ try file.read(fromAbsoluteOffset: Int64(offset) + Int64(done), into: rest) }) {
            case .failure(let error): return .failure(PackError.system(error, "cannot read back what was written", at: .file(path)))
            case .success(0): return .failure(PackError(.io, "the file ended early", at: .pack(path, offset: offset + UInt64(done))))
            case .success(let count): done += count
            }
        }
        return .success(())
    }

    private func hash(
        _ span: (offset: UInt64, count: UInt64), _ buffer: UnsafeMutableRawBufferPointer, abandonOnClose: Bool
    ) -> Result<EntryHash, PackError>? {
        var hasher = EntryHash.Hasher()
        var done: UInt64 = 0
        while done < span.count {
            if abandonOnClose, isClosed { return nil }
            let part = UnsafeMutableRawBufferPointer(rebasing: buffer[..<Int(min(UInt64(buffer.count), span.count - done))])
            if case .failure(let error) = read(into: part, at: span.offset + done) { return .failure(error) }
            hasher.update(UnsafeRawBufferPointer(part))
            done += UInt64(part.count)
        }
        return .success(hasher.finish())
    }
}
