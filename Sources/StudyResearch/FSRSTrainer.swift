import Foundation
import StudyEngine

/// A gradient over FSRS's 21 parameters: three 8-lane vectors (24 lanes, 3 unused).
///
/// `SIMD32<Double>` would be the obvious type, but its generic operators run about 100 times
/// slower than `SIMD8`'s (measured with Swift 6.3.1 on x86-64).
struct FSRSGradient: Sendable, Equatable {
    var low: SIMD8<Double>
    var middle: SIMD8<Double>
    var high: SIMD8<Double>

    static let zero = FSRSGradient(low: .zero, middle: .zero, high: .zero)

    subscript(index: Int) -> Double {
        get { index < 8 ? low[index] : index < 16 ? middle[index - 8] : high[index - 16] }
        set {
            if index < 8 { low[index] = newValue } else if index < 16 { middle[index - 8] = newValue } else { high[index - 16] = newValue }
        }
    }

    @inline(__always) static func + (a: FSRSGradient, b: FSRSGradient) -> FSRSGradient {
        FSRSGradient(low: a.low + b.low, middle: a.middle + b.middle, high: a.high + b.high)
    }
    @inline(__always) static func - (a: FSRSGradient, b: FSRSGradient) -> FSRSGradient {
        FSRSGradient(low: a.low - b.low, middle: a.middle - b.middle, high: a.high - b.high)
    }
    @inline(__always) static func * (k: Double, a: FSRSGradient) -> FSRSGradient {
        FSRSGradient(low: k * a.low, middle: k * a.middle, high: k * a.high)
    }
    @inline(__always) static func += (a: inout FSRSGradient, b: FSRSGradient) { a = a + b }
}

/// A value with its gradient over FSRS's 21 parameters (forward-mode differentiation), so
/// training runs the very formulas scheduling runs.
struct FSRSDual: FSRSScalar, Sendable {
    var value: Double
    var gradient: FSRSGradient

    init(constant: Double) {
        value = constant
        gradient = .zero
    }

    init(value: Double, gradient: FSRSGradient) {
        self.value = value
        self.gradient = gradient
    }

    /// Parameter `index` as a variable: its gradient is the unit vector.
    init(parameter value: Double, index: Int) {
        self.value = value
        gradient = .zero
        gradient[index] = 1
    }

    static func + (a: FSRSDual, b: FSRSDual) -> FSRSDual { FSRSDual(value: a.value + b.value, gradient: a.gradient + b.gradient) }
    static func - (a: FSRSDual, b: FSRSDual) -> FSRSDual { FSRSDual(value: a.value - b.value, gradient: a.gradient - b.gradient) }
    static func * (a: FSRSDual, b: FSRSDual) -> FSRSDual {
        FSRSDual(value: a.value * b.value, gradient: b.value * a.gradient + a.value * b.gradient)
    }
    static func / (a: FSRSDual, b: FSRSDual) -> FSRSDual {
        let q = a.value / b.value
        return FSRSDual(value: q, gradient: (1 / b.value) * (a.gradient - q * b.gradient))
    }
    static func exp(_ x: FSRSDual) -> FSRSDual {
        let e = Foundation.exp(x.value)
        return FSRSDual(value: e, gradient: e * x.gradient)
    }
    static func power(_ base: FSRSDual, _ exponent: FSRSDual) -> FSRSDual {
        // d(a^b) = a^b·(b'·ln a + b·a'/a)
        let p = pow(base.value, exponent.value)
        let lnA = log(base.value)
        return FSRSDual(value: p, gradient: p * (lnA * exponent.gradient + (exponent.value / base.value) * base.gradient))
    }
    static func constant(_ x: FSRSDual) -> FSRSDual { FSRSDual(constant: x.value) }
}

/// A card's reviews as FSRS training reads them: time order, rating, and the whole days since
/// the card's previous review (`nil` for its first).
public struct FSRSTrainingCard: Sendable, Hashable {
    /// The card's reviews in time order.
    public var reviews: [Review]

    /// One review of the card.
    public struct Review: Sendable, Hashable {
        /// The rating.
        public var rating: FSRSRating
        /// Whole days since the previous review of the card; `nil` for the first.
        public var elapsedDays: Int?
        /// The review's place in the whole log's time order (for recency weighting).
        public var position: Int

        /// A review with its rating, the days since the previous one, and its place in time.
        public init(rating: FSRSRating, elapsedDays: Int?, position: Int = 0) {
            self.rating = rating
            self.elapsedDays = elapsedDays
            self.position = position
        }
    }

    /// A card with its reviews in time order.
    public init(reviews: [Review]) { self.reviews = reviews }
}

