import Foundation

/// A number FSRS's formulas can run on: `Double` for scheduling, ``FSRSDual`` for training
/// (the value with its gradient over the 21 parameters), so both share one copy of the formulas.
package protocol FSRSScalar {
    var value: Double { get }
    init(constant: Double)
    static func + (a: Self, b: Self) -> Self
    static func - (a: Self, b: Self) -> Self
    static func * (a: Self, b: Self) -> Self
    static func / (a: Self, b: Self) -> Self
    static func exp(_ x: Self) -> Self
    /// base^exponent for base > 0.
    static func power(_ base: Self, _ exponent: Self) -> Self
    /// The value with its gradient dropped (what clamping at a bound does).
    static func constant(_ x: Self) -> Self
}

extension FSRSScalar {
    package static func + (a: Self, b: Double) -> Self { a + Self(constant: b) }
    package static func - (a: Self, b: Double) -> Self { a - Self(constant: b) }
    package static func * (a: Self, b: Double) -> Self { a * Self(constant: b) }
    package static func - (a: Double, b: Self) -> Self { Self(constant: a) - b }
    package static func * (a: Double, b: Self) -> Self { Self(constant: a) * b }

    /// Clamped to [low, high]; at a bound the gradient is zero, as `torch.clamp` gives.
    package func clamped(_ low: Double, _ high: Double) -> Self {
        if value < low { return Self(constant: low) }
        if value > high { return Self(constant: high) }
        return self
    }

    /// At least `low` (gradient zero below it).
    package func atLeast(_ low: Double) -> Self { value < low ? Self(constant: low) : self }
}

extension Double: FSRSScalar {
    package var value: Double { self }
    package init(constant: Double) { self = constant }
    package static func exp(_ x: Double) -> Double { Foundation.exp(x) }
    package static func power(_ base: Double, _ exponent: Double) -> Double { pow(base, exponent) }
    package static func constant(_ x: Double) -> Double { x }
}

/// FSRS-6's formulas (fsrs4anki wiki, "The Algorithm"), in the form py-fsrs 6.3.2 computes them.
package struct FSRSMath<Scalar: FSRSScalar> {
    package let w: [Scalar]
    package let decay: Scalar
    package let factor: Scalar
    /// Terms that depend on the parameters alone, computed once: e^w8, D0(Easy) unclamped,
    /// e^(w17·w18).
    package let expW8: Scalar
    package let easyDifficulty: Scalar
    package let expW17W18: Scalar

    package init(_ w: [Scalar]) {
        self.w = w
        decay = Scalar(constant: 0) - w[20]
        factor = Scalar.power(Scalar(constant: 0.9), Scalar(constant: 1) / decay) - 1
        expW8 = Scalar.exp(w[8])
        easyDifficulty = w[4] - Scalar.exp(w[5] * 3.0) + 1
        expW17W18 = Scalar.exp(w[17] * w[18])
    }

    /// R(t, S) = (1 + FACTOR·t/S)^decay for t whole days (negative t counts as 0).
    package func retrievability(elapsedDays: Int, stability: Scalar) -> Scalar {
        let t = Double(max(0, elapsedDays))
        return Scalar.power(factor * t / stability + 1, decay)
    }

    /// S0(G) = w[G−1].
    package func initialStability(_ rating: FSRSRating) -> Scalar {
        w[rating.rawValue - 1].atLeast(FSRSParameters.minimumStability)
    }

    /// D0(G) = w4 − e^(w5·(G−1)) + 1, clamped to [1, 10] when asked.
    package func initialDifficulty(_ rating: FSRSRating, clamp: Bool) -> Scalar {
        let d = w[4] - Scalar.exp(w[5] * Double(rating.rawValue - 1)) + 1
        return clamp ? d.clamped(1, 10) : d
    }

    /// D' = w7·D0(4) + (1−w7)·(D + ΔD·(10−D)/9), ΔD = −w6·(G−3), clamped to [1, 10].
    package func nextDifficulty(_ d: Scalar, _ rating: FSRSRating) -> Scalar {
        let easy = easyDifficulty
        let delta = Scalar(constant: 0) - w[6] * Double(rating.rawValue - 3)
        let damped = d + (10 - d) * delta / Scalar(constant: 9)
        return (w[7] * easy + (1 - w[7]) * damped).clamped(1, 10)
    }

    /// Same-day review: S' = S·e^(w17·(G−3+w18))·S^(−w19), the factor at least 1 for G ≥ 3.
    package func shortTermStability(_ s: Scalar, _ rating: FSRSRating) -> Scalar {
        var increase = Scalar.exp(w[17] * (w[18] + Double(rating.rawValue - 3))) * Scalar.power(s, Scalar(constant: 0) - w[19])
        if rating != .again { increase = increase.atLeast(1) }
        return (s * increase).atLeast(FSRSParameters.minimumStability)
    }

    /// The stability after a review at least a day after the last one.
    package func nextStability(difficulty d: Scalar, stability s: Scalar, retrievability r: Scalar, rating: FSRSRating) -> Scalar {
        let next: Scalar
        if rating == .again {
            // min(w11·D^(−w12)·((S+1)^w13 − 1)·e^(w14·(1−R)), S / e^(w17·w18))
            let longTerm = w[11] * Scalar.power(d, Scalar(constant: 0) - w[12]) * (Scalar.power(s + 1, w[13]) - 1)
                * Scalar.exp((1 - r) * w[14])
            let shortTerm = s / expW17W18
            next = longTerm.value <= shortTerm.value ? longTerm : shortTerm
        } else {
            // S·(1 + e^w8·(11−D)·S^(−w9)·(e^(w10·(1−R)) − 1)·(w15 if Hard)·(w16 if Easy))
            var growth = expW8 * (11 - d) * Scalar.power(s, Scalar(constant: 0) - w[9])
                * (Scalar.exp((1 - r) * w[10]) - 1)
            if rating == .hard { growth = growth * w[15] }
            if rating == .easy { growth = growth * w[16] }
            next = s * (growth + 1)
        }
        return next.atLeast(FSRSParameters.minimumStability)
    }

    /// The memory state after a review: the first review sets S0 and D0, a review less than a
    /// whole day after the last uses the same-day formula, any other the recall/forget formula.
    /// `elapsedDays` is `nil` for the first review.
    package func update(stability: Scalar?, difficulty: Scalar?, elapsedDays: Int?, rating: FSRSRating) -> (Scalar, Scalar) {
        guard let s = stability, let d = difficulty else {
            return (initialStability(rating), initialDifficulty(rating, clamp: true))
        }
        let days = elapsedDays ?? 0
        if days < 1 {
            return (shortTermStability(s, rating), nextDifficulty(d, rating))
        }
        let r = retrievability(elapsedDays: days, stability: s)
        return (nextStability(difficulty: d, stability: s, retrievability: r, rating: rating), nextDifficulty(d, rating))
    }
}

extension FSRSMath: Sendable where Scalar: Sendable {}

extension FSRSMath where Scalar == Double {
    /// r^(1/decay) − 1 for desired retention r, the constant part of the interval.
    package func retentionTerm(_ desiredRetention: Double) -> Double {
        pow(desiredRetention, 1 / decay) - 1
    }

    /// The unrounded interval S/FACTOR·(r^(1/decay) − 1), given ``retentionTerm(_:)``.
    package func rawInterval(stability: Double, retentionTerm: Double) -> Double {
        (stability / factor) * retentionTerm
    }
}
