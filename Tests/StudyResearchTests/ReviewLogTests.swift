import Foundation
import StudyEngine
import StudyResearch
import Testing

@Suite("The review-log reader")
struct ReviewLogTests {
    func read(_ text: String) throws(ReviewLogError) -> ReviewLog {
        try ReviewLog(csv: Data(text.utf8))
    }

    @Test("the fixture has 12,580 reviews of 1,205 cards in time order")
    func fixture() throws {
        let log = try Research.log.get()
        #expect(log.entries.count == 12_580)
        #expect(log.cards.count == 1_205)
        #expect(log.entries.first?.cardID == "1711684180217")
        #expect(log.entries.first?.time == Date(timeIntervalSince1970: 1_711_744_352.25))
        #expect(log.entries.first?.durationMilliseconds == 25_060)
    }

    @Test("times with offsets, Z, fractions and CRLF lines all read")
    func formats() throws {
        let log = try read("card_id,review_rating,review_time\r\nA,3,2024-03-29T20:32:32+02:00\r\nB,1,2024-03-29T18:32:33.5Z\r\n")
        #expect(log.entries.map(\.time) == [Date(timeIntervalSince1970: 1_711_737_152), Date(timeIntervalSince1970: 1_711_737_153.5)])
        #expect(log.entries.map(\.row) == [2, 3])
    }

    @Test("the review log is read by the package's one CSV reader: quoted fields, blank lines, an unclosed quote")
    func quotedFields() throws {
        let log = try read("card_id,review_rating,review_time\n\"card, one\",3,2024-03-29T18:32:32Z\n   \n\"B\",1,2024-03-29T18:32:33Z\n")
        #expect(log.entries.map(\.row) == [2, 4])
        #expect(throws: ReviewLogError(.malformedRow, "a quoted field opened on this line is never closed", at: .line(2))) {
            try read("card_id,review_rating,review_time\n\"A,3,2024-03-29T18:32:32Z\n")
        }
    }

    @Test("an unknown column is refused, naming it")
    func unknownColumn() {
        #expect(throws: ReviewLogError(.unknownColumn, "unknown column; a review log has card_id, review_rating, review_time, review_duration", at: .line(1, field: "ease"))) {
            try read("card_id,review_rating,review_time,ease\n1,3,2024-01-01T00:00:00Z,250\n")
        }
    }

    @Test("a missing required column is refused, naming it")
    func missingColumn() {
        #expect(throws: ReviewLogError(.missingColumn, "a review log needs the column review_time", at: .line(1, field: "review_time"))) {
            try read("card_id,review_rating\n1,3\n")
        }
    }

    @Test("a row with the wrong number of fields is refused with its line")
    func fieldCount() {
        #expect(throws: ReviewLogError(.malformedRow, "expected 3 fields, found 2", at: .line(3))) {
            try read("card_id,review_rating,review_time\n1,3,2024-01-01T00:00:00Z\n2,3\n")
        }
    }

    @Test("a rating that is not a number, or not 1–4, is refused with line and field")
    func badRatings() {
        #expect(throws: ReviewLogError(.malformedRow, "'good' is not a whole number", at: .line(2, field: "review_rating"))) {
            try read("card_id,review_rating,review_time\n1,good,2024-01-01T00:00:00Z\n")
        }
        #expect(throws: ReviewLogError(.gradeOutOfRange, "ratings are 1 (Again) to 4 (Easy), got 5", at: .line(2, field: "review_rating"))) {
            try read("card_id,review_rating,review_time\n1,5,2024-01-01T00:00:00Z\n")
        }
    }

    @Test("a time without a zone, or not a time at all, is refused with line and field")
    func badTimes() {
        #expect(throws: ReviewLogError(.malformedRow, "'2024-01-01T00:00:00' needs a time zone offset (Z or ±HH:MM)", at: .line(2, field: "review_time"))) {
            try read("card_id,review_rating,review_time\n1,3,2024-01-01T00:00:00\n")
        }
        #expect(throws: ReviewLogError(.malformedRow, "'2024-02-30T00:00:00Z' is not a real date and time", at: .line(2, field: "review_time"))) {
            try read("card_id,review_rating,review_time\n1,3,2024-02-30T00:00:00Z\n")
        }
        #expect(throws: ReviewLogError(.malformedRow, "'yesterday' is not an ISO 8601 time (YYYY-MM-DDTHH:MM:SS±HH:MM)", at: .line(2, field: "review_time"))) {
            try read("card_id,review_rating,review_time\n1,3,yesterday\n")
        }
    }

    @Test("a review earlier than the row before it is refused, naming both lines")
    func outOfOrder() {
        #expect(throws: ReviewLogError(.outOfTimeOrder, "2024-01-01T00:00:00Z is before the previous review's 2024-01-02T00:00:00Z (line 2)", at: .line(3, field: "review_time"))) {
            try read("card_id,review_rating,review_time\n1,3,2024-01-02T00:00:00Z\n2,3,2024-01-01T00:00:00Z\n")
        }
    }

    @Test("an empty log, or a header alone, is refused")
    func empty() {
        #expect(throws: ReviewLogError(.notEnoughReviews, "the review log is empty: it needs a header and at least one review", at: .line(1))) {
            try read("")
        }
        #expect(throws: ReviewLogError(.notEnoughReviews, "the review log has a header but no reviews", at: .line(1))) {
            try read("card_id,review_rating,review_time\n")
        }
    }

    @Test("a file that cannot be read names the file")
    func unreadable() {
        #expect(throws: ReviewLogError.self) { try ReviewLog(contentsOfFile: "/nonexistent/log.csv") }
        do {
            _ = try ReviewLog(contentsOfFile: "/nonexistent/log.csv")
        } catch {
            #expect(error.code == .unreadableFile)
            #expect(error.location.file == "/nonexistent/log.csv")
        }
    }
}
