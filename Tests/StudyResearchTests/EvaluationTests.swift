import Foundation
import StudyEngine
import StudyResearch
import Testing

@Suite("Evaluation on the 12k review log (ENGINE.md's protocol)")
struct EvaluationTests {
    static let report: Result<EvaluationReport, ReviewLogError> = Research.log.map { Evaluator.evaluate($0) }

    func row(_ rows: [EvaluationRow], _ model: String) throws -> RecallMetrics {
        try #require(rows.first { $0.model == model }?.metrics, "no row \(model)")
    }

    @Test("FSRS-6 defaults: 5,329 predictions, log loss 0.4587, AUC 0.714")
    func fsrs6Defaults() throws {
        let metrics = try row(Self.report.get().wholeLog, "fsrs6")
        #expect(metrics.count == 5_329)
        #expect(abs(metrics.logLoss - 0.4587) < 0.0001)
        #expect(abs(metrics.auc - 0.714) < 0.001)
    }

    @Test("the constant mean: log loss 0.5112")
    func constantMean() throws {
        let metrics = try row(Self.report.get().wholeLog, "constant")
        #expect(metrics.count == 5_329)
        #expect(abs(metrics.logLoss - 0.5112) < 0.0001)
        #expect(metrics.auc == 0.5)
    }

    @Test("SM-2 with the lapse lowering EF reproduces ENGINE.md's 0.5466 (±0.002), AUC 0.611")
    func sm2Figure() throws {
        let metrics = try row(Self.report.get().wholeLog, "sm2-lapse-lowers-ef")
        #expect(metrics.count == 5_329)
        #expect(abs(metrics.logLoss - 0.5466) < 0.002)
        #expect(abs(metrics.auc - 0.611) < 0.002)
    }

    @Test("SM-2 as Woźniak wrote it (a lapse keeps EF) scores 0.5527, as an independent Python replay of the protocol gave")
    func sm2Literal() throws {
        let metrics = try row(Self.report.get().wholeLog, "sm2")
        #expect(metrics.count == 5_329)
        #expect(abs(metrics.logLoss - 0.55275) < 0.0001)
    }

    @Test("trained on the first 90%, FSRS-6 beats its defaults on the last 10%")
    func trainedBeatsDefaults() throws {
        let report = try Self.report.get()
        let defaults = try row(report.lastTenth, "fsrs6")
        let trained = try row(report.lastTenth, "fsrs6-trained")
        #expect(defaults.count == trained.count)
        #expect(defaults.count > 400)
        #expect(trained.logLoss < defaults.logLoss)
        #expect(report.trainedFSRS != FSRSParameters.fsrs6Defaults.values)
        for (index, value) in report.trainedFSRS.enumerated() {
            #expect(value >= FSRSParameters.lowerBounds[index] && value <= FSRSParameters.upperBounds[index], "w\(index)")
        }
    }

    @Test("trained HLR is scored on the same last 10% as FSRS")
    func hlrScored() throws {
        let report = try Self.report.get()
        #expect(try row(report.lastTenth, "hlr-trained").count == row(report.lastTenth, "fsrs6").count)
        #expect(report.trainedHLR != .zero)
    }

    @Test("only the first 90% trains: changing a rating in the last 10% leaves the trained parameters as they were")
    func noPeeking() throws {
        let log = try Research.log.get()
        var entries = log.entries
        let last = entries.count - 1
        entries[last].rating = entries[last].rating == .again ? .easy : .again
        let changed = Evaluator.evaluate(try ReviewLog(entries: entries))
        #expect(changed.trainedFSRS == (try Self.report.get()).trainedFSRS)
        #expect(changed.trainedHLR == (try Self.report.get()).trainedHLR)
    }

    @Test("metrics on a hand-made set: log loss, 20-bin RMSE, AUC with ties")
    func metricsByHand() {
        let predictions: [(probability: Double, recalled: Bool)] = [(0.9, true), (0.9, false), (0.2, false), (0.6, true)]
        let metrics = RecallMetrics(predictions: predictions)
        let expectedLoss = -(log(0.9) + log(0.1) + log(0.8) + log(0.6)) / 4
        #expect(abs(metrics.logLoss - expectedLoss) < 1e-12)
        // Bins: 0.9 ×2 (mean 0.9, observed 0.5), 0.2 (observed 0), 0.6 (observed 1).
        let expectedRMSE = ((2 * 0.4 * 0.4 + 0.2 * 0.2 + 0.4 * 0.4) / 4).squareRoot()
        #expect(abs(metrics.rmseBins - expectedRMSE) < 1e-12)
        // Positives 0.9 and 0.6 against negatives 0.9 and 0.2: pairs won 0.5 + 1 + 0 + 1 of 4.
        #expect(abs(metrics.auc - 0.625) < 1e-12)
    }
}
