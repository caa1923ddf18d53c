import AssetPack
import Foundation
import StudyContent
import StudyEngine
import StudyProgress
import TestSupport

/// A bank of `count` four-choice questions in lessons of 5 (choice 2 is right), in `language`;
/// every question's choices are `choices`.
func bankFiles(
    count: Int, language: String = "en", word: String = "Question", choices: [String] = ["a", "b", "c", "d"], removing: Set<String> = [],
    adding: [String] = []
) -> [String: String] {
    let choiceList = choices.enumerated().map { #"{"text": "\#($0.element)", "correct": \#($0.offset == 1)}"# }.joined(separator: ", ")
    var questions: [String] = []
    for n in 1...count where !removing.contains("q\(n)") {
        questions.append(#"{"id": "q\#(n)", "prompt": "\#(word) \#(n)?", "choices": [\#(choiceList)], "explanation": "Because \#(n)."}"#)
    }
    for id in adding {
        questions.append(#"{"id": "\#(id)", "prompt": "\#(word) \#(id)?", "choices": [\#(choiceList)], "explanation": "New."}"#)
    }
    var lessons: [String] = []
    for start in stride(from: 0, to: questions.count, by: 5) {
        let slice = questions[start..<min(start + 5, questions.count)]
        lessons.append(#"{"id": "l\#(start / 5 + 1)", "title": "Lesson \#(start / 5 + 1)", "intro": "Read this first.", "questions": [\#(slice.joined(separator: ", "))]}"#)
    }
    return [
        "Banks/b/bank.json": #"{"id": "b", "title": "Bank \#(language)", "language": "\#(language)", "categories": ["c"]}"#,
        "Banks/b/c.json": #"{"id": "c", "title": "Category", "lessons": [\#(lessons.joined(separator: ", "))]}"#,
    ]
}

/// The bank `b` of `bankFiles` as study material, from a pack in `scratch`.
func material(count: Int, in scratch: Scratch, removing: Set<String> = [], adding: [String] = []) throws -> StudyMaterial {
    let path = try scratch.pack("b-\(count)-\(removing.count)-\(adding.count)", files: bankFiles(count: count, removing: removing, adding: adding))
    return try StudyMaterial.load(.bank, id: "b", from: try Pack(path: path))
}

/// A deck of `count` cards `w1`… as study material.
func deck(count: Int, bothWays: Bool) -> StudyMaterial {
    let cards = (1...count).map { Card(id: "w\($0)", front: "front \($0)", back: "back \($0)") }
    return StudyMaterial(deck: Deck(id: "d", title: "Deck", cards: cards), bothWays: bothWays)
}

let day0 = Date(timeIntervalSince1970: 1_795_338_000)  // 2026-11-22 09:00 UTC

/// The built `study` binary.
let studyBinary = BuiltProducts.path("study")

/// Runs `study` with `input` on standard input.
func study(_ arguments: [String], input: String = "", environment: [String: String] = [:]) throws -> ProcessResult {
    try run(studyBinary, arguments, environment: environment, input: Data(input.utf8))
}
