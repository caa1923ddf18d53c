import ArgumentParser
import CommandLineSupport
import Foundation
import StudyEngine
import StudyResearch

/// `study evaluate`: log loss, RMSE and AUC of every scheduler that predicts recall.
struct Evaluate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Replay a review log and score every scheduler that predicts recall.",
        discussion: """
            Per card in time order, every review at least one whole day after the card's previous \
            review is predicted from the model's state (recalled = rating above 1), then the review \
            updates the state. Prints the number of predictions, log loss, RMSE over 20 probability \
            bins and AUC: first on the whole log for the models with fixed parameters, then on the \
            last 10% of the reviews by time, where FSRS-6 and HLR are trained on the first 90% only.
            """)

    @Option(help: ArgumentHelp("The review log: CSV with card_id, review_rating (1–4), review_time (ISO 8601 with offset) and optionally review_duration.", valueName: "file.csv"))
    var log: String

    @Flag(help: "Print the report as JSON instead of tables.")
    var json = false

    func validate() throws {
        guard !log.isEmpty else { throw ValidationError("--log needs a file") }
    }

    func run() throws {
        let reviewLog = try ReviewLog(contentsOfFile: log)
        let report = Evaluator.evaluate(reviewLog)
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            encoder.dateEncodingStrategy = .iso8601
            encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
        } else {
            print(Self.table(report, file: log), terminator: "")
        }
    }

    /// The report as text tables.
    static func table(_ report: EvaluationReport, file: String) -> String {
        var text = "review log \(file): \(report.reviews) reviews of \(report.cards) cards\n\n"
        text += "Whole log: every review at least a day after the card's previous review\n"
        text += rows(report.wholeLog)
        let split = report.splitTime.map { " (from \(Replay.formatUTC($0)))" } ?? ""
        text += "\nLast 10% by time\(split): \(report.reviews - report.trainingReviews) reviews; trained models fitted on the first \(report.trainingReviews)\n"
        text += rows(report.lastTenth)
        text += "\nFSRS-6 trained: " + report.trainedFSRS.map { String(format: "%.4f", $0) }.joined(separator: ", ") + "\n"
        text += "HLR trained: \(report.trainedHLR)\n"
        return text
    }

    static func rows(_ rows: [EvaluationRow]) -> String {
        func cell(_ value: Double) -> String { value.isNaN ? "—" : String(format: "%.4f", value) }
        var text = pad("model", 20) + pad("predictions", 13) + pad("log loss", 10) + pad("RMSE(bins)", 12) + pad("AUC", 8) + "\n"
        for row in rows {
            let m = row.metrics
            text += pad(row.model, 20) + pad(String(m.count), 13) + pad(cell(m.logLoss), 10) + pad(cell(m.rmseBins), 12) + pad(cell(m.auc), 8) + row.detail + "\n"
        }
        return text
    }

    static func pad(_ text: String, _ width: Int) -> String { leftAligned(text, width: width, gap: 1) }
}
