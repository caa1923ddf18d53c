import Dispatch

/// Reads the builder's source files ahead of the writer, on worker threads.
///
/// A pack of many small files spends most of its build opening, reading and closing them; with
/// the reading spread over the machine's cores and overlapped with writing, a build takes about
/// as long as writing the pack. Entries are cut into batches of at most ``batchFiles`` (256) files
/// and ``batchBytes`` (16 MiB), read into one of two reused buffers as large as the largest
/// batch: while the writer writes one batch, the workers read the next. Files over
/// ``largeFile`` (4 MiB), and entries given as bytes, are left to the writer to stream. Results
/// come back in entry order, so the first failing entry is the one reported.
final class SourceReader {
    enum Slot {
        /// The file's bytes (valid only inside ``SourceReader/take(_:_:)``'s closure) and their
        /// CRC-32 (and, for small files in format 2, SHA-256), computed by the worker from the
        /// bytes the writer will write.
        case loaded(UnsafeRawBufferPointer, crc32: UInt32, sha256: EntryHash?)
        case failed(PackError)
        /// Not read ahead: the writer copies it itself.
        case inline
    }

    static let largeFile: UInt64 = 4 << 20
    static let batchBytes: UInt64 = 16 << 20
    static let batchFiles = 256
    /// Worker threads: the machine's cores, at most 4.
    static let lanes = min(4, Platform.processorCount)

    /// One batch's files and results. Each file's bytes go to their own part of the buffer, and
    /// each slot is written by exactly one worker before the group is left; the writer reads
    /// them only after waiting for the group.
    private final class Batch: @unchecked Sendable {
        let range: Range<Int>
        let sources: [ListedSourceFile?]
        let buffer: UnsafeMutableRawBufferPointer
        let slots: UnsafeMutableBufferPointer<Slot>
        let group = DispatchGroup()

        /// Files of at most this many bytes are hashed by the worker too.
        let hashingUpTo: UInt64?

        init(range: Range<Int>, sources: [ListedSourceFile?], buffer: UnsafeMutableRawBufferPointer, hashingUpTo: UInt64?) {
            self.hashingUpTo = hashingUpTo
            self.range = range
            self.sources = sources
            self.buffer = buffer
            slots = .allocate(capacity: sources.count)
            slots.initialize(repeating: .inline)
        }

        deinit {
            slots.deinitialize()
            slots.deallocate()
        }

        func load(lane: Int, lanes: Int) {
            var start = 0
            for (index, source) in sources.enumerated() {
                guard let source else { continue }
                // Each file gets one byte more than its size, so one read can tell a file that
                // has more bytes than listed (see ``ListedSourceFile/load(into:)``).
                let end = start + Int(source.listed.size) + 1
                if index % lanes == lane {
                    let part = UnsafeMutableRawBufferPointer(rebasing: buffer[start..<end])
                    switch source.load(into: part) {
                    case .success(let crc32):
                        let bytes = UnsafeRawBufferPointer(rebasing: part.dropLast())
                        let sha256 = hashingUpTo.flatMap { bytes.count <= $0 ? EntryHash.of(bytes) : nil }
                        slots[index] = .loaded(bytes, crc32: crc32, sha256: sha256)
                    case .failure(let error): slots[index] = .failed(error)
                    }
                }
                start = end
            }
        }
    }

    private let sources: [ListedSourceFile?]
    /// Where each batch starts, and `sources.count` at the end.
    private let boundaries: [Int]
    /// Batch k reads into buffer k % 2: the writer is done with a batch before the one two
    /// places after it is launched.
    private let buffers: [UnsafeMutableRawBufferPointer]
    private var current: Batch?
    private var following: Batch?
    private var nextBatch = 0

    /// Whether workers also compute each file's SHA-256 (format 2).

    /// Files of at most this many bytes are hashed by the workers in format 2 (see ``WrittenHasher``
    /// for the others): many small files keep the workers busy opening them, and their bytes are
    /// in cache; large ones are cheaper to hash on the CPU time the build leaves idle.
    static let hashedByWorkers: UInt64 = 16 << 10
    private let hashingUpTo: UInt64?

    init(_ entries: [PackBuilder.PendingEntry], hashingUpTo: UInt64?) {
        self.hashingUpTo = hashingUpTo
        sources = entries.map {
            guard case .file(let source) = $0.contents, source.listed.size <= Self.largeFile else { return nil }
            return source
        }
        var boundaries = [0]
        var files = 0
        var bytes: UInt64 = 0
        var largest: UInt64 = 0
        for (index, source) in sources.enumerated() {
            guard let source else { continue }
            if files == Self.batchFiles || bytes + source.listed.size > Self.batchBytes, files > 0 {
                boundaries.append(index)
                files = 0
                bytes = 0
            }
            files += 1
            bytes += source.listed.size + 1
            largest = max(largest, bytes)
        }
        if boundaries.last != sources.count { boundaries.append(sources.count) }
        self.boundaries = boundaries
        buffers = (0..<2).map { _ in .allocate(byteCount: Int(largest), alignment: 64) }
        following = launch()
    }

    deinit {
        // Workers may still be filling the buffers if the writer stopped early.
        current?.group.wait()
        following?.group.wait()
        for buffer in buffers { buffer.deallocate() }
    }

    /// Calls `body` with the result for entry `number`; entries must be taken in order. A loaded
    /// file's bytes are lent to `body` only: the buffer is reused for a later batch.
    func take<Result>(_ number: Int, _ body: (Slot) throws(PackError) -> Result) throws(PackError) -> Result {
        if current.map({ !$0.range.contains(number) }) ?? true {
            current = following
            following = launch()
            current?.group.wait()
        }
        guard let current, current.range.contains(number) else { return try body(.inline) }
        return try body(current.slots[number - current.range.lowerBound])
    }

    private func launch() -> Batch? {
        guard nextBatch + 1 < boundaries.count else { return nil }
        let range = boundaries[nextBatch]..<boundaries[nextBatch + 1]
        let batch = Batch(range: range, sources: Array(sources[range]), buffer: buffers[nextBatch % 2], hashingUpTo: hashingUpTo)
        nextBatch += 1
        let lanes = min(Self.lanes, batch.sources.count(where: { $0 != nil }))
        for lane in 0..<lanes {
            DispatchQueue.global(qos: .userInitiated).async(group: batch.group) { batch.load(lane: lane, lanes: lanes) }
        }
        return batch
    }
}

/// Memory shared with worker threads, each of which writes only its own elements; the owner
/// reads them only after the workers are done.
struct DisjointWrites<Element>: @unchecked Sendable {
    let buffer: UnsafeMutableBufferPointer<Element>

    init(_ buffer: UnsafeMutableBufferPointer<Element>) { self.buffer = buffer }
}
