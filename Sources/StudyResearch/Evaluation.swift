import Foundation
import StudyEngine

/// How well predicted recall probabilities match what happened.
public struct RecallMetrics: Sendable, Hashable, Codable {
    /// The number of predictions.
    public var count: Int
    /// Mean binary cross-entropy (natural log); lower is better.
    public var logLoss: Double
    /// Root mean square of (mean prediction − observed rate) over 20 equal-width probability
    /// bins, weighted by the predictions in each bin; lower is better.
    public var rmseBins: Double
    /// Area under the ROC curve (ties count half); 0.5 is chance.
    public var auc: Double

    /// Computes the three figures for `predictions` (probability, recalled) pairs.
    public init(predictions: [(probability: Double, recalled: Bool)]) {
        count = predictions.count
        guard !predictions.isEmpty else {
            logLoss = .nan
            rmseBins = .nan
            auc = .nan
            return
        }
        var loss = 0.0
        var bins = [(n: Double, p: Double, y: Double)](repeating: (0, 0, 0), count: 20)
        for (p, recalled) in predictions {
            let clipped = min(1 - 1e-15, max(1e-15, p))
            loss -= recalled ? log(clipped) : log(1 - clipped)
            let bin = min(19, max(0, Int(p * 20)))
            bins[bin].n += 1
            bins[bin].p += p
            bins[bin].y += recalled ? 1 : 0
        }
        logLoss = loss / Double(predictions.count)
        var squares = 0.0
        for bin in bins where bin.n > 0 {
            let gap = (bin.p - bin.y) / bin.n
            squares += bin.n * gap * gap
        }
        rmseBins = (squares / Double(predictions.count)).squareRoot()
        // AUC by ranks (Mann–Whitney), tied probabilities sharing their mean rank.
        let sorted = predictions.sorted { $0.probability < $1.probability }
        var rankSum = 0.0
        var positives = 0.0
        var start = 0
        while start < sorted.count {
            var end = start
            while end + 1 < sorted.count && sorted[end + 1].probability == sorted[start].probability { end += 1 }
            let rank = Double(start + end) / 2 + 1
            for k in start...end where sorted[k].recalled {
                rankSum += rank
                positives += 1
            }
            start = end + 1
        }
        let negatives = Double(sorted.count) - positives
        auc = positives > 0 && negatives > 0 ? (rankSum - positives * (positives + 1) / 2) / (positives * negatives) : .nan
    }
}

/// One line of an evaluation: a model, the reviews it was scored on, and its figures.
public struct EvaluationRow: Sendable, Hashable, Codable {
    /// A short name (`fsrs6`, `fsrs6-trained`, `sm2`, …).
    public var model: String
    /// What the model is, in words.
    public var detail: String
    /// The figures.
    public var metrics: RecallMetrics
}

/// The result of ``Evaluator/evaluate(_:)``.
public struct EvaluationReport: Sendable, Hashable, Codable {
    /// Reviews in the log.
    public var reviews: Int
    /// Cards in the log.
    public var cards: Int
    /// Models scored on every review at least a day after the card's previous review.
    public var wholeLog: [EvaluationRow]
    /// The number of reviews trained on (the first 90% by time).
    public var trainingReviews: Int
    /// The time of the first review of the last 10%.
    public var splitTime: Date?
    /// Models scored on the last 10% of the log by time, trained models fitted on the first 90%.
    public var lastTenth: [EvaluationRow]
    /// The FSRS-6 parameters trained on the first 90%.
    public var trainedFSRS: [Double]
    /// The HLR weights trained on the first 90%.
    public var trainedHLR: HLRWeights
}

/// Replays a review log through every scheduler that predicts recall (ENGINE.md's protocol).
///
/// Per card, in time order: every review at least one whole day (24 h) after the card's
/// previous review is predicted from the model's state, the outcome being rating > 1; then the
/// review updates the state. FSRS counts elapsed days as py-fsrs does (whole 24-hour periods);
/// the half-life models use the exact elapsed time. SM-2 gives no probability: R =
/// 0.9^(t/I) for t whole days since the previous review and I its current interval (I(1) = 1
/// after a lapse), ratings 1–4 mapped to q = 2–5, its state updated only by reviews at least a
/// day after the previous one. Trained models are fitted on the first 90% of the reviews by time
/// and scored, with the others, on the reviews of the last 10%.
public enum Evaluator {
    /// A model's walk over one card: the state after its first review, a prediction, an update.
    struct Model<State> {
        var start: (ReviewLog.Entry) -> State
        var predict: (State, ReviewLog.Entry, ReviewLog.Entry) -> Double
        var update: (inout State, ReviewLog.Entry, ReviewLog.Entry) -> Void
    }

    static func wholeDays(_ from: ReviewLog.Entry, _ to: ReviewLog.Entry) -> Int {
        Int((to.time.timeIntervalSince(from.time) / 86_400).rounded(.down))
    }

