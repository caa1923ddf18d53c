import Foundation
import StudyEngine
import StudyResearch
import TestSupport
import Testing

@Suite("study evaluate, run as a built binary on the real review log")
struct EvaluateCommandTests {
    @Test("evaluate prints ENGINE.md's figures for the whole log")
    func evaluateTable() throws {
        let result = try StudyTool.run("evaluate", "--log", Research.reviewLog)
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty)
        let lines = result.output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.first == "review log \(Research.reviewLog): 12580 reviews of 1205 cards")
        #expect(lines.contains("constant            5329         0.5112    0.0000      0.5000  the mean recall of the predicted reviews"))
        #expect(lines.contains("fsrs6               5329         0.4587    0.0500      0.7139  FSRS-6, default parameters"))
        #expect(lines.contains("sm2-lapse-lowers-ef 5329         0.5473    0.1274      0.6115  SM-2 with EF lowered by a lapse (srs-benchmark's reading)"))
        #expect(lines.contains { $0.hasPrefix("fsrs6-trained       728 ") })
        #expect(lines.contains { $0.hasPrefix("hlr-trained         728 ") })
    }

    @Test("evaluate --json: trained FSRS-6 beats the defaults on the last 10%")
    func evaluateJSON() throws {
        let result = try StudyTool.run("evaluate", "--log", Research.reviewLog, "--json")
        #expect(result.status == 0)
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let report = try decoder.decode(EvaluationReport.self, from: result.stdout)
        #expect(report.reviews == 12_580)
        let defaults = try #require(report.lastTenth.first { $0.model == "fsrs6" })
        let trained = try #require(report.lastTenth.first { $0.model == "fsrs6-trained" })
        #expect(trained.metrics.logLoss < defaults.metrics.logLoss)
    }

    @Test("evaluate on a broken log exits 1 with one line naming file, row and field")
    func evaluateBadLog() throws {
        let scratch = try Scratch()
        try scratch.write("log.csv", "card_id,review_rating,review_time\n1,3,2024-01-02T00:00:00Z\n1,9,2024-01-03T00:00:00Z\n")
        let result = try StudyTool.run("evaluate", "--log", scratch.url("log.csv"))
        #expect(result.status == 1)
        #expect(result.stderr == "study: \(scratch.url("log.csv")):3: review_rating: gradeOutOfRange: ratings are 1 (Again) to 4 (Easy), got 9\n")
        #expect(result.output.isEmpty)
        let missing = try StudyTool.run("evaluate", "--log", scratch.url("none.csv"))
        #expect(missing.status == 1)
        #expect(missing.stderr.hasPrefix("study: \(scratch.url("none.csv")): unreadableFile: "))
    }
}