/// The result of training FSRS on a review log.
public struct FSRSTrainingResult: Sendable, Hashable {
    /// The trained parameters (the defaults when the log has too few reviews to train on).
    public var parameters: FSRSParameters
    /// Weighted mean log loss of the starting parameters on the training reviews.
    public var initialLoss: Double
    /// Weighted mean log loss of the trained parameters on the training reviews.
    public var finalLoss: Double
    /// The reviews the loss is computed on (those at least a day after the card's previous).
    public var scoredReviews: Int
    /// Whether there were too few scored reviews (fewer than one mini-batch) to train.
    public var usedDefaults: Bool
}

/// Fits FSRS's 21 parameters to a learner's reviews: py-fsrs 6.3.2's optimizer, with two pieces
/// of fsrs-rs (the optimizer inside Anki) that keep a small log from pulling the parameters away
/// from what many learners share.
///
/// From py-fsrs: the loss is the binary cross-entropy of R against recalled (rating > 1) on every
/// review at least one whole day after the card's previous review, over each card's first 64
/// reviews; Adam (learning rate 0.04) steps once per 512 scored reviews, the learning rate follows
/// a cosine down to 0 over 5 epochs, the parameters are clamped to py-fsrs's bounds after every
/// step, the cards are shuffled each epoch (seeded), and the epoch with the lowest loss on the
/// whole set is kept. From fsrs-rs: a review weighs 0.25 + 0.75·(rank/(n−1))³ by its rank in
/// time (later reviews say more about the learner now), a step takes the weighted mean loss of
/// its batch, and a prior γ·(batch/n)·Σ((w − w₀)/σ)² with fsrs-rs's σ keeps parameters near the
/// start (γ = 1). Gradients come from forward-mode differentiation through the same formulas the
/// scheduler uses; a card's memory state carries over a step without its gradient, as py-fsrs
/// detaches it.
public struct FSRSTrainer: Sendable {
    /// Passes over the cards (5).
    public var epochs = 5
    /// Scored reviews per Adam step (512).
    public var batchSize = 512
    /// Adam's learning rate at the start (0.04).
    public var learningRate = 0.04
    /// Reviews of each card that are used (its first 64).
    public var maximumReviewsPerCard = 64
    /// The seed of the card shuffle.
    public var seed: UInt64 = 42
    /// γ, the weight of the prior toward the starting parameters (1); 0 turns it off.
    public var priorWeight = 1.0
    /// Whether later reviews weigh more (fsrs-rs's recency weights); off gives py-fsrs's loss.
    public var recencyWeighting = true

    /// fsrs-rs's σ of each parameter across learners, the scale of the prior.
    public static let parameterSpread: [Double] = [
        6.43, 9.66, 17.58, 27.85, 0.57, 0.28, 0.6, 0.12, 0.39, 0.18, 0.33, 0.3, 0.09, 0.16, 0.57, 0.25,
        1.03, 0.31, 0.32, 0.14, 0.27,
    ]

    /// A trainer with the hyperparameters above.
    public init() {}

    /// The parameters fitted to `cards`, starting from `start`.
    public func train(_ cards: [FSRSTrainingCard], from start: FSRSParameters = .fsrs6Defaults) -> FSRSTrainingResult {
        let cards = cards.map { FSRSTrainingCard(reviews: Array($0.reviews.prefix(maximumReviewsPerCard))) }
        let weights = recencyWeighting ? Self.recencyWeights(cards) : cards.map { [Double](repeating: 1, count: $0.reviews.count) }
        let initial = Self.loss(cards, parameters: start.values, weights: weights)
        guard initial.count >= batchSize else {
            return FSRSTrainingResult(parameters: start, initialLoss: initial.mean, finalLoss: initial.mean, scoredReviews: initial.count, usedDefaults: true)
        }
        var params = start.values
        var adam = Adam(learningRate: learningRate, steps: ((initial.count + batchSize - 1) / batchSize) * epochs)
        var order = Array(cards.indices)
        var random = SplitMix64(seed: seed)
        var best = (loss: initial.mean, params: start.values)

        func step(_ lossGradient: FSRSGradient, weight: Double, items: Int) {
            var gradient = (1 / weight) * lossGradient
            let prior = priorWeight * Double(items) / Double(initial.count)
            for i in 0..<21 {
                gradient[i] += prior * 2 * (params[i] - start.values[i]) / (Self.parameterSpread[i] * Self.parameterSpread[i])
            }
            adam.step(&params, gradient)
            params = FSRSParameters.clamped(params)
        }

        for _ in 0..<epochs {
            order.shuffle(using: &random)
            var math = Self.dualMath(params)
            var batch = (gradient: FSRSGradient.zero, weight: 0.0, count: 0)
            for index in order {
                var stability: FSRSDual?
                var difficulty: FSRSDual?
                for (position, review) in cards[index].reviews.enumerated() {
                    if let s = stability, let days = review.elapsedDays, days > 0 {
                        let r = math.retrievability(elapsedDays: days, stability: s)
                        let p = min(1 - 1e-12, max(1e-12, r.value))
                        // d(BCE)/dR = −(y/R − (1−y)/(1−R))
                        let dLoss = review.rating == .again ? 1 / (1 - p) : -1 / p
                        let weight = weights[index][position]
                        batch.gradient += (weight * dLoss) * r.gradient
                        batch.weight += weight
                        batch.count += 1
                    }
                    let next = math.update(stability: stability, difficulty: difficulty, elapsedDays: review.elapsedDays, rating: review.rating)
                    stability = next.0
                    difficulty = next.1
                    if batch.count == batchSize {
                        step(batch.gradient, weight: batch.weight, items: batch.count)
                        batch = (FSRSGradient.zero, 0, 0)
                        math = Self.dualMath(params)
                        // py-fsrs detaches the card's state: it carries on without its gradient.
                        stability = stability.map { FSRSDual.constant($0) }
                        difficulty = difficulty.map { FSRSDual.constant($0) }
                    }
                }
            }
            if batch.count > 0 { step(batch.gradient, weight: batch.weight, items: batch.count) }
            let epochLoss = Self.loss(cards, parameters: params, weights: weights).mean
            if epochLoss < best.loss { best = (epochLoss, params) }
        }
        return FSRSTrainingResult(
            parameters: FSRSParameters(unchecked: best.params), initialLoss: initial.mean, finalLoss: best.loss,
            scoredReviews: initial.count, usedDefaults: false)
    }

