import ArgumentParser
import Foundation
import StudyContent
import StudyEngine
import StudyProgress
import StudyStrings

/// `study session`: today's session of a deck or bank in the terminal.
struct SessionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "session",
        abstract: "Study today's questions or cards of a deck or bank in the mounted packs.",
        discussion: """
            The day's review round comes first (most overdue first; lowest predicted recall for FSRS), \
            then new items in the content's order up to the daily limit; a lesson's teaching text comes \
            before its first question. A question's choices are shown in the learner's own order, \
            shuffled per question from the progress database's learner seed and the bank and question \
            ids (not the text), so it is the same in every session and language; --no-shuffle shows \
            the bank's order. A question takes the number its choice is shown with; a wrong try shows \
            the explanation and lets you try once more. A card shows its front, then its back, and takes \
            a grade: 1 again, 2 hard, 3 good, 4 easy. Type u to take back the last answer, q to stop. \
            When standard input is not a terminal, answers are read one per line. The session speaks \
            the learner's language (--locale: en, ru, zh-Hans or pa, from the tool's String Catalog); \
            the --json summary does not.

            Grades for the schedulers: a question is right on the first try, right after a wrong try, \
            or wrong (see Answer.multipleChoice: FSRS Good/Hard/Again, SM-2 5/3/2, right/right/wrong \
            for Leitner and the half-life models); a card's grade is FSRS's 1–4, SM-2's q = 1, 3, 4, 5, \
            and right for 2–4 elsewhere.
            """)

    @OptionGroup var learner: LearnerOptions

    @Option(help: ArgumentHelp("The scheduler for new items: \(SchedulerKind.allCases.map(\.rawValue).joined(separator: ", ")); seen items keep theirs.", valueName: "name"))
    var scheduler: SchedulerKind = .fsrs6

    @Option(name: .customLong("new"), help: "New items a day (counted per day; missed days do not add up).")
    var newPerDay = 10

    @Option(name: .customLong("max-reviews"), help: "Reviews a day at most.")
    var maxReviews = 200

    @Flag(name: .customLong("both-ways"), help: "Study a deck's cards both ways (front to back, back to front); the two are siblings, never on the same day.")
    var bothWays = false

    @Flag(name: .customLong("no-load-balance"), help: "Keep the scheduler's interval instead of moving it, inside the fuzz range, to the least busy day.")
    var noLoadBalance = false

    @Option(help: ArgumentHelp("Study only this item, now, due or not.", valueName: "id"))
    var item: String?

    @Flag(name: .customLong("no-shuffle"), help: "Show a question's choices in the bank's order (for authors) instead of the learner's shuffled order.")
    var noShuffle = false

    @Flag(help: "Print one JSON summary at the end instead of the session's text.")
    var json = false

    func validate() throws {
        guard newPerDay >= 0 else { throw ValidationError("--new is 0 or more, not \(newPerDay)") }
        guard maxReviews >= 0 else { throw ValidationError("--max-reviews is 0 or more, not \(maxReviews)") }
    }

    func run() throws {
        let material = try learner.material(bothWays: bothWays)
        let text = try learner.text()
        // A bad item id is refused before the database is opened (or created).
        if let item, material.position(of: ItemKey(source: material.source, item: item)) == nil {
            throw ProgressError(.unknownItem, "no item with this id in \(material.source)", at: .item("\(material.source)/\(item)"))
        }
        let store = try ProgressStore(path: try learner.databasePath())
        let calendar = learner.calendar
        var clock = try learner.startTime()
        let fixedClock = learner.now != nil
        let session = try StudySession(
            material: material, store: store, scheduler: AnyScheduler.standard(scheduler, calendar: calendar, fuzz: noLoadBalance),
            calendar: calendar, limits: SessionLimits(newPerDay: newPerDay, reviewsPerDay: maxReviews),
            balanceLoad: !noLoadBalance, now: clock)
        if let item { try session.focus(on: item) }
        let interactive = isatty(0) != 0
        let quiet = json
        let out: (String) -> Void = { line in if !quiet { say(line) } }
        let plan = session.plan
        out("\(material.title) · \(learner.locale ?? "en") · " + text("session.today", plan.reviewPositions.count, plan.newPositions.count)
            + (plan.reviewsOverCap > 0 ? text("session.overCap", plan.reviewsOverCap) : "")
            + (plan.buriedSiblings > 0 ? text("session.siblingsWait", plan.buriedSiblings) : ""))
        let started = clock
        var firstTry = 0
        var stopped = false
        var introShown = Set<String>()
        // A deck's lessons are the library's runs of cards, titled "Lesson N" in English: their
        // numbers, for a title in the learner's words.
        var deckLessons: [String: Int] = [:]
        if material.kind == .deck {
            for item in material.items where deckLessons[item.lesson.id] == nil { deckLessons[item.lesson.id] = deckLessons.count + 1 }
        }
        while let item = session.next, !stopped {
            let done = session.answered.count
            let total = done + session.pending.count
            out("")
            let seen = try store.item(item.key) != nil
            out(Self.bar(done: done, total: total) + " \(done + 1)/\(total) · " + text(seen ? "session.item.review" : "session.item.new"))
            if item.opensLesson, !introShown.contains(item.lesson.id), !seen {
                introShown.insert(item.lesson.id)
                out("── " + (deckLessons[item.lesson.id].map { text("session.deckLesson", $0) } ?? item.lesson.title))
                for line in wrapped(item.lesson.intro, indent: "   ") { out(line) }
                out("")
            }
            let asked = Date()
            // A question's result is the answer; a card's button becomes one in the answer's
            // transaction, by the scheduler of the item's stored state.
            var answer: Answer?
            var cardGrade: CardGrade?
            switch item.content {
            case .question(let question):
                let order = noShuffle
                    ? ChoiceOrder(unshuffled: question.choices.count)
                    : ChoiceOrder(count: question.choices.count, learnerSeed: store.learnerSeed, bank: material.id, question: question.id)
                guard let result = try ask(question, shown: order, key: item.key, interactive: interactive, text: text, out: out, session: session) else {
                    stopped = true
                    continue
                }
                if case .undo = result { continue }
                guard case .answered(let mc) = result else { continue }
                if mc == .rightFirstTry { firstTry += 1 }
                answer = .multipleChoice(mc)
            case .card(let card, let reverse):
                guard let result = try grade(card, reverse: reverse, key: item.key, interactive: interactive, text: text, out: out, session: session) else {
                    stopped = true
                    continue
                }
                guard case .graded(let grade) = result else { continue }
                if grade >= 3 { firstTry += 1 }
                cardGrade = CardGrade(rawValue: grade)
            }
            clock = fixedClock ? clock.addingTimeInterval(10) : Date()
            let record: ReviewRecord
            if let cardGrade {
                record = try session.answer(cardGrade: cardGrade, duration: Date().timeIntervalSince(asked), at: clock)
            } else if let answer {
                record = try session.answer(answer, duration: Date().timeIntervalSince(asked), at: clock)
            } else {
                continue
            }
            out("   " + Self.describeNext(record, zone: learner.zone, calendar: calendar, text: text))
        }
        let tomorrow = try store.dueCounts(source: material.source, from: calendar.adding(days: 1, to: clock), days: 1, calendar: calendar).first ?? 0
        let reviews = session.answered.filter { $0.before != nil }.count
        let summary = Summary(
            material: material.source, title: material.title, answered: session.answered.count, reviews: reviews,
            new: session.answered.count - reviews, rightFirstTry: firstTry, left: session.pending.count,
            minutes: fixedClock ? nil : clock.timeIntervalSince(started) / 60, dueTomorrow: tomorrow,
            level: material.kind == .deck ? LearnerLevel.of(material.items.map(\.key), progress: try store.items(source: material.source)).description : nil)
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            say(String(decoding: try encoder.encode(summary), as: UTF8.self))
        } else {
            say("")
            say(text("done.summary", summary.answered, summary.reviews, summary.new, summary.rightFirstTry)
                + (summary.left > 0 ? text("done.left", summary.left) : "") + text("done.tomorrow", summary.dueTomorrow)
                + (summary.level.map { text("done.level", LearnerLevel.named($0).map(text.name(of:)) ?? $0) } ?? ""))
        }
    }

    struct Summary: Encodable {
        var material: String
        var title: String
        var answered: Int
        var reviews: Int
        var new: Int
        var rightFirstTry: Int
        var left: Int
        var minutes: Double?
        var dueTomorrow: Int
        var level: String?
    }

    enum Step {
        case answered(MultipleChoiceResult)
        case graded(Int)
        case undo
        /// Nothing happened (undo with nothing to take back): ask the same again.
        case retry
    }

    /// Reads one line: `nil` at the end of input.
    private func readAnswer(interactive: Bool, prompt: String, out: (String) -> Void) -> String? {
        if interactive { FileHandle.standardOutput.write(Data(prompt.utf8)) }
        guard let line = readLine() else { return nil }
        let text = line.trimmingCharacters(in: .whitespaces)
        if !interactive { out(prompt + text) }
        return text
    }

    /// The keys that take back the last answer and stop, in every language (what the learner
    /// types, not words: the catalog's messages take them as arguments).
    static let undoKey = "u"
    static let stopKey = "q"

    /// Handles the undo and stop keys; returns nil for anything else. Undo with nothing to take
    /// back says so and asks again at a terminal; from a file it is an error.
    private func control(_ answer: String, interactive: Bool, text: StudyText, session: StudySession, out: (String) -> Void) throws -> Step?? {
        switch answer.lowercased() {
        case Self.stopKey: return .some(nil)
        case Self.undoKey:
            let undone = Result { () throws(ProgressError) in try session.undo() }
            switch undone {
            case .success(let item):
                out("   " + text("session.undone", item.key.item))
                return .some(.undo)
            case .failure(var error):
                guard error.code == .nothingToUndo else { throw error }
                error.detail = text("session.nothingToUndo")
                guard interactive else { throw error }
                out("   " + error.detail)
                return .some(.retry)
            }
        default: return nil
        }
    }

    /// An answer the session cannot take: at a terminal, what it takes (and the learner answers
    /// again); from a file, an error.
    private func invalid(_ answer: String, _ expected: String, key: ItemKey, interactive: Bool, text: StudyText, out: (String) -> Void) throws {
        guard interactive else { throw ProgressError(.invalidAnswer, text("invalid.got", expected, answer), at: .item(key.description)) }
        out("   " + expected)
    }

    /// Asks `question` with its choices in the `shown` order. The learner answers by the number
    /// shown; the answer is graded, and the key named, by the original choice.
    private func ask(
        _ question: Question, shown order: ChoiceOrder, key: ItemKey, interactive: Bool, text: StudyText, out: (String) -> Void, session: StudySession
    ) throws -> Step? {
        for line in wrapped(question.prompt) { out(line) }
        if let picture = question.picture { out("   " + text("session.picture", picture)) }
        for (position, choice) in order.arrange(question.choices).enumerated() {
            for (n, line) in wrapped(choice.text, indent: "     ").enumerated() {
                out(n == 0 ? "  \(position + 1)." + line.dropFirst(4) : line)
            }
        }
        var wrongTries = 0
        while true {
            guard let answer = readAnswer(interactive: interactive, prompt: "> ", out: out) else { return nil }
            if let control = try control(answer, interactive: interactive, text: text, session: session, out: out) {
                if case .retry = control { continue }
                return control
            }
            guard let number = Int(answer), (1...question.choices.count).contains(number),
                let chosen = order.originalIndex(atShownPosition: number - 1)
            else {
                let expected = text("invalid.choice", question.choices.count, Self.undoKey, Self.stopKey)
                try invalid(answer, expected, key: key, interactive: interactive, text: text, out: out)
                continue
            }
            if question.choices[chosen].correct {
                out("   " + text(wrongTries == 0 ? "feedback.right" : "feedback.rightSecondTry"))
                return .answered(wrongTries == 0 ? .rightFirstTry : .rightAfterWrongTry)
            }
            wrongTries += 1
            if wrongTries == 1 {
                out("   " + text("feedback.notQuite", question.explanation))
                out("   " + text("feedback.tryAgain"))
                continue
            }
            let right = question.correctIndex.map { "\((order.shownPosition(ofOriginalIndex: $0) ?? $0) + 1). \(question.choices[$0].text)" } ?? ""
            out("   " + text("feedback.answerIs", right))
            return .answered(.wrong)
        }
    }

    private func grade(
        _ card: Card, reverse: Bool, key: ItemKey, interactive: Bool, text: StudyText, out: (String) -> Void, session: StudySession
    ) throws -> Step? {
        let front = reverse ? card.back : card.front
        let back = reverse ? card.front : card.back
        out("   \(front)")
        if interactive {
            while true {
                guard let answer = readAnswer(interactive: true, prompt: "   " + text("card.reveal") + " ", out: out) else { return nil }
                guard let control = try control(answer, interactive: true, text: text, session: session, out: out) else { break }
                if case .retry = control { continue }
                return control
            }
        }
        out("   → \(back)" + (card.romaji.map { " (\($0))" } ?? ""))
        while true {
            guard let answer = readAnswer(interactive: interactive, prompt: "   " + text("card.grades") + " > ", out: out) else { return nil }
            if let control = try control(answer, interactive: interactive, text: text, session: session, out: out) {
                if case .retry = control { continue }
                return control
            }
            guard let grade = Int(answer), (1...4).contains(grade) else {
                try invalid(answer, text("invalid.grade", 4, Self.undoKey, Self.stopKey), key: key, interactive: interactive, text: text, out: out)
                continue
            }
            return .graded(grade)
        }
    }

    static func bar(done: Int, total: Int, width: Int = 20) -> String {
        let filled = total == 0 ? width : done * width / total
        return "[" + String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled) + "]"
    }

    /// When the item comes back, in the learner's words: in minutes under an hour, hours under
    /// a day, then calendar days; a Leitner session day; never.
    static func describeNext(_ record: ReviewRecord, zone: TimeZone, calendar: LearnerCalendar, text: StudyText) -> String {
        switch record.after.due {
        case .date(let due):
            let seconds = due.timeIntervalSince(record.at)
            let wait = seconds < 3600 ? text("time.minutes", Int((seconds / 60).rounded()))
                : seconds < 86_400 ? text("time.hours", Int((seconds / 3600).rounded()))
                : text("time.days", calendar.days(from: record.at, to: due))
            return text("next.due", wait, due.formatted(in: zone))
        case .sessionDay(let day): return text("next.sessionDay", day)
        case .never: return text("next.never")
        }
    }
}
