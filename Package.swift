// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "AssetPacks",
    // The lowest versions the code needs: GRDB 7.10 (StudyProgress) requires macOS 10.15, iOS 13,
    // tvOS 13 and watchOS 7, and nothing in Sources/ or Tests/ needs more (PlatformAvailabilityTests
    // scans for APIs introduced later). Swift concurrency also starts at these versions.
    platforms: [.macOS(.v10_15), .iOS(.v13), .tvOS(.v13), .watchOS(.v7), .visionOS(.v1)],
    products: [
        .library(name: "AssetPack", targets: ["AssetPack"]),
        .library(name: "AssetLibrary", targets: ["AssetLibrary"]),
        .library(name: "PackTrust", targets: ["PackTrust"]),
        .library(name: "AssetDelivery", targets: ["AssetDelivery"]),
        .library(name: "StudyContent", targets: ["StudyContent"]),
        .library(name: "StudyEngine", targets: ["StudyEngine"]),
        .library(name: "StudyProgress", targets: ["StudyProgress"]),
        // Progress synced across a learner's devices through a folder or an S3-compatible store,
        // end-to-end encrypted (needs the StudyProgress trait, as StudyProgress does).
        .library(name: "StudySync", targets: ["StudySync"]),
        // Research equipment, not for apps: review-log evaluation, training, simulation (the study
        // tool and the benchmarks use it). It adds no package dependency beyond swift-system.
        .library(name: "StudyResearch", targets: ["StudyResearch"]),
        .executable(name: "packtool", targets: ["packtool"]),
        .executable(name: "study", targets: ["study"]),
        // Packing as a build step: every Packs/NAME/ folder of a target becomes NAME.pack.
        .plugin(name: "AssetPackPlugin", targets: ["AssetPackPlugin"]),
    ],
    // StudyProgress keeps progress in SQLite through GRDB. SwiftPM clones the dependencies of every
    // product a package offers, so GRDB sits behind this trait: an app that uses only the asset
    // libraries never resolves it; one that uses StudyProgress asks for the trait
    // (`.package(url: …, from: …, traits: ["StudyProgress"])`). This package's own scripts build
    // with `--traits StudyProgress`.
    traits: [
        .trait(name: "StudyProgress", description: "Progress and sessions in SQLite (GRDB): the StudyProgress library and the study tool.")
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        // The learner's progress: SQLite in WAL mode, a versioned schema (StudyProgress).
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        // SHA-256 of every entry (pack format 2) and Ed25519 signatures: CryptoKit on Apple
        // platforms, BoringSSL elsewhere.
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        // Documentation only: `swift package generate-documentation` (Scripts/docs).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // zlib: CRC-32 for every entry, inflate for deflated entries of foreign zips.
        .systemLibrary(
            name: "CAssetPackZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]
        ),
        // libzip: only the tests use it, as an independent reference reader.
        .systemLibrary(
            name: "CAssetPackZip",
            pkgConfig: "libzip",
            providers: [.apt(["libzip-dev"]), .brew(["libzip"])]
        ),
        // The shape every library error has, how the tools print any of them, and the one lock the
        // libraries share.
        .target(name: "ErrorReporting"),
        .target(
            name: "AssetPack",
            dependencies: [
                "CAssetPackZlib", "ErrorReporting", .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // Many packs as one store: priorities, locale chains and hot swap, image variants, a cache.
        .target(
            name: "AssetLibrary",
            dependencies: ["AssetPack", "ErrorReporting", .product(name: "SystemPackage", package: "swift-system")]
        ),
        // Packs you can trust after they leave the build: minisign keys and signatures, a signed
        // catalog of packs and the root of trust that signs it.
        .target(
            name: "PackTrust",
            dependencies: ["AssetPack", "ErrorReporting", .product(name: "Crypto", package: "swift-crypto")]
        ),
        // Packs delivered after install: a signed catalog's packs for the learner's locales, per-entry
        // deltas, resumable, swapped in atomically, over URLSession or any transport.
        .target(
            name: "AssetDelivery",
            dependencies: ["AssetPack", "AssetLibrary", "PackTrust", "ErrorReporting", .product(name: "Crypto", package: "swift-crypto")]
        ),
        // Typed content: decks and question banks, decoded from a store, validated at build time.
        .target(name: "StudyContent", dependencies: ["AssetPack", "AssetLibrary", "ErrorReporting"]),
        // What the two command-line tools share: text in columns.
        .target(name: "CommandLineSupport"),
        .executableTarget(
            name: "packtool",
            dependencies: [
                "AssetPack", "AssetLibrary", "PackTrust", "AssetDelivery", "StudyContent", "ErrorReporting", "CommandLineSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        .plugin(
            name: "AssetPackPlugin", capability: .buildTool(), dependencies: ["packtool"],
            path: "Sources/AssetPackPlugin"
        ),
        // What every test target shares: temporary folders, a process runner, seeded bytes.
        .target(name: "TestSupport", dependencies: ["AssetPack"], path: "Tests/TestSupport"),
        .testTarget(
            name: "AssetPackTests", dependencies: ["AssetPack", "TestSupport", "CAssetPackZip", "CAssetPackZlib", "packtool"]),
        .testTarget(name: "AssetLibraryTests", dependencies: ["AssetLibrary", "AssetPack", "TestSupport"]),
        .testTarget(name: "StudyContentTests", dependencies: ["StudyContent", "AssetLibrary", "AssetPack", "TestSupport"]),
        .testTarget(name: "PacktoolTests", dependencies: ["AssetPack", "TestSupport", "packtool"]),
        // Delivery: an origin in the process for the fast tier; nginx, a misbehaving Python origin
        // and SeaweedFS for the full tier.
        .testTarget(
            name: "AssetDeliveryTests", dependencies: ["AssetDelivery", "AssetLibrary", "AssetPack", "PackTrust", "TestSupport", "packtool"]),
        // Signatures, roots and catalogs; minisign itself as the oracle.
        .testTarget(name: "PackTrustTests", dependencies: ["PackTrust", "AssetPack", "TestSupport", "packtool"]),
        // The plugin, on a sample app package (Tests/Fixtures/PluginApp) built with swift build.
        .testTarget(name: "PluginTests", dependencies: ["AssetPack", "TestSupport"]),
        // The README's examples, through the public API only (no @testable import).
        .testTarget(
            name: "PublicAPITests",
            dependencies: [
                "AssetPack", "AssetLibrary", "PackTrust", "AssetDelivery", "StudyContent", "StudyEngine", "StudyResearch", "StudyProgress",
                "StudySync", "ErrorReporting", "TestSupport",
            ]
        ),
        // The study engine: the schedulers, behind one protocol; Foundation and ErrorReporting only.
        .target(name: "StudyEngine", dependencies: ["ErrorReporting"]),
        // Research equipment no app calls: review-log evaluation, training, simulation. A product
        // only so that the benchmarks' package can use it; the study CLI and the tests use it too.
        .target(name: "StudyResearch", dependencies: ["StudyEngine", "StudyContent", "ErrorReporting"]),
        // Progress and sessions: what the learner answered, kept in SQLite; today's queue drawn
        // from a deck or bank of the mounted packs.
        .target(
            name: "StudyProgress",
            dependencies: [
                "StudyEngine", "StudyContent", "ErrorReporting", .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "GRDB", package: "GRDB.swift", condition: .when(traits: ["StudyProgress"])),
            ]
        ),
        // The study tool's words in en, ru, zh-Hans and pa: an Xcode String Catalog, copied as it is
        // (Xcode would compile a processed one into .strings files, which Foundation on Linux does
        // not read), and the reader that interprets it with CLDR's plural rules on every platform.
        .target(
            name: "StudyStrings", dependencies: ["AssetPack", "AssetLibrary", "ErrorReporting"],
            resources: [.copy("Localizable.xcstrings")]),
        // Sync: the event log merged across devices through a folder or S3 (SigV4), sealed with the
        // learner's key (ChaCha20-Poly1305, HKDF from swift-crypto); zlib packs the segments.
        .target(
            name: "StudySync",
            dependencies: [
                "StudyProgress", "StudyEngine", "ErrorReporting", "CAssetPackZlib", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        .executableTarget(
            name: "study",
            dependencies: [
                "StudyEngine", "StudyResearch", "StudyProgress", "StudySync", "StudyContent", "StudyStrings", "AssetLibrary", "AssetPack",
                "ErrorReporting", "CommandLineSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(
            name: "StudyEngineTests",
            dependencies: ["StudyEngine", "study", "TestSupport"],
            exclude: ["fsrs_oracle.py"]
        ),
        // Review-log evaluation, training and simulation, on the real review log.
        .testTarget(
            name: "StudyResearchTests",
            dependencies: ["StudyResearch", "StudyEngine", "study", "TestSupport"],
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "StudyProgressTests",
            dependencies: [
                "StudyProgress", "StudyEngine", "StudyResearch", "StudyContent", "StudyStrings", "AssetPack", "study", "packtool",
                "TestSupport",
                .product(name: "GRDB", package: "GRDB.swift", condition: .when(traits: ["StudyProgress"])),
            ]
        ),
        .testTarget(
            name: "StudySyncTests",
            dependencies: [
                "StudySync", "StudyProgress", "StudyEngine", "StudyContent", "AssetPack", "ErrorReporting", "study", "TestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            exclude: ["Fixtures"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
