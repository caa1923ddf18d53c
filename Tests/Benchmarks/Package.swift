// swift-tools-version: 6.1
// The benchmarks: a package of their own (as swift-nio and swift-collections keep theirs), so an
// app that depends on the libraries never resolves the peers they are measured against
// (ZIPFoundation, libzip, SQLite's C API). Built and run by Scripts/bench and Scripts/bench-study.
import PackageDescription

let package = Package(
    name: "Benchmarks",
    platforms: [.macOS(.v10_15), .iOS(.v13), .tvOS(.v13), .watchOS(.v7), .visionOS(.v1)],
    dependencies: [
        .package(name: "AssetPacks", path: "../..", traits: ["StudyProgress"]),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        .package(url: "https://github.com/weichsel/ZIPFoundation", from: "0.9.20"),
    ],
    targets: [
        // libzip and SQLite's C API, the peers; named apart from the main package's modules.
        .systemLibrary(name: "CBenchZip", pkgConfig: "libzip", providers: [.apt(["libzip-dev"]), .brew(["libzip"])]),
        .systemLibrary(name: "CBenchSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]),
        // A plain C reader of the pack format: the practical limit a reader can reach.
        .target(name: "CReferenceReader", linkerSettings: [.linkedLibrary("z")]),
        .executableTarget(
            name: "packbench",
            dependencies: [
                .product(name: "AssetPack", package: "AssetPacks"),
                .product(name: "AssetLibrary", package: "AssetPacks"),
                // Only for its seeded generator (SplitMix64), the package's one copy.
                .product(name: "StudyEngine", package: "AssetPacks"),
                "CBenchZip", "CBenchSQLite", "CReferenceReader",
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        // Delivery after install from nginx on loopback, beside curl (Scripts/bench-delivery).
        .executableTarget(
            name: "deliverybench",
            dependencies: [
                .product(name: "AssetDelivery", package: "AssetPacks"),
                .product(name: "AssetLibrary", package: "AssetPacks"),
                .product(name: "AssetPack", package: "AssetPacks"),
                .product(name: "PackTrust", package: "AssetPacks"),
                .product(name: "StudyEngine", package: "AssetPacks"),
            ]
        ),
        // The study side: FSRS replay against py-fsrs, evaluation, training; progress and
        // sessions against SQLite's C API.
        .executableTarget(
            name: "studybench",
            dependencies: [
                .product(name: "StudyEngine", package: "AssetPacks"),
                .product(name: "StudyResearch", package: "AssetPacks"),
                .product(name: "StudyContent", package: "AssetPacks"),
                .product(name: "StudyProgress", package: "AssetPacks"),
                "CBenchSQLite",
            ]
        ),
        // Progress sync against a plain SQLite copy of the same events (Scripts/bench-sync).
        .executableTarget(
            name: "syncbench",
            dependencies: [
                .product(name: "StudySync", package: "AssetPacks"),
                .product(name: "StudyProgress", package: "AssetPacks"),
                .product(name: "StudyContent", package: "AssetPacks"),
                .product(name: "StudyEngine", package: "AssetPacks"),
                "CBenchSQLite",
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
