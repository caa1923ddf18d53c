// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "AssetPacks",
    products: [
        .library(name: "AssetPack", targets: ["AssetPack"]),
        .library(name: "AssetLibrary", targets: ["AssetLibrary"]),
        .library(name: "StudyContent", targets: ["StudyContent"]),
        .executable(name: "packtool", targets: ["packtool"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/swiftcsv/SwiftCSV", from: "0.10.0"),
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
        .target(name: "AssetPack", dependencies: ["CAssetPackZlib"]),
        // Many packs as one store: priorities, locale chains and hot swap, image variants, a cache.
        .target(name: "AssetLibrary", dependencies: ["AssetPack"]),
        // Typed content: decks and question banks, decoded from a store, validated at build time.
        .target(name: "StudyContent", dependencies: ["AssetPack", "AssetLibrary", "SwiftCSV"]),
        .executableTarget(
            name: "packtool",
            dependencies: [
                "AssetPack", "AssetLibrary", "StudyContent",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(name: "AssetPackTests", dependencies: ["AssetPack", "CAssetPackZip", "CAssetPackZlib"]),
        .testTarget(name: "AssetLibraryTests", dependencies: ["AssetLibrary", "AssetPack"]),
        .testTarget(name: "StudyContentTests", dependencies: ["StudyContent", "AssetLibrary", "AssetPack"]),
        .testTarget(name: "PacktoolTests", dependencies: ["AssetPack", "packtool"]),
    ],
    swiftLanguageModes: [.v6]
)
