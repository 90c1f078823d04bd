// swift-tools-version:6.1
// Coverage-guided fuzz targets (libFuzzer) for capture's parsers. A package of its own, so that
// the main `swift build` and `swift test` never build these executables. Build and run them with
// `scripts/fuzz` (docs/fuzzing.md); they need `-sanitize=fuzzer`, which scripts/fuzz passes.
import PackageDescription

let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

/// One libFuzzer executable per target; each is a one-line wrapper around FuzzHarness.
let targets = ["fuzz-nmea", "fuzz-trace", "fuzz-transfer-file", "fuzz-gpsd"]

let package = Package(
    name: "capture-fuzz",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "capture", path: "..")],
    targets: targets.map { name in
        .executableTarget(
            name: name,
            dependencies: [.product(name: "CaptureFuzzHarness", package: "capture")],
            swiftSettings: strict)
    }
)
