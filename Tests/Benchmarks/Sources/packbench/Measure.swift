import Foundation
import StudyEngine

/// Monotonic nanoseconds.
@inline(__always)
func now() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

/// Median, 10th and 90th percentile of samples (nanoseconds per operation).
struct Stats: Sendable {
    var median: Double
    var p10: Double
    var p90: Double

    init(_ samples: [Double]) {
        let sorted = samples.sorted()
        func at(_ q: Double) -> Double { sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * q + 0.5))] }
        median = at(0.5)
        p10 = at(0.1)
        p90 = at(0.9)
    }
}

/// Resident memory of this process, from /proc/self/status (VmRSS).
func residentBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        let digits = line.filter(\.isNumber)
        return (Int(digits) ?? 0) * 1024
    }
    return 0
}

/// Times `body` `runs` times; one sample per run.
func timeRuns(_ runs: Int, _ body: () throws -> Void) rethrows -> Stats {
    var samples: [Double] = []
    for _ in 0..<runs {
        let start = now()
        try body()
        samples.append(Double(now() - start))
    }
    return Stats(samples)
}

/// Times each body once per round, taking turns, so that a slow spell of a shared machine falls
/// on every contender alike instead of on whichever ran then; one `Stats` per body.
func timeInterleaved(_ rounds: Int, _ bodies: [() throws -> Void]) throws -> [Stats] {
    var samples = [[Double]](repeating: [], count: bodies.count)
    for round in 0..<rounds {
        // The order reverses every round, as in timeBatchesInterleaved.
        for turn in bodies.indices {
            let index = round % 2 == 0 ? turn : bodies.count - 1 - turn
            let body = bodies[index]
            let start = now()
            try body()
            samples[index].append(Double(now() - start))
        }
    }
    return samples.map(Stats.init)
}

/// Runs `operation` over `count` items in batches of about 2 ms, stopping early when `budget`
/// seconds are spent; one sample (ns per operation) per batch.
func timeBatches(count: Int, budget: Double, _ operation: (Int) -> Int) -> (Stats, Int, Int) {
    withoutActuallyEscaping(operation) { timeBatchesInterleaved(count: count, budget: budget, [$0])[0] }
}

/// ``timeBatches(count:budget:_:)`` for several operations taking turns, so that a slow spell of
/// a shared machine falls on all of them alike; each has its own `budget`. A turn is up to
/// ``batchesPerTurn`` batches, the first of which only warms the caches back up after the
/// others' turns (the reads are measured warm) and is not a sample.
/// Per operation: the samples, the items done, and the sum of the results.
let batchesPerTurn = 8

func timeBatchesInterleaved(count: Int, budget: Double, _ operations: [(Int) -> Int]) -> [(Stats, Int, Int)] {
    var samples = [[Double]](repeating: [], count: operations.count)
    var sinks = [Int](repeating: 0, count: operations.count)
    var done = [Int](repeating: 1, count: operations.count)
    var spent = [Double](repeating: 0, count: operations.count)
    // Size batches from a first operation, so slow systems still give many samples in the budget.
    let batches = operations.indices.map { index in
        let start = now()
        sinks[index] &+= operations[index](0)
        let first = max(1, Double(now() - start))
        spent[index] = first
        return max(1, min(1000, Int(2_000_000 / first)))
    }
    var running = true
    var round = 0
    while running {
        running = false
        // The order reverses every round: one reading right after another finds the bytes the
        // other just touched in the CPU caches, so each neighbour goes after the other as often.
        for turn in operations.indices {
            let index = round % 2 == 0 ? turn : operations.count - 1 - turn
            let operation = operations[index]
            for batch in 0..<batchesPerTurn {
                guard done[index] < count, spent[index] < budget * 1e9 else { break }
                let size = min(batches[index], count - done[index])
                let start = now()
                for item in done[index]..<done[index] + size { sinks[index] &+= operation(item) }
                let elapsed = Double(now() - start)
                if batch > 0 || operations.count == 1 { samples[index].append(elapsed / Double(size)) }
                spent[index] += elapsed
                done[index] += size
                running = true
            }
        }
        round += 1
    }
    return operations.indices.map { (Stats(samples[$0]), done[$0], sinks[$0]) }
}

/// Deterministic pseudo-random numbers: the study engine's one SplitMix64 generator.
typealias SeededRandom = SplitMix64

extension SplitMix64 {
    /// A generator whose state starts at `state`.
    init(state: UInt64) { self.init(seed: state) }

    mutating func next(in range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.count))
    }

    mutating func bytes(_ count: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        out.withUnsafeMutableBytes { raw in
            var index = 0
            while index < count {
                var value = next()
                let chunk = min(8, count - index)
                withUnsafeBytes(of: &value) { raw.baseAddress!.advanced(by: index).copyMemory(from: $0.baseAddress!, byteCount: chunk) }
                index += chunk
            }
        }
        return out
    }
}

/// Runs a program and waits; returns its exit status.
@discardableResult
func runProcess(_ path: String, _ arguments: [String], in directory: String? = nil, quiet: Bool = true) throws -> Int32 {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
    if quiet {
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
    }
    try process.run()
    process.waitUntilExit()
    return process.terminationStatus
}
