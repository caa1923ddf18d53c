import Foundation
import TestSupport
import Testing

/// Apple platforms are declared in Package.swift but cannot be compiled here (this project builds
/// on Linux), so this suite reads the sources instead: every use of an API that Apple introduced
/// after the declared versions must be guarded by `#available` or `@available` (or replaced).
///
/// The table holds the APIs worth checking for in a package like this one, with the versions
/// from Apple's availability annotations in the SDKs (Foundation, the Swift standard library,
/// Synchronization). Add a row when the code starts using another API of that kind.
@Suite("Apple platforms: no API newer than the versions Package.swift declares")
struct PlatformAvailabilityTests {
    /// An Apple platform version, as `platforms:` and `@available` spell them.
    struct Version: Comparable, CustomStringConvertible {
        var parts: [Int]

        init(_ text: String) { parts = text.split(separator: ".").compactMap { Int($0) } }

        static func < (a: Version, b: Version) -> Bool {
            for index in 0..<max(a.parts.count, b.parts.count) {
                let x = index < a.parts.count ? a.parts[index] : 0
                let y = index < b.parts.count ? b.parts[index] : 0
                if x != y { return x < y }
            }
            return false
        }

        var description: String { parts.map(String.init).joined(separator: ".") }
    }

    /// One API: how it is spelled in source, and where Apple introduced it (macOS, iOS, tvOS,
    /// watchOS; visionOS has every API here from 1.0). `unavailable` marks a platform without it.
    struct API: CustomStringConvertible {
        var spelling: String
        var introduced: [String: Version]
        var description: String { spelling }

        init(_ spelling: String, macOS: String, iOS: String, tvOS: String, watchOS: String) {
            self.spelling = spelling
            introduced = ["macOS": Version(macOS), "iOS": Version(iOS), "tvOS": Version(tvOS), "watchOS": Version(watchOS)]
        }
    }

    static let unavailable = "9999"

    /// The checked APIs and where each was introduced.
    static let apis: [API] = {
        var apis: [API] = []
        // Foundation's URL API of 2022.
        for spelling in [
            ".appending(path:", ".appending(component:", ".appending(components:", "URL(filePath:", ".path(percentEncoded:",
            "URL.homeDirectory", "URL.temporaryDirectory", "URL.currentDirectory(", ".directoryHint",
        ] {
            apis.append(API(spelling, macOS: "13", iOS: "16", tvOS: "16", watchOS: "9"))
        }
        // FileHandle's throwing reads and writes.
        for spelling in [".read(upToCount:", ".readToEnd()", ".write(contentsOf:", ".seekToEnd()", ".offset()"] {
            apis.append(API(spelling, macOS: "10.15.4", iOS: "13.4", tvOS: "13.4", watchOS: "6.2"))
        }
        // Swift's string processing (Regex) and its collection algorithms, and clocks.
        for spelling in [
            "Regex(", "Regex<", "#/", ".firstMatch(of:", ".wholeMatch(of:", ".prefixMatch(of:", ".matches(of:", ".ranges(of:",
            ".firstRange(of:", ".trimmingPrefix(", ".replacing(", "Duration", "ContinuousClock", "SuspendingClock",
            "Task.sleep(for:", ".sleep(until:", "Locale.Language", "Locale.LanguageCode",
        ] {
            apis.append(API(spelling, macOS: "13", iOS: "16", tvOS: "16", watchOS: "9"))
        }
        // Foundation's formatting and async URL loading of 2021.
        for spelling in [
            "Date.now", ".formatted()", ".formatted(date:", "AttributedString", "String(localized:", ".allowsJSON5",
            "URLSession.shared.data(", ".data(for: URLRequest(", ".bytes(for:", ".bytes(from:", ".download(for:", ".upload(for:",
        ] {
            apis.append(API(spelling, macOS: "12", iOS: "15", tvOS: "15", watchOS: "8"))
        }
        apis.append(API("withDiscardingTaskGroup", macOS: "14", iOS: "17", tvOS: "17", watchOS: "10"))
        apis.append(API("import Observation", macOS: "14", iOS: "17", tvOS: "17", watchOS: "10"))
        for spelling in ["import Synchronization", "Mutex<", "Atomic<", "Int128", "UInt128"] {
            apis.append(API(spelling, macOS: "15", iOS: "18", tvOS: "18", watchOS: "11"))
        }
        apis.append(API("import OSLog", macOS: "11", iOS: "14", tvOS: "14", watchOS: "7"))
        apis.append(API("import BackgroundAssets", macOS: "13", iOS: "16", tvOS: unavailable, watchOS: unavailable))
        // Swift concurrency: the floor itself, listed so that raising it stays deliberate.
        for spelling in ["async ", "await ", "actor ", "Task {", "AsyncStream"] {
            apis.append(API(spelling, macOS: "10.15", iOS: "13", tvOS: "13", watchOS: "6"))
        }
        return apis
    }()

