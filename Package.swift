// swift-tools-version:6.1
//
// capture: record sensor rides into SQLite and upload them to a Cyface collector.
//
// Copyright 2026 capture developers
// Licensed under the Apache License, Version 2.0 (the "License"); you may not use this file
// except in compliance with the License. You may obtain a copy of the License in LICENSE or at
// http://www.apache.org/licenses/LICENSE-2.0. Unless required by applicable law or agreed to in
// writing, software distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
// WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the License for the
// specific language governing permissions and limitations under the License.
// SPDX-License-Identifier: Apache-2.0

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
        .library(name: "CaptureUpload", targets: ["CaptureUpload"]),
        .library(name: "CaptureCollector", targets: ["CaptureCollector"]),
        // The bodies of the fuzz targets, for the libFuzzer package in Fuzz/ (docs/fuzzing.md).
        .library(name: "CaptureFuzzHarness", targets: ["CaptureFuzzHarness"]),
        .executable(name: "capture-collector", targets: ["capture-collector"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-protobuf", from: "1.39.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        // The collector's JWT bearer tokens (RS256 against a JWKS) and its test issuer's signing.
        .package(url: "https://github.com/vapor/jwt-kit", from: "5.8.0"),
        // The collector's `Authorization: Bearer` parsing.
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // Already in the graph through Hummingbird; named here for the collector's fault-injection
        // channel handler, which sees HTTP parts as HTTPTypes values.
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        // FileDescriptor: read/write with EINTR and short writes handled once, for Storage and Sensors.
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        // The configuration file (docs/configuration.md): typed values through swift-configuration's
        // YAML snapshot; Yams (which that trait uses) for what the snapshot cannot do: list the
        // keys a file holds (unknown keys are errors), lists of mappings (privacy.zones), lines.
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0", traits: ["YAML"]),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        // `capture metrics`: the Prometheus text format written by a library, not by hand.
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
    ],
    targets: [
        // Pure core: the domain (samples, lifecycle, recording engine, clocks, trace format,
        // units, geodesy, settings as stages read them). No I/O of its own.
        .target(name: "CaptureCore", swiftSettings: strict),
        // The GNSS receivers' protocols: NMEA 0183, u-blox UBX, gpsd's JSON. Pure parsers.
        .target(name: "CaptureGNSS", dependencies: ["CaptureCore"], swiftSettings: strict),
        // Linux IIO: sysfs attributes, channel scan layouts, buffer decoding. Pure parsers.
        .target(name: "CaptureIIO", dependencies: ["CaptureCore"], swiftSettings: strict),
        // The Cyface transfer format (protocol notes §1), written and read by hand over the
        // system zlib.
        .target(name: "CaptureTransfer", dependencies: ["CaptureCore", "CZlib"], swiftSettings: strict),
        // The fuzz targets' bodies: drive the parsers and check their invariants. Fuzz/ wraps them
        // in libFuzzer executables; FuzzRegressionTests replays the corpora through them.
        .target(name: "CaptureFuzzHarness", dependencies: ["CaptureCore", "CaptureGNSS", "CaptureTransfer"], swiftSettings: strict),
        // System zlib (raw deflate for Cyface transfer files).
        .systemLibrary(
            name: "CZlib", path: "Sources/CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // glibc's <sys/timex.h> (adjtimex), which the Glibc module leaves out: `capture doctor --system`.
        .systemLibrary(name: "CTimex", path: "Sources/CTimex"),
        // SQLite store (GRDB over the system libsqlite3).
        .target(
            name: "CaptureStorage",
            dependencies: [
                "CaptureCore", "CaptureTransfer", "CZlib", .product(name: "GRDB", package: "GRDB.swift"),
                // SQLite's C API, for the commit path's inserts (DirectStatement).
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: strict),
        // The file formats capture writes and reads back, one folder each (GPX, GeoJSON, CSV):
        // the exports' writers beside `capture replay`'s readers. Pure: values in, text out, and
        // back (Foundation's XMLParser and JSONSerialization); no I/O.
        .target(name: "CaptureFormats", dependencies: ["CaptureCore"], swiftSettings: strict),
        // Sources of samples: recorded traces, Linux IIO devices, gpsd and NMEA receivers.
        .target(
            name: "CaptureSensors",
            dependencies: [
                "CaptureCore", "CaptureGNSS", "CaptureIIO", "CaptureFormats", "CTimex",
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: strict),
        // The recorder process: sources → recording engine → store, driven over a local socket.
        .target(
            name: "CaptureRecorder",
            dependencies: [
                "CaptureCore", "CaptureStorage", "CaptureSensors", .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),
        // Resumable upload to a Cyface collector: a pure state machine, the metadata, and an
        // HTTP driver over AsyncHTTPClient.
        .target(
            name: "CaptureUpload",
            dependencies: [
                "CaptureCore", "CaptureTransfer", "CaptureStorage", .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                // NIOConnectionError: what a failed connection attempt throws (ConnectionProblem).
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            swiftSettings: strict),
        // `capture doctor`'s checks: the configuration, the data directory, the store, the
        // sources, the collector. Above every stage library, since it asks each of them.
        .target(
            name: "CaptureDoctor",
            dependencies: [
                "CaptureCore", "CaptureStorage", "CaptureSensors", "CaptureRecorder", "CaptureUpload", "CaptureConfig",
                "CaptureWiring", "CaptureWeb", .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: strict),
        .testTarget(
            name: "CaptureDoctorTests",
            dependencies: [
                "CaptureCore", "CaptureStorage", "CaptureConfig", "CaptureWiring", "CaptureUpload", "CaptureDoctor",
                "CaptureCollector", "CaptureSensors", "CaptureWeb",
                "CaptureTestSupport", .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Hummingbird", package: "hummingbird"),
            ],
            swiftSettings: strict),
        // A Cyface collector of our own (§2 of the protocol) on Hummingbird, with a fault plan for tests.
        .target(
            name: "CaptureCollector",
            dependencies: [
                "CaptureCore", "CaptureTransfer", .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),
        .executableTarget(
            name: "capture-collector",
            dependencies: [
                "CaptureCollector",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),
        // Exports of a stored measurement (GPX, GeoJSON, CSV, Cyface) behind one exporter
        // abstraction and a registry; its tests run in-process against a temporary store.
        // GeoPackage (an SQLite file) through the GRDB the store already uses.
        .target(
            name: "CaptureExport",
            dependencies: ["CaptureCore", "CaptureFormats", "CaptureStorage", .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: strict),
        // Road surface quality: gravity-aligned vertical acceleration, distance windows, mergeable
        // statistics, classes per modality, the grid of many rides, and their GIS outputs.
        .target(
            name: "CaptureSurface", dependencies: ["CaptureCore", "CaptureFormats", "CaptureStorage", "CaptureExport"],
            swiftSettings: strict),
        .testTarget(
            name: "CaptureSurfaceTests",
            dependencies: ["CaptureCore", "CaptureStorage", "CaptureExport", "CaptureSurface", "CaptureRecorder", "CaptureTestSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "CaptureExportTests",
            dependencies: [
                "CaptureCore", "CaptureTransfer", "CaptureStorage", "CaptureExport", "CaptureFormats", "CaptureRecorder",
                "CaptureTestSupport",
            ],
            swiftSettings: strict),
        // The configuration file and the layered device settings (flags > environment > file >
        // upload.json > defaults), with where each value came from: the key table, one YAML
        // parse, `capture config`'s report. It knows no stage: each stage reads its own keys
        // (CaptureCore's SettingsReader), and CaptureWiring hands them over.
        .target(
            name: "CaptureConfig",
            dependencies: [
                "CaptureCore",
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "Yams", package: "Yams"),
            ],
            swiftSettings: strict),
        // The composition root, above the stages and below the front ends: which settings go to
        // which stage, the recorder's whole configuration, the automatic delivery, the logging.
        .target(
            name: "CaptureWiring",
            dependencies: [
                "CaptureCore", "CaptureConfig", "CaptureStorage", "CaptureSensors", "CaptureRecorder", "CaptureUpload",
                "CaptureSurface", "CaptureWeb", .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),
        // `capture serve`: the page on the phone and its JSON API, on Hummingbird. A front end: it
        // makes its own words (HTML) from the values the command line prints.
        .target(
            name: "CaptureWeb",
            dependencies: [
                "CaptureCore", "CaptureStorage", "CaptureRecorder", "CaptureExport", "CaptureSurface",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict),
        .testTarget(
            name: "CaptureWebTests",
            dependencies: [
                "CaptureCore", "CaptureStorage", "CaptureRecorder", "CaptureSurface", "CaptureWeb", "CaptureTestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ],
            swiftSettings: strict),
        .testTarget(
            name: "CaptureConfigTests",
            dependencies: [
                "CaptureCore", "CaptureStorage", "CaptureUpload", "CaptureSurface", "CaptureSensors", "CaptureRecorder",
                "CaptureConfig", "CaptureWiring", "CaptureTestSupport",
            ],
            swiftSettings: strict),
        .executableTarget(
            name: "capture",
            dependencies: [
                "CaptureCore", "CaptureStorage", "CaptureSensors", "CaptureRecorder", "CaptureUpload", "CaptureExport",
                "CaptureConfig", "CaptureWiring", "CaptureDoctor", "CaptureSurface", "CaptureWeb",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),
        // The command line's own words: its lines, progress bar and log handler.
        .testTarget(
            name: "captureTests",
            dependencies: [
                "capture", "CaptureCore", "CaptureStorage", "CaptureRecorder", "CaptureSensors", "CaptureUpload", "CaptureConfig",
                "CaptureDoctor", "CaptureTestSupport",
            ],
            swiftSettings: strict),
        // The serialisation benchmark (scripts/bench-serialize); not a test.
        .executableTarget(
            name: "capture-bench", dependencies: ["CaptureCore", "CaptureTransfer", "CaptureStorage", "CZlib"], swiftSettings: strict),
        // The deterministic simulator of a box's whole life (docs/faults.md, "The simulated
        // life"): the real recorder state machine, store, flush log, upload state machine and
        // retention, one seed, a simulated clock, GNSS and collector, in one process.
        .target(
            name: "CaptureSimulation",
            dependencies: ["CaptureCore", "CaptureStorage", "CaptureSensors", "CaptureRecorder", "CaptureUpload"],
            swiftSettings: strict),
        .testTarget(name: "CaptureSimulationTests", dependencies: ["CaptureCore", "CaptureSimulation"], swiftSettings: strict),
        // The fault campaign (scripts/faults, docs/faults.md): kills the built `capture` and
        // `capture-collector` at random moments and checks what survives; not a test by itself.
        // `capture-faults simulate` runs the simulated lives.
        .executableTarget(
            name: "capture-faults",
            dependencies: [
                "CaptureCore", "CaptureTransfer", "CaptureStorage", "CaptureSensors", "CaptureRecorder", "CaptureSimulation",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict),
        // Test-only helpers shared by the test targets: one process runner, one fake sysfs, one
        // locator of the real receiver logs in ../shared/data, a simulated u-blox module.
        .target(
            name: "CaptureTestSupport", dependencies: ["CaptureCore", "CaptureGNSS", "CaptureStorage"], path: "Tests/CaptureTestSupport", swiftSettings: strict),
        // The SwiftProtobuf types generated from protos/ (scripts/gen-protos), test-only: the
        // production code writes and reads the format by hand; a test checks both agree.
        .target(
            name: "CyfaceSchema", dependencies: [.product(name: "SwiftProtobuf", package: "swift-protobuf")],
            path: "Tests/CyfaceSchema", swiftSettings: strict),
        // CaptureIIO: BarometerTests converts one pressure from IIO's kPa.
        .testTarget(name: "CaptureCoreTests", dependencies: ["CaptureCore", "CaptureIIO"], swiftSettings: strict),
        // CaptureIIO: NMEAEpochAssemblerTests.degenerateInputsDoNotTrap checks two IIO helpers too.
        .testTarget(
            name: "CaptureGNSSTests", dependencies: ["CaptureCore", "CaptureGNSS", "CaptureIIO", "CaptureTestSupport"],
            swiftSettings: strict),
        .testTarget(name: "CaptureIIOTests", dependencies: ["CaptureCore", "CaptureIIO"], swiftSettings: strict),
        .testTarget(
            name: "CaptureTransferTests", dependencies: ["CaptureCore", "CaptureTransfer", "CaptureTestSupport", "CyfaceSchema"],
            swiftSettings: strict),
        // FuzzRegressionTests: the fuzz corpora and regressions through the harness's entry points.
        .testTarget(
            name: "CaptureFuzzHarnessTests",
            dependencies: ["CaptureCore", "CaptureGNSS", "CaptureTransfer", "CaptureFuzzHarness"],
            swiftSettings: strict),
        .testTarget(
            name: "CaptureStorageTests",
            dependencies: [
                "CaptureCore", "CaptureTransfer", "CaptureStorage", "CaptureTestSupport", .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strict),
        .testTarget(
            name: "CaptureRecorderTests",
            dependencies: ["CaptureCore", "CaptureStorage", "CaptureRecorder", "CaptureTestSupport"],
            swiftSettings: strict),
        .testTarget(name: "CaptureFormatsTests", dependencies: ["CaptureCore", "CaptureFormats"], swiftSettings: strict),
        .testTarget(
            name: "CaptureSensorsTests", dependencies: ["CaptureCore", "CaptureGNSS", "CaptureIIO", "CaptureSensors", "CaptureTestSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "CaptureUploadTests",
            dependencies: [
                "CaptureCore", "CaptureTransfer", "CaptureStorage", "CaptureUpload", "CaptureCollector",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                // The errors ConnectionProblemTests words.
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: strict),
        // The collector's routes, in-process through HummingbirdTesting.
        .testTarget(
            name: "CaptureCollectorTests",
            dependencies: [
                "CaptureCore", "CaptureTransfer", "CaptureCollector",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: strict),
        .testTarget(
            name: "CaptureEndToEndTests",
            dependencies: ["CaptureCore", "CaptureTransfer", "CaptureStorage", "CaptureSensors", "CaptureRecorder", "CaptureTestSupport"],
            swiftSettings: strict),
    ]
)
