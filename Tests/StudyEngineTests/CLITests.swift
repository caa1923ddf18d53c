import Foundation
import StudyEngine
import TestSupport
import Testing

/// Runs the built `study` binary, as a user would.
enum StudyCommand {
    static let binary = BuiltProducts.path("study")

    static func run(_ arguments: String...) throws -> ProcessResult {
        try TestSupport.run(binary, arguments)
    }
}

@Suite("study, run as a built binary")
struct CLITests {
    @Test("replay sm2 prints state, interval and due after each answer; the 2 restarts without changing EF")
    func replaySM2() throws {
        let result = try StudyCommand.run("replay", "--scheduler", "sm2", "--answers", "4,4,4,4,2,4,4,4", "--start", "2026-03-01", "--time-zone", "America/Vancouver")
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty)
        #expect(
            result.output == """
                sm2, times in America/Vancouver
                #   answer   at                state              interval              due
                1   4        2026-03-01 09:00  n=1 EF=2.50 I=1d   1 d                   2026-03-02 09:00
                2   4        2026-03-02 09:00  n=2 EF=2.50 I=6d   6 d                   2026-03-08 09:00
                3   4        2026-03-08 09:00  n=3 EF=2.50 I=15d  15 d                  2026-03-23 09:00
                4   4        2026-03-23 09:00  n=4 EF=2.50 I=38d  38 d                  2026-04-30 09:00
                5   2        2026-04-30 09:00  n=0 EF=2.50 I=0d   0 d                   2026-04-30 09:00
                6   4        2026-04-30 09:00  n=1 EF=2.50 I=1d   1 d                   2026-05-01 09:00
                7   4        2026-05-01 09:00  n=2 EF=2.50 I=6d   6 d                   2026-05-07 09:00
                8   4        2026-05-07 09:00  n=3 EF=2.50 I=15d  15 d                  2026-05-22 09:00

                """)
    }

    @Test("replay fsrs6 --no-fuzz --json: each answer when due, learning steps included, gives ENGINE.md's days")
    func replayFSRSJSON() throws {
        let result = try StudyCommand.run(
            "replay", "--scheduler", "fsrs6", "--answers", "3,3,3,3,3,3,1,1,3,3,3,3,3", "--start", "2022-11-29T12:30:00Z", "--no-fuzz", "--json")
        #expect(result.status == 0)
        struct Output: Decodable {
            struct Step: Decodable {
                var intervalDays: Double
                var state: CardState
            }
            var scheduler: String
            var steps: [Step]
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let output = try decoder.decode(Output.self, from: result.stdout)
        #expect(output.scheduler == "fsrs6")
        #expect(output.steps.map { Int($0.intervalDays) } == [0, 2, 11, 46, 163, 498, 0, 0, 2, 4, 7, 12, 21])
        guard output.steps[0].state.kind == .fsrs6, let first = output.steps[0].state.value(as: FSRSState.self) else {
            Issue.record("expected an fsrs6 state, got \(output.steps[0].state)")
            return
        }
        #expect(first.stability == 2.3065 && first.step == 1)
    }

    @Test("replay leitner: one session a day, due on session days")
    func replayLeitner() throws {
        let result = try StudyCommand.run("replay", "--scheduler", "leitner", "--answers", "right,right,wrong,mc:first", "--start", "2026-01-05")
        #expect(result.status == 0)
        #expect(
            result.output == """
                leitner, times in UTC
                #   answer   at                state    interval              due
                1   right    2026-01-05 09:00  level 2  2 session days        session day 3 (2026-01-07 09:00)
                2   right    2026-01-07 09:00  level 3  3 session days        session day 6 (2026-01-10 09:00)
                3   wrong    2026-01-10 09:00  level 1  1 session day         session day 7 (2026-01-11 09:00)
                4   mc:first 2026-01-11 09:00  level 2  2 session days        session day 9 (2026-01-13 09:00)

                """)
    }

    @Test("replay staged with --gaps: answers at the given times, hours as fractions of a day")
    func replayStagedWithGaps() throws {
        let result = try StudyCommand.run("replay", "--scheduler", "staged", "--answers", "right,right,wrong:3", "--gaps", "4h,30m", "--start", "2026-01-05T09:00:00Z")
        #expect(result.status == 0)
        #expect(
            result.output == """
                staged, times in UTC
                #   answer   at                state                   interval              due
                1   right    2026-01-05 09:00  stage 1 (Apprentice 1)  0.1667 d (4 h)        2026-01-05 13:00
                2   right    2026-01-05 13:00  stage 2 (Apprentice 2)  0.3333 d (8 h)        2026-01-05 21:00
                3   wrong:3  2026-01-05 13:30  stage 1 (Apprentice 1)  0.1667 d (4 h)        2026-01-05 17:30

                """)
    }

    @Test("bad options exit 64 with one line: a grade out of range, an unknown scheduler, a gap count that does not fit")
    func usageErrors() throws {
        let grade = try StudyCommand.run("replay", "--scheduler", "sm2", "--answers", "4,7")
        #expect(grade.status == 64)
        #expect(grade.stderr == "study: --answers: answer 2 '7': sm2 grades are 0 to 5, got 7 (see study --help)\n")
        #expect(grade.output.isEmpty)
        let fsrs = try StudyCommand.run("replay", "--scheduler", "fsrs5", "--answers", "right")
        #expect(fsrs.status == 64)
        #expect(fsrs.stderr == "study: --answers: answer 1 'right': fsrs5 takes a grade 1 to 4 or a multiple-choice result, got right (see study --help)\n")
        let scheduler = try StudyCommand.run("replay", "--scheduler", "sm3", "--answers", "4")
        #expect(scheduler.status == 64)
        #expect(scheduler.stderr.hasPrefix("study: The value 'sm3' is invalid for '--scheduler <name>'"))
        #expect(scheduler.stderr.filter { $0 == "\n" }.count == 1)
        let gaps = try StudyCommand.run("replay", "--scheduler", "sm2", "--answers", "4,4,4", "--gaps", "1")
        #expect(gaps.status == 64)
        #expect(gaps.stderr == "study: --gaps: 3 answers need 2 gaps, got 1 (see study --help)\n")
    }

    @Test("answering a burned item exits 1 with one line naming the answer")
    func retiredItem() throws {
        let result = try StudyCommand.run("replay", "--scheduler", "leitner-wallclock", "--answers", "right,right,right,right,right,right,right,right", "--start", "2026-01-05")
        #expect(result.status == 1)
        #expect(result.stderr == "study: answers: itemRetired: answer 8: the item was retired (or burned) by answer 7 and is not due again\n")
    }

    @Test("--help is the manual and exits 0")
    func help() throws {
        let result = try StudyCommand.run("replay", "--help")
        #expect(result.status == 0)
        #expect(result.output.contains("--scheduler <name>"))
        #expect(result.output.contains("mc:first"))
    }
}