    /// A use of a newer API found in a file.
    struct Use: CustomStringConvertible {
        var file: String
        var line: Int
        var api: String
        var platform: String
        var needs: Version
        var declared: Version
        var description: String { "\(file):\(line): \(api) needs \(platform) \(needs), Package.swift declares \(declared)" }
    }

    /// The versions a manifest's `platforms:` declares, e.g. `.macOS(.v10_15)` → macOS 10.15.
    static func declaredPlatforms(in manifest: String) -> [String: Version] {
        var declared: [String: Version] = [:]
        for platform in ["macOS", "iOS", "tvOS", "watchOS", "visionOS"] {
            guard let start = manifest.range(of: ".\(platform)(") else { continue }
            let rest = manifest[start.upperBound...].prefix { $0 != ")" }
            let text = rest.replacingOccurrences(of: ".v", with: "").replacingOccurrences(of: "\"", with: "")
                .replacingOccurrences(of: "_", with: ".")
            declared[platform] = Version(text)
        }
        return declared
    }

    /// Whether `line` holds a multi-character string literal as a `split(separator:)`
    /// separator: that overload is Swift's string processing (macOS 13); a one-character
    /// literal is a `Character` and has always been there.
    static func splitsOnString(_ line: Substring) -> Bool {
        guard let start = line.range(of: "split(separator: \"") else { return false }
        var characters = 0
        var escaped = false
        for character in line[start.upperBound...] {
            if escaped {
                escaped = false
                characters += 1
            } else if character == "\\" {
                escaped = true
            } else if character == "\"" {
                return characters > 1
            } else {
                characters += 1
            }
        }
        return false
    }

    /// The uses in `text` of APIs newer than `declared`, with no `#available` / `@available` in
    /// the 25 lines before them (the guard of the function or block they are in).
    static func newerUses(in text: String, file: String, declared: [String: Version]) -> [Use] {
        var uses: [Use] = []
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        var guardLines: [Int] = []
        for (index, line) in lines.enumerated() {
            let code = line.drop { $0 == " " }
            if code.hasPrefix("//") { continue }
            if code.contains("#available(") || code.contains("@available(") { guardLines.append(index) }
            var found: [(String, [String: Version])] = apis.filter { code.contains($0.spelling) }.map { ($0.spelling, $0.introduced) }
            if splitsOnString(code) {
                found.append(("split(separator: String)", ["macOS": Version("13"), "iOS": Version("16"), "tvOS": Version("16"), "watchOS": Version("9")]))
            }
            if code.contains("any "), code.split(separator: "any ").dropFirst().contains(where: { rest in
                let name = rest.prefix { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "." }
                return !name.isEmpty && name.first?.isUppercase == true && rest.dropFirst(name.count).first == "<"
            }) {
                found.append(("any P<T> (a parameterized protocol type)", ["macOS": Version("13"), "iOS": Version("16"), "tvOS": Version("16"), "watchOS": Version("9")]))
            }
            guard !found.isEmpty else { continue }
            if let last = guardLines.last, index - last <= 25 { continue }
            for (spelling, introduced) in found {
                for (platform, needs) in introduced.sorted(by: { $0.key < $1.key }) {
                    guard let floor = declared[platform], floor < needs else { continue }
                    uses.append(Use(file: file, line: index + 1, api: spelling, platform: platform, needs: needs, declared: floor))
                }
            }
        }
        return uses
    }

