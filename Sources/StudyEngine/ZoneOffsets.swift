import Foundation

/// A time zone's offsets from UTC as a table of six-hour steps, filled a year at a time on first
/// use: replaying a merged log asks for offsets a few times per answer, and Foundation's lookup
/// (56 ns) is many times the arithmetic around it.
///
/// The table says an offset holds over a span when every step boundary in and around it has
/// that offset. That rests on what ``LearnerCalendar``'s fast paths already assume: no two
/// offset changes within six hours of each other that cancel out (none in the time-zone
/// database since 1970). Where the boundaries disagree, a change lies between them, and the
/// caller asks Foundation.
///
/// A confined table (``init(confinedCopyOf:)``) belongs to one replay on one thread and takes no
/// lock: it copies a year's entries from its shared table the first time it needs them (the
/// shared table's lock taken once per year), then reads its own. A merge replaying 100,000
/// answers looks offsets up about ten times per answer, and the lock pair was a third of that.
final class ZoneOffsets: @unchecked Sendable {
    // @unchecked: a shared table's `table` and `filled` are read and written only under `lock`;
    // a confined table's only by the one replay that owns it (never handed to another thread).
    // `zone` never changes. `table` and `filled` are owned by this object (allocated in init, freed in deinit):
    // pointers, not arrays, so a lookup pays no exclusivity check on a class's stored array.
    let zone: TimeZone
    private let lock = NSLock()
    /// The shared table a confined one copies its years from; `nil` for a shared table.
    private let source: ZoneOffsets?
    /// Every boundary's offset, from `firstBoundary` on; a chunk's entries are valid once
    /// `filled` says so (the memory is only touched, and so only committed, chunk by chunk).
    private let table: UnsafeMutablePointer<Int32>
    private let filled: UnsafeMutablePointer<Bool>

    /// Seconds between the table's boundaries.
    static let step = 21_600.0
    /// Boundaries per chunk of the table (365.25 days).
    static let chunkSteps = 1_461
    /// The instants the table covers, in seconds since 2001 either side (about 1843 to 2159).
    static let reach = 5e9
    /// The number of the table's first boundary.
    static let firstBoundary = -Int(reach / step) - 2
    /// Chunks in the table (about 320; 1.85 MB in all).
    static let chunks = (2 * (Int(reach / step) + 2)) / chunkSteps + 2

    init(_ zone: TimeZone) {
        self.zone = zone
        source = nil
        table = .allocate(capacity: Self.chunks * Self.chunkSteps)
        filled = .allocate(capacity: Self.chunks)
        filled.initialize(repeating: false, count: Self.chunks)
    }

    /// A table for one thread's use only, filled from `shared` (the same offsets, without a lock).
    init(confinedCopyOf shared: ZoneOffsets) {
        zone = shared.zone
        source = shared.source ?? shared
        table = .allocate(capacity: Self.chunks * Self.chunkSteps)
        filled = .allocate(capacity: Self.chunks)
        filled.initialize(repeating: false, count: Self.chunks)
    }

    deinit {
        table.deallocate()
        filled.deallocate()
    }

    /// The offset at `reference` (seconds since 2001).
    func offset(at reference: Double) -> Int {
        steady(around: reference, margin: 0) ?? zone.secondsFromGMT(for: Date(timeIntervalSinceReferenceDate: reference))
    }

    /// The offset over `reference − margin … reference + margin` when the table shows no change
    /// there; `nil` when it shows one, or the span is out of the table's reach.
    func steady(around reference: Double, margin: Double) -> Int? {
        guard reference.isFinite, abs(reference) + margin < Self.reach else { return nil }
        let first = Int(((reference - margin) / Self.step).rounded(.down)) - Self.firstBoundary
        let last = Int(((reference + margin) / Self.step).rounded(.down)) + 1 - Self.firstBoundary
        if source != nil { return steady(first, last) }
        lock.lock()
        defer { lock.unlock() }
        return steady(first, last)
    }

    /// ``steady(around:margin:)`` over the table's entries `first...last` (under the lock, or
    /// confined).
    private func steady(_ first: Int, _ last: Int) -> Int? {
        let offset = offsetLocked(first)
        for index in (first + 1)...last where offsetLocked(index) != offset { return nil }
        return Int(offset)
    }

    /// Copies chunk `chunk` of this (shared) table to `destination`, filling it first if need be.
    private func copy(chunk: Int, to destination: UnsafeMutablePointer<Int32>) {
        lock.lock()
        defer { lock.unlock() }
        _ = offsetLocked(chunk * Self.chunkSteps)
        destination.update(from: table + chunk * Self.chunkSteps, count: Self.chunkSteps)
    }

    /// The offset at the table's entry `index` (boundary `index + firstBoundary`).
    private func offsetLocked(_ index: Int) -> Int32 {
        let chunk = index / Self.chunkSteps
        if !filled[chunk] {
            let start = chunk * Self.chunkSteps
            if let source {
                source.copy(chunk: chunk, to: table + start)
                filled[chunk] = true
                return table[index]
            }
            for entry in start..<(start + Self.chunkSteps) {
                let instant = Double(entry + Self.firstBoundary) * Self.step
                table[entry] = Int32(zone.secondsFromGMT(for: Date(timeIntervalSinceReferenceDate: instant)))
            }
            filled[chunk] = true
        }
        return table[index]
    }
}
