/// Arithmetic on byte ranges of one file, for planning requests and resuming them. Every range
/// here lies inside a file whose size the signed catalog gave, so sums cannot overflow.
enum ByteRanges {
    /// Ranges further apart than this are fetched by separate requests.
    static let coalesceGap: UInt64 = 64 << 10

    /// `ranges` sorted, with overlapping and touching ones joined.
    static func merged(_ ranges: [Range<UInt64>]) -> [Range<UInt64>] {
        joined(ranges, across: 0)
    }

    /// `ranges` sorted and joined across gaps of up to ``coalesceGap``: one request each.
    static func coalesced(_ ranges: [Range<UInt64>]) -> [Range<UInt64>] {
        joined(ranges, across: coalesceGap)
    }

    private static func joined(_ ranges: [Range<UInt64>], across gap: UInt64) -> [Range<UInt64>] {
        var out: [Range<UInt64>] = []
        for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) where !range.isEmpty {
            if let last = out.last, range.lowerBound <= last.upperBound + gap {
                out[out.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
            } else {
                out.append(range)
            }
        }
        return out
    }

    /// The range of sorted, disjoint `ranges` that holds `offset`, if any.
    static func covering(_ ranges: [Range<UInt64>], _ offset: UInt64) -> Range<UInt64>? {
        var low = 0
        var high = ranges.count
        while low < high {
            let middle = (low + high) / 2
            if ranges[middle].upperBound <= offset { low = middle + 1 } else { high = middle }
        }
        return low < ranges.count && ranges[low].contains(offset) ? ranges[low] : nil
    }

    /// `range` cut into pieces of at most `most` bytes.
    static func split(_ range: Range<UInt64>, most: UInt64) -> [Range<UInt64>] {
        var pieces: [Range<UInt64>] = []
        var start = range.lowerBound
        while start < range.upperBound {
            let end = range.upperBound - start > most ? start + most : range.upperBound
            pieces.append(start..<end)
            start = end
        }
        return pieces
    }

    /// `ranges` without what sorted, disjoint `done` covers.
    static func subtracting(_ done: [Range<UInt64>], from ranges: [Range<UInt64>]) -> [Range<UInt64>] {
        var out: [Range<UInt64>] = []
        for range in ranges {
            var start = range.lowerBound
            for piece in done where piece.upperBound > start && piece.lowerBound < range.upperBound {
                if piece.lowerBound > start { out.append(start..<piece.lowerBound) }
                start = max(start, piece.upperBound)
            }
            if start < range.upperBound { out.append(start..<range.upperBound) }
        }
        return out
    }
}