    /// The Swift files the packages compile: Sources/ and Tests/ of the main package and of the
    /// benchmarks' package, but no build folder, no fixture package and not this file.
    static func swiftFiles() -> [String] {
        var files: [String] = []
        for top in ["Sources", "Tests"] {
            guard let walker = FileManager.default.enumerator(atPath: Repository.path(top)) else { continue }
            while let relative = walker.nextObject() as? String {
                let path = top + "/" + relative
                if relative.split(separator: "/").contains(where: { $0.hasPrefix(".build") || $0 == "Fixtures" }) { continue }
                guard path.hasSuffix(".swift"), !path.hasSuffix("/PlatformAvailabilityTests.swift") else { continue }
                files.append(path)
            }
        }
        return files.sorted()
    }

    @Test("Package.swift declares every Apple platform, at GRDB's floor or above")
    func declared() throws {
        let manifest = try String(contentsOfFile: Repository.path("Package.swift"), encoding: .utf8)
        let declared = Self.declaredPlatforms(in: manifest)
        #expect(declared.keys.sorted() == ["iOS", "macOS", "tvOS", "visionOS", "watchOS"])
        // GRDB 7.10 (StudyProgress) declares macOS 10.15, iOS 13, tvOS 13, watchOS 7.
        #expect(declared["macOS"].map { $0 >= Version("10.15") } == true)
        #expect(declared["iOS"].map { $0 >= Version("13") } == true)
        let benchmarks = try String(contentsOfFile: Repository.path("Tests/Benchmarks/Package.swift"), encoding: .utf8)
        #expect(Self.declaredPlatforms(in: benchmarks) == declared, "the benchmarks' package declares other platforms")
    }

    @Test("no file in Sources/ or Tests/ uses an API newer than the declared platforms, unguarded")
    func noNewerAPI() throws {
        let manifest = try String(contentsOfFile: Repository.path("Package.swift"), encoding: .utf8)
        let declared = Self.declaredPlatforms(in: manifest)
        let files = Self.swiftFiles()
        #expect(files.count > 150, "the scan found only \(files.count) Swift files")
        var uses: [Use] = []
        for file in files {
            let text = try String(contentsOfFile: Repository.path(file), encoding: .utf8)
            uses += Self.newerUses(in: text, file: file, declared: declared)
        }
        #expect(uses.map(\.description) == [])
    }

    @Test("the scan finds what it looks for, and accepts guarded and older uses")
    func scanFindsUses() {
        let declared = ["macOS": Version("10.15"), "iOS": Version("13"), "tvOS": Version("13"), "watchOS": Version("7")]
        let newer = """
            let url = base.appending(path: "x")
            let header = try handle.read(upToCount: 16)
            let parts = text.split(separator: ", ")
            var values: any Collection<Int> = []
            """
        let found = Self.newerUses(in: newer, file: "f.swift", declared: declared)
        #expect(Set(found.map(\.line)) == [1, 2, 3, 4])
        #expect(found.first?.description == "f.swift:1: .appending(path: needs iOS 16, Package.swift declares 13")
        let fine = """
            let parts = text.split(separator: "\\n")
            let url = base.appendingPathComponent("x")
            // base.appending(path: "x") in a comment
            if #available(macOS 13, iOS 16, *) {
                let url = base.appending(path: "x")
            }
            """
        #expect(Self.newerUses(in: fine, file: "g.swift", declared: declared).map(\.description) == [])
        #expect(Self.declaredPlatforms(in: "platforms: [.macOS(.v10_15), .iOS(\"13.4\")]") == ["macOS": Version("10.15"), "iOS": Version("13.4")])
    }
}
