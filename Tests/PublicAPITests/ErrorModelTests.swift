// One error model: every library error has a code from one vocabulary, the location fields that
// apply, and the error underneath as a typed value; the README's table lists every code.
import AssetLibrary
import AssetPack
import AssetDelivery
import ErrorReporting
import PackTrust
import Foundation
import StudyContent
import StudyEngine
import StudyProgress
import StudyResearch
import StudySync
import TestSupport
import Testing

@Suite("One error model: codes from one vocabulary, locations, typed causes")
struct ErrorModelTests {
    /// Every code of every library's error type, by the type's name (as the README's table
    /// names it).
    static let vocabulary: [String: [String]] = [
        "PackError": PackError.Code.allCases.map(\.rawValue),
        "StoreError": StoreError.Code.allCases.map(\.rawValue),
        "ContentError": ContentError.Code.allCases.map(\.rawValue),
        "StudyEngineError": StudyEngineError.Code.allCases.map(\.rawValue),
        "ReviewLogError": ReviewLogError.Code.allCases.map(\.rawValue),
        "ProgressError": ProgressError.Code.allCases.map(\.rawValue),
        "TrustError": TrustError.Code.allCases.map(\.rawValue),
        "DeliveryError": DeliveryError.Code.allCases.map(\.rawValue),
        "SyncError": SyncError.Code.allCases.map(\.rawValue),
    ]

    @Test("codes are lowerCamelCase words: letters and digits, starting with a small letter")
    func codesAreOneSpelling() {
        for (library, codes) in Self.vocabulary {
            for code in codes {
                let scalars = code.unicodeScalars
                let spelled = scalars.first.map { ("a"..."z").contains($0) } == true
                    && scalars.allSatisfy { ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) }
                #expect(spelled, "\(library).\(code)")
            }
        }
    }

    @Test("the README's error table lists every code of every library, and no other")
    func readmeListsEveryCode() throws {
        let readme = try String(contentsOfFile: Repository.path("README.md"), encoding: .utf8)
        var listed: Set<String> = []
        for line in readme.split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 4 else { continue }
            let codes = cells[1].split(separator: ",").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " `")) }
            let libraries = cells[2].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            for library in libraries where Self.vocabulary[library] != nil {
                for code in codes { listed.insert("\(library).\(code)") }
            }
        }
        let all = Set(Self.vocabulary.flatMap { library, codes in codes.map { "\(library).\($0)" } })
        #expect(all.subtracting(listed).sorted() == [], "codes the README does not list")
        #expect(listed.subtracting(all).sorted() == [], "codes the README lists that no library has")
    }

    @Test("a content file that cannot be read keeps the pack error underneath as a typed value")
    func causesStayTyped() throws {
        let crc = PackError(.crcMismatch, "stored 1, computed 2", at: .pack("/p.pack", entry: "Banks/b/c.json", offset: 48))
        let error = ContentError(.unreadable, at: .file("Banks/b/c.json", item: "c"), underlying: .store(StoreError(.pack, at: crc.location, underlying: crc)))
        let library: any LibraryError = error
        #expect(library.codeName == "unreadable")
        #expect(library.location == ErrorLocation(file: "Banks/b/c.json", item: "c"))
        #expect(library.chain.map { type(of: $0).library } == ["StudyContent", "AssetLibrary", "AssetPack"])
        let root = library.rootCause
        #expect(root.codeName == "crcMismatch")
        #expect(root.location == ErrorLocation(file: "/p.pack", entry: "Banks/b/c.json", offset: 48))
        let fields = Dictionary(uniqueKeysWithValues: ErrorReport.fields(for: error).map { ($0.key, $0.value) })
        #expect(fields["library"] == .text("StudyContent"))
        #expect(fields["code"] == .text("unreadable"))
        #expect(fields["path"] == .text("Banks/b/c.json"))
        #expect(fields["cause"] == .text("AssetPack.crcMismatch"))
        #expect(fields["offset"] == nil)
        #expect(ErrorReport.line(for: error) == error.description)
    }

    @Test("a progress error keeps the engine's or the content's error as a typed value, not a sentence")
    func progressCauses() {
        let engine = StudyEngineError(.gradeOutOfRange, "FSRS grades are 1 to 4, got 7", at: .field("grade"))
        let error = ProgressError(.engine, at: .item("bank/b/q1"), underlying: .engine(engine))
        #expect(error.underlyingError as? StudyEngineError == engine)
        #expect(error.location == ErrorLocation(item: "bank/b/q1"))
        #expect(error.description == "bank/b/q1: engine: grade: gradeOutOfRange: FSRS grades are 1 to 4, got 7")
        let fields = Dictionary(uniqueKeysWithValues: ErrorReport.fields(for: error).map { ($0.key, $0.value) })
        #expect(fields["library"] == .text("StudyProgress") && fields["cause"] == .text("StudyEngine.gradeOutOfRange"))
        let content = ContentError(.notFound, at: .file("Banks/x/bank.json", item: "x"))
        #expect(ProgressError(.content, underlying: .content(content)).rootCause.codeName == "notFound")
    }

    @Test("a pack error's location has its path, entry and offset")
    func packLocation() {
        let error = PackError(.crcMismatch, "stored 1, computed 2", at: .pack("/p.pack", entry: "a.txt", offset: 48))
        #expect(error.location == ErrorLocation(file: "/p.pack", entry: "a.txt", offset: 48))
        #expect(error.underlyingError == nil)
        let wrapped = StoreError(.pack, at: error.location, underlying: error)
        #expect(wrapped.underlyingError as? PackError == error)
        #expect(wrapped.location == error.location)
        // The place is said once, and a wrapper that adds nothing is the pack error's line.
        #expect(wrapped.description == error.description)
        let detailed = StoreError(.pack, "while mounting", at: error.location, underlying: error)
        #expect(detailed.description == "pack error: while mounting: " + error.description)
    }
}