    /// The predictions of `model` for the reviews at positions ≥ `scoredFrom`.
    static func predictions<State>(_ log: ReviewLog, cards: [[Int]], scoredFrom: Int, _ model: Model<State>) -> [(probability: Double, recalled: Bool)] {
        var result: [(probability: Double, recalled: Bool)] = []
        for card in cards {
            guard let first = card.first else { continue }
            var state = model.start(log.entries[first])
            for (previousIndex, index) in zip(card, card.dropFirst()) {
                let previous = log.entries[previousIndex]
                let entry = log.entries[index]
                if index >= scoredFrom && wholeDays(previous, entry) >= 1 {
                    result.append((model.predict(state, entry, previous), entry.recalled))
                }
                model.update(&state, entry, previous)
            }
        }
        return result
    }

    static func fsrsModel(_ scheduler: FSRSScheduler) -> Model<FSRSState> {
        func apply(_ state: FSRSState, _ entry: ReviewLog.Entry) -> FSRSState {
            // Log entries are in time order and ratings 1–4, so the review cannot fail; a state
            // it rejected would be left as it was.
            (try? scheduler.review(state, answer: .grade(entry.rating.rawValue), at: StudyMoment(entry.time)).state) ?? state
        }
        return Model(
            start: { apply(scheduler.newState(at: StudyMoment($0.time)), $0) },
            predict: { state, entry, _ in scheduler.retrievability(state, at: entry.time) },
            update: { state, entry, _ in state = apply(state, entry) })
    }

    static func sm2Model(_ policy: SM2Scheduler.LapsePolicy) -> Model<(n: Int, ef: Int, interval: Int)> {
        func step(_ s: (n: Int, ef: Int, interval: Int), _ entry: ReviewLog.Entry) -> (n: Int, ef: Int, interval: Int) {
            let next = SM2Scheduler.step(repetitions: s.n, easinessHundredths: s.ef, intervalDays: s.interval, grade: entry.rating.rawValue + 1, lapsePolicy: policy)
            return (next.repetitions, next.easinessHundredths, next.intervalDays)
        }
        return Model(
            start: { step((0, 250, 0), $0) },
            predict: { state, entry, previous in
                pow(0.9, Double(wholeDays(previous, entry)) / Double(max(1, state.interval)))
            },
            update: { state, entry, previous in
                if wholeDays(previous, entry) >= 1 { state = step(state, entry) }
            })
    }

    static func halfLifeModel() -> Model<Int> {
        Model(
            start: { HalfLifeScheduler.nextHalfLife(0, right: $0.recalled, maximum: 36_500) },
            predict: { h, entry, previous in
                HalfLifeCurve.recall(elapsedDays: entry.time.timeIntervalSince(previous.time) / 86_400, halfLifeDays: Double(h))
            },
            update: { h, entry, _ in h = HalfLifeScheduler.nextHalfLife(h, right: entry.recalled, maximum: 36_500) })
    }

    static func hlrModel(_ weights: HLRWeights) -> Model<(right: Int, wrong: Int)> {
        Model(
            start: { $0.recalled ? (1, 0) : (0, 1) },
            predict: { counts, entry, previous in
                let h = HLRModel.halfLife(right: counts.right, wrong: counts.wrong, weights: weights)
                return HalfLifeCurve.recall(elapsedDays: entry.time.timeIntervalSince(previous.time) / 86_400, halfLifeDays: h)
            },
            update: { counts, entry, _ in
                if entry.recalled { counts.right += 1 } else { counts.wrong += 1 }
            })
    }

    /// The FSRS training cards of the reviews before position `end`.
    public static func fsrsTrainingCards(_ log: ReviewLog, before end: Int) -> [FSRSTrainingCard] {
        log.cards.compactMap { card in
            let kept = card.filter { $0 < end }
            guard !kept.isEmpty else { return nil }
            var reviews: [FSRSTrainingCard.Review] = []
            for (offset, index) in kept.enumerated() {
                let days = offset == 0 ? nil : wholeDays(log.entries[kept[offset - 1]], log.entries[index])
                reviews.append(FSRSTrainingCard.Review(rating: log.entries[index].rating, elapsedDays: days, position: index))
            }
            return FSRSTrainingCard(reviews: reviews)
        }
    }

