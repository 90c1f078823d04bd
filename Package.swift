// swift-tools-version:6.1
import PackageDescription

/// Strict settings for every target: Swift 6 language mode, complete concurrency checking.
let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "capture",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "capture", targets: ["capture"]),
        .library(name: "CaptureCore", targets: ["CaptureCore"]),
        .library(name: "CaptureStorage", targets: ["CaptureStorage"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-protobuf", from: "1.39.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
    ],
    targets: [
        // Pure core: model, lifecycle, recording engine, trace format, units. No I/O of its own.
        // The Cyface transfer format uses generated SwiftProtobuf types and the system zlib.
        .target(
            name: "CaptureCore",
            dependencies: ["CZlib", .product(name: "SwiftProtobuf", package: "swift-protobuf")],
            swiftSettings: strict),
        // System zlib (raw deflate for Cyface transfer files).
        .systemLibrary(
            name: "CZlib", path: "Sources/CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // SQLite store (GRDB over the system libsqlite3).
        .target(
            name: "CaptureStorage",
            dependencies: [
                "CaptureCore", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strict),
        // Sources of samples: recorded traces, Linux IIO devices, gpsd and NMEA receivers.
        .target(name: "CaptureSensors", dependencies: ["CaptureCore"], swiftSettings: strict),
        // The recorder process: sources → recording engine → store, driven over a local socket.
        .target(
            name: "CaptureRecorder",
            dependencies: ["CaptureCore", "CaptureStorage", "CaptureSensors"],
            swiftSettings: strict),
        .executableTarget(
            name: "capture",
            dependencies: [
                "CaptureCore", "CaptureStorage", "CaptureSensors", "CaptureRecorder",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict),
        // The serialisation benchmark (scripts/bench-serialize); not a test.
        .executableTarget(
            name: "capture-bench", dependencies: ["CaptureCore", "CaptureStorage", "CZlib"], swiftSettings: strict),
        .testTarget(name: "CaptureCoreTests", dependencies: ["CaptureCore"], swiftSettings: strict),
        .testTarget(
            name: "CaptureStorageTests",
            dependencies: ["CaptureCore", "CaptureStorage", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strict),
        .testTarget(
            name: "CaptureRecorderTests", dependencies: ["CaptureCore", "CaptureStorage", "CaptureRecorder"],
            swiftSettings: strict),
        .testTarget(
            name: "CaptureSensorsTests", dependencies: ["CaptureCore", "CaptureSensors"], swiftSettings: strict),
        .testTarget(
            name: "CaptureEndToEndTests",
            dependencies: ["CaptureCore", "CaptureStorage"],
            swiftSettings: strict),
    ]
)
