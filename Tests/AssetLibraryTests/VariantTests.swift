import AssetPack
import TestSupport
import Testing

@testable import AssetLibrary

@Suite("Image variants: @Nx and ~ipad/~iphone")
struct VariantTests {
    @Test(
        "file names parse into base, scale and idiom",
        arguments: [
            ("Images/duck.png", "Images/duck.png", 1, nil),
            ("Images/duck@2x.png", "Images/duck.png", 2, nil),
            ("Images/duck@3x~ipad.png", "Images/duck.png", 3, Idiom.pad),
            ("Images/duck~iphone.png", "Images/duck.png", 1, .phone),
            ("Images/duck@2X.png", "Images/duck@2X.png", 1, nil),
            ("Images/duck~iPad.png", "Images/duck~iPad.png", 1, nil),
            ("Sounds/quack@2x.m4a", "Sounds/quack.m4a", 2, nil),
            ("data@3x", "data", 3, nil),
            ("a.b/c@2x.min.js", "a.b/c@2x.min.js", 1, nil),
            ("email@example.txt", "email@example.txt", 1, nil),
        ] as [(String, String, Int, Idiom?)])
    func parse(path: String, base: String, scale: Int, idiom: Idiom?) {
        let name = VariantName(path: path)
        #expect(name.basePath == base)
        #expect(name.scale == scale)
        #expect(name.idiom == idiom)
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var files: [String]
        var scale: Int
        var idiom: Idiom
        var expected: String?
        var testDescription: String { "\(files) @\(scale)x \(idiom) → \(expected ?? "nothing")" }
    }

    static let cases: [Case] = [
        Case(files: ["d.png", "d@2x.png", "d@3x.png"], scale: 2, idiom: .phone, expected: "d@2x.png"),
        Case(files: ["d.png", "d@2x.png", "d@3x.png"], scale: 3, idiom: .phone, expected: "d@3x.png"),
        Case(files: ["d.png", "d@2x.png", "d@3x.png"], scale: 1, idiom: .phone, expected: "d.png"),
        Case(files: ["d.png", "d@3x.png"], scale: 2, idiom: .phone, expected: "d@3x.png"),  // nearest larger first
        Case(files: ["d.png", "d@2x.png"], scale: 3, idiom: .phone, expected: "d@2x.png"),  // then smaller
        Case(files: ["d.png"], scale: 3, idiom: .pad, expected: "d.png"),
        Case(files: ["d@2x.png", "d@3x.png"], scale: 1, idiom: .phone, expected: "d@2x.png"),  // scale down from 2
        Case(files: ["d@2x.png", "d@3x~ipad.png"], scale: 3, idiom: .pad, expected: "d@3x~ipad.png"),
        Case(files: ["d@3x.png", "d@3x~ipad.png"], scale: 3, idiom: .pad, expected: "d@3x~ipad.png"),
        Case(files: ["d@3x.png", "d@3x~ipad.png"], scale: 3, idiom: .phone, expected: "d@3x.png"),
        Case(files: ["d~ipad.png", "d@2x.png"], scale: 2, idiom: .pad, expected: "d@2x.png"),  // scale beats idiom
        Case(files: ["d~ipad.png", "d@2x.png"], scale: 1, idiom: .pad, expected: "d~ipad.png"),
        Case(files: ["d@2x~ipad.png", "d@2x.png", "d@3x.png"], scale: 2, idiom: .pad, expected: "d@2x~ipad.png"),
        Case(files: ["d@2x~iphone.png", "d@2x.png"], scale: 2, idiom: .pad, expected: "d@2x.png"),  // never another device's
        Case(files: ["d@2x~iphone.png", "d@2x.png"], scale: 2, idiom: .phone, expected: "d@2x~iphone.png"),
        Case(files: ["d@2x~iphone.png"], scale: 2, idiom: .pad, expected: nil),
        Case(files: ["d@2X.png", "d.png"], scale: 2, idiom: .phone, expected: "d.png"),  // upper-case X is no suffix
        Case(files: ["d~IPAD.png", "d.png"], scale: 1, idiom: .pad, expected: "d.png"),
        Case(files: ["d.jpg", "d@2x.jpg"], scale: 2, idiom: .phone, expected: "d@2x.jpg"),
        Case(files: ["d.png", "d@2x.jpg"], scale: 2, idiom: .phone, expected: "d.png"),  // extensions never mix
        Case(files: ["d@1x.png", "d@3x.png"], scale: 1, idiom: .phone, expected: "d@1x.png"),
        Case(files: [], scale: 2, idiom: .phone, expected: nil),
        Case(files: ["d@2x~ipad.png", "d@3x~ipad.png"], scale: 1, idiom: .pad, expected: "d@2x~ipad.png"),
    ]

    @Test("variant selection", arguments: cases)
    func select(_ testCase: Case) throws {
        let scratch = try Scratch()
        var files = Dictionary(uniqueKeysWithValues: testCase.files.map { ("Images/" + $0, $0) })
        files["other.txt"] = "x"
        let store = try AssetStore()
        try store.mount(path: scratch.pack("p", files: files), priority: 0)
        let ext = testCase.files.contains { $0.hasSuffix(".jpg") } && !testCase.files.contains { $0.hasSuffix(".png") } ? "jpg" : "png"
        let hit = store.image(named: "Images/d.\(ext)", scale: testCase.scale, idiom: testCase.idiom)
        #expect(hit?.path == testCase.expected.map { "Images/" + $0 })
        if let hit, let expected = testCase.expected {
            let name = VariantName(path: expected)
            #expect(hit.scale == name.scale)
            #expect(hit.idiom == name.idiom)
            #expect(try hit.hit.data().text == expected)
        }
    }

    @Test("variants split across packs: a patch's @2x overrides only the base's @2x")
    func acrossPacks() throws {
        let scratch = try Scratch()
        let store = try AssetStore()
        try store.mount(path: scratch.pack("base", files: ["I/d.png": "base1", "I/d@2x.png": "base2", "I/d@3x.png": "base3"]), priority: 0)
        try store.mount(path: scratch.pack("patch", files: ["I/d@2x.png": "patch2", "I/e@2x~ipad.png": "patchE"]), priority: 200)
        try store.mount(path: scratch.pack("en", locale: "en", files: ["I/e.png": "enE"]), priority: 100)
        func pick(_ name: String, _ scale: Int, _ idiom: Idiom = .phone) throws -> String? {
            try store.image(named: name, scale: scale, idiom: idiom).map { "\($0.pack.metadata!.name):\(try $0.hit.data().text)" }
        }
        #expect(try pick("I/d.png", 2) == "patch:patch2")
        #expect(try pick("I/d.png", 3) == "base:base3")
        #expect(try pick("I/d.png", 1) == "base:base1")
        #expect(try pick("I/e.png", 2, .pad) == "patch:patchE")
        #expect(try pick("I/e.png", 2, .phone) == "en:enE")
        #expect(try pick("I/nothing.png", 2) == nil)
    }

    @Test("variant groups are built once per pack, when it is opened into the cache")
    func groupsBuiltOnce() throws {
        let scratch = try Scratch()
        let path = try scratch.pack("g", files: ["a.png": "", "a@2x.png": "", "a@3x~ipad.png": "", "b@2x.png": "", "c.txt": ""])
        let cache = PackCache()
        let first = try cache.open(path: path)
        #expect(first.variants.groupCount == 2)
        let second = try cache.open(path: path)
        #expect(first === second)
    }
}
