/// A small seeded pseudo-random generator (Steele, Lea and Flood's SplitMix64).
///
/// Schedulers take their randomness (FSRS fuzz) as an injected generator, so a test or a replay
/// seeded with the same value gets the same intervals on every machine.
public struct SplitMix64: RandomNumberGenerator, Sendable, Hashable {
    /// The generator's whole state; it advances by a fixed odd constant per draw.
    public var state: UInt64

    /// A generator that starts from `seed`.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension RandomNumberGenerator {
    /// A uniform value in [0, 1) from the top 53 bits of one draw.
    mutating func unitInterval() -> Double {
        Double(next() >> 11) * 0x1p-53
    }
}
