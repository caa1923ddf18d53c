import Foundation
import TestSupport
import Testing

@testable import AssetPack

extension HostileCase: CustomTestStringConvertible {
    var testDescription: String { "\(group): \(name)" }
}

@Suite("Hostile input: every case gives its exact typed error, with both backends")
struct HostileInputTests {
    @Test("the table covers every group of the checklist: 94 broken inputs and 8 valid ones")
    func tableSize() {
        // Exact, so a case dropped by mistake (a bad merge, a filter) is noticed.
        #expect(HostileCase.all.count(where: { $0.code != nil }) == 94)
        #expect(HostileCase.all.count(where: { $0.code == nil }) == 8)
        #expect(Set(HostileCase.all.map(\.group)) == ["end", "directory", "entries", "names", "pack"])
        #expect(Set(HostileCase.all.map(\.testDescription)).count == HostileCase.all.count)
    }

    @Test("hostile case", arguments: HostileCase.all)
    func hostile(_ testCase: HostileCase) throws {
        let folder = try Scratch()
        let bytes = try testCase.make(folder.path)
        let path = folder.url("input.zip")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        for backend in [PackBackend.mapped, .read] {
            let outcome = Self.run(testCase.stage, path: path, backend: backend, target: folder.url("sandbox/target"))
            switch (outcome, testCase.code) {
            case (.success, nil):
                break
            case (.success, let code?):
                Issue.record("\(backend): expected \(code), but the input was accepted")
            case (.failure(let error), nil):
                Issue.record("\(backend): expected success, got \(error)")
            case (.failure(let error), let code?):
                #expect(error.code == code, "\(backend): \(error)")
                // Extraction problems in the target folder name the folder; all others the input.
                let expectedPath = error.code == .fileExists ? folder.url("sandbox/target") : path
                #expect(error.location.file == expectedPath, "\(backend): \(error)")
                if let entry = testCase.entry { #expect(error.location.entry == entry, "\(backend): \(error)") }
            }
            // Whatever happened, nothing was written outside the target folder.
            let sandbox = try FileManager.default.contentsOfDirectory(atPath: folder.url("sandbox")).sorted()
            #expect(sandbox == [] || sandbox == ["target"])
            if testCase.stage == .extract, testCase.code == nil {
                // Whatever the modes said: only plain 0644 files and folders, never links.
                for (name, _) in try readTree(folder.url("sandbox/target")) {
                    let attributes = try FileManager.default.attributesOfItem(atPath: folder.url("sandbox/target/" + name))
                    #expect(attributes[.type] as? FileAttributeType == .typeRegular, "\(name)")
                    #expect(attributes[.posixPermissions] as? Int == 0o644, "\(name)")
                }
            }
            if testCase.stage == .extract, testCase.code != nil {
                #expect(try readTree(folder.url("sandbox/target")).isEmpty, "an extraction refused must write nothing")
            }
            try? FileManager.default.removeItem(atPath: folder.url("sandbox/target"))
            // The fuzzer's full sweep survives it too, and stays inside its target.
            exercise(path: path, backend: backend, extractTo: folder.url("sandbox/target"))
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url("sandbox")).allSatisfy { $0 == "target" })
            try? FileManager.default.removeItem(atPath: folder.url("sandbox/target"))
        }
    }

    static func run(_ stage: HostileCase.Stage, path: String, backend: PackBackend, target: String) -> Result<Void, PackError> {
        try? FileManager.default.createDirectory(
            atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        return Result { () throws(PackError) in
            let pack = try Pack(path: path, backend: backend)
            switch stage {
            case .open:
                return
            case .read(let name):
                _ = try pack.data(forPath: name)
            case .verify:
                try pack.verify()
            case .extract:
                let extractor = PackExtractor(pack: pack)
                try extractor.extract(try extractor.select([]), to: target)
            }
        }
    }
}