    static func dualMath(_ values: [Double]) -> FSRSMath<FSRSDual> {
        FSRSMath(values.enumerated().map { FSRSDual(parameter: $0.element, index: $0.offset) })
    }

    /// fsrs-rs's recency weight of each review (1 for reviews that are not scored), by the time
    /// rank of the scored ones.
    static func recencyWeights(_ cards: [FSRSTrainingCard]) -> [[Double]] {
        var weights = cards.map { [Double](repeating: 1, count: $0.reviews.count) }
        var scored: [(position: Int, card: Int, review: Int)] = []
        for (c, card) in cards.enumerated() {
            for (r, review) in card.reviews.enumerated() where r > 0 && (review.elapsedDays ?? 0) > 0 {
                scored.append((review.position, c, r))
            }
        }
        scored.sort { ($0.position, $0.card, $0.review) < ($1.position, $1.card, $1.review) }
        let last = Double(max(1, scored.count - 1))
        for (rank, item) in scored.enumerated() {
            let x = Double(rank) / last
            weights[item.card][item.review] = 0.25 + 0.75 * x * x * x
        }
        return weights
    }

    /// The weighted mean log loss of `parameters` over the scored reviews of `cards`, and
    /// their number.
    static func loss(_ cards: [FSRSTrainingCard], parameters: [Double], weights: [[Double]]) -> (mean: Double, count: Int) {
        let math = FSRSMath<Double>(parameters)
        var total = 0.0
        var weightSum = 0.0
        var count = 0
        for (c, card) in cards.enumerated() {
            var stability: Double?
            var difficulty: Double?
            for (position, review) in card.reviews.enumerated() {
                if let s = stability, let days = review.elapsedDays, days > 0 {
                    let r = min(1 - 1e-12, max(1e-12, math.retrievability(elapsedDays: days, stability: s)))
                    let weight = weights[c][position]
                    total -= weight * (review.rating == .again ? log(1 - r) : log(r))
                    weightSum += weight
                    count += 1
                }
                let next = math.update(stability: stability, difficulty: difficulty, elapsedDays: review.elapsedDays, rating: review.rating)
                stability = next.0
                difficulty = next.1
            }
        }
        return (weightSum == 0 ? 0 : total / weightSum, count)
    }
}

/// Adam (Kingma and Ba) with PyTorch's defaults (β 0.9, 0.999; ε 1e-8) and a cosine learning
/// rate from the start down to 0 over `steps` steps.
struct Adam {
    let learningRate: Double
    let steps: Int
    var t = 0
    var m = [Double](repeating: 0, count: 21)
    var v = [Double](repeating: 0, count: 21)

    init(learningRate: Double, steps: Int) {
        self.learningRate = learningRate
        self.steps = max(1, steps)
    }

    mutating func step(_ params: inout [Double], _ gradient: FSRSGradient) {
        let beta1 = 0.9, beta2 = 0.999, epsilon = 1e-8
        t += 1
        let rate = learningRate * (1 + cos(Double.pi * Double(t - 1) / Double(steps))) / 2
        for i in 0..<params.count {
            m[i] = beta1 * m[i] + (1 - beta1) * gradient[i]
            v[i] = beta2 * v[i] + (1 - beta2) * gradient[i] * gradient[i]
            let mHat = m[i] / (1 - pow(beta1, Double(t)))
            let vHat = v[i] / (1 - pow(beta2, Double(t)))
            params[i] -= rate * mHat / (vHat.squareRoot() + epsilon)
        }
    }
}
