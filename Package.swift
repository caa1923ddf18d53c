// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "AssetPacks",
    products: [
        .library(name: "AssetPack", targets: ["AssetPack"]),
        .executable(name: "packtool", targets: ["packtool"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2")
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
        .executableTarget(
            name: "packtool",
            dependencies: [
                "AssetPack",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(name: "AssetPackTests", dependencies: ["AssetPack", "CAssetPackZip", "CAssetPackZlib"]),
        .testTarget(name: "PacktoolTests", dependencies: ["AssetPack", "packtool"]),
    ],
    swiftLanguageModes: [.v6]
)