    /// The HLR examples of the reviews before position `end`: each review at least a day after
    /// the card's previous one, with the card's counts before it.
    public static func hlrExamples(_ log: ReviewLog, before end: Int) -> [HLRExample] {
        var examples: [(position: Int, example: HLRExample)] = []
        for card in log.cards {
            var right = 0
            var wrong = 0
            for (offset, index) in card.enumerated() where index < end {
                let entry = log.entries[index]
                if offset > 0 {
                    let previous = log.entries[card[offset - 1]]
                    if wholeDays(previous, entry) >= 1 {
                        let elapsed = entry.time.timeIntervalSince(previous.time) / 86_400
                        examples.append((index, HLRExample(right: right, wrong: wrong, elapsedDays: elapsed, recall: entry.recalled ? 1 : 0)))
                    }
                }
                if entry.recalled { right += 1 } else { wrong += 1 }
            }
        }
        // Time order, as the paper's online training reads its data.
        return examples.sorted { $0.position < $1.position }.map(\.example)
    }

    /// Scores every model on `log`.
    public static func evaluate(_ log: ReviewLog) -> EvaluationReport {
        let cards = log.cards
        let fsrs6 = FSRSScheduler.fsrs6(calendar: .elapsed24Hours, fuzz: false)
        let fsrs5 = FSRSScheduler.fsrs5(calendar: .elapsed24Hours, fuzz: false)

        func row(_ name: String, _ detail: String, _ predictions: [(probability: Double, recalled: Bool)]) -> EvaluationRow {
            EvaluationRow(model: name, detail: detail, metrics: RecallMetrics(predictions: predictions))
        }
        func constant(_ predictions: [(probability: Double, recalled: Bool)], mean: Double) -> [(probability: Double, recalled: Bool)] {
            predictions.map { (mean, $0.recalled) }
        }
        func meanRecall(_ predictions: [(probability: Double, recalled: Bool)]) -> Double {
            predictions.isEmpty ? 0.5 : Double(predictions.filter(\.recalled).count) / Double(predictions.count)
        }

        // The whole log.
        let fsrs6All = predictions(log, cards: cards, scoredFrom: 0, fsrsModel(fsrs6))
        let whole = [
            row("constant", "the mean recall of the predicted reviews", constant(fsrs6All, mean: meanRecall(fsrs6All))),
            row("fsrs6", "FSRS-6, default parameters", fsrs6All),
            row("fsrs5", "FSRS-5, default parameters", predictions(log, cards: cards, scoredFrom: 0, fsrsModel(fsrs5))),
            row("sm2", "SM-2 as Woźniak wrote it: a lapse keeps EF", predictions(log, cards: cards, scoredFrom: 0, sm2Model(.keepEasiness))),
            row("sm2-lapse-lowers-ef", "SM-2 with EF lowered by a lapse (srs-benchmark's reading)", predictions(log, cards: cards, scoredFrom: 0, sm2Model(.lowerEasiness))),
            row("half-life", "the driving app's half-life model", predictions(log, cards: cards, scoredFrom: 0, halfLifeModel())),
        ]

        // Train on the first 90% by time, score on the last 10%.
        let split = Int((Double(log.entries.count) * 0.9).rounded(.down))
        let trainedFSRS = FSRSTrainer().train(fsrsTrainingCards(log, before: split))
        let trainedScheduler = FSRSScheduler(
            trusted: FSRSScheduler.Configuration(parameters: trainedFSRS.parameters, fuzz: false), calendar: .elapsed24Hours, version: .fsrs6)
        let trainedHLR = HLRTrainer().train(hlrExamples(log, before: split))
        let fsrs6Tail = predictions(log, cards: cards, scoredFrom: split, fsrsModel(fsrs6))
        let headMean: Double = {
            var recalled = 0.0
            var total = 0.0
            for card in cards {
                for (previousIndex, index) in zip(card, card.dropFirst()) where index < split && wholeDays(log.entries[previousIndex], log.entries[index]) >= 1 {
                    total += 1
                    recalled += log.entries[index].recalled ? 1 : 0
                }
            }
            return total > 0 ? recalled / total : 0.5
        }()
        let tail = [
            row("constant", "the mean recall of the first 90%", constant(fsrs6Tail, mean: headMean)),
            row("fsrs6", "FSRS-6, default parameters", fsrs6Tail),
            row("fsrs6-trained", "FSRS-6, parameters trained on the first 90%", predictions(log, cards: cards, scoredFrom: split, fsrsModel(trainedScheduler))),
            row("hlr-trained", "HLR, weights trained on the first 90% (AdaGrad)", predictions(log, cards: cards, scoredFrom: split, hlrModel(trainedHLR))),
            row("sm2", "SM-2 as Woźniak wrote it: a lapse keeps EF", predictions(log, cards: cards, scoredFrom: split, sm2Model(.keepEasiness))),
            row("half-life", "the driving app's half-life model", predictions(log, cards: cards, scoredFrom: split, halfLifeModel())),
        ]
        return EvaluationReport(
            reviews: log.entries.count, cards: cards.count, wholeLog: whole, trainingReviews: split,
            splitTime: split < log.entries.count ? log.entries[split].time : nil, lastTenth: tail,
            trainedFSRS: trainedFSRS.parameters.values, trainedHLR: trainedHLR)
    }
}
