import CaptureCore
import CaptureGNSS
import CaptureTransfer
import CaptureFuzzHarness
import Foundation
import Testing

/// The fast part of fuzzing (docs/fuzzing.md): every seed in `Fuzz/corpus/TARGET` and every input
/// a fuzz run found in `Fuzz/regressions/TARGET` goes through the same entry point as the libFuzzer
/// target, which checks the parser's invariants; a parser that traps would crash this test.
@Suite("Fuzz corpora and regressions")
struct FuzzRegressionTests {
    /// `<repo root>/Fuzz`; this file is `<repo root>/Tests/CaptureFuzzHarnessTests/…`.
    static let fuzzDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz")

    static func inputs(_ folder: String, _ target: FuzzHarness.Target) throws -> [(name: String, bytes: [UInt8])] {
        let directory = fuzzDirectory.appendingPathComponent(folder).appendingPathComponent(target.rawValue)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return [] }
        return try names.sorted().filter { !$0.hasPrefix(".") }.map { name in
            (name, Array(try Data(contentsOf: directory.appendingPathComponent(name))))
        }
    }

    @Test("seed corpus", arguments: FuzzHarness.Target.allCases)
    func seeds(_ target: FuzzHarness.Target) throws {
        let seeds = try Self.inputs("corpus", target)
        #expect(!seeds.isEmpty, "no seeds in Fuzz/corpus/\(target.rawValue)")
        for seed in seeds {
            #expect(FuzzHarness.run(target, seed.bytes) == [], "Fuzz/corpus/\(target.rawValue)/\(seed.name)")
        }
    }

    @Test("inputs found by fuzzing", arguments: FuzzHarness.Target.allCases)
    func regressions(_ target: FuzzHarness.Target) throws {
        for input in try Self.inputs("regressions", target) {
            #expect(FuzzHarness.run(target, input.bytes) == [], "Fuzz/regressions/\(target.rawValue)/\(input.name)")
        }
    }
}

/// What each input found by fuzzing now gives, stated precisely (docs/fuzzing.md, "Findings").
@Suite("Fuzz findings")
struct FuzzFindingTests {
    /// gpsd: a TPV with a longitude of -188.37 (a mutated seed) became a `Fix` out of range.
    @Test func gpsdCoordinatesOutOfRangeAreInvalid() {
        let tpv = #"{"class":"TPV","mode":3,"time":"2022-10-18T11:32:59.000Z","lat":32.6486,"lon":-188.3741}"#
        #expect(throws: GPSDParseError.invalidField(className: "TPV", field: "lon")) { try GPSDMessage(line: tpv) }
        #expect(throws: GPSDParseError.invalidField(className: "TPV", field: "lat")) {
            try GPSDMessage(line: #"{"class":"TPV","mode":2,"time":1260372305.5,"lat":-90.5,"lon":2}"#)
        }
        var stream = GPSDStream()
        #expect(stream.line(tpv) + stream.finish() == [])
        #expect(stream.stats.invalid == 1)
        // The limits themselves are valid.
        guard case .tpv(let edge) = try? GPSDMessage(line: #"{"class":"TPV","mode":2,"time":1,"lat":-90,"lon":180}"#)
        else { Issue.record("not a TPV"); return }
        #expect(edge.fix?.latitude == -90 && edge.fix?.longitude == 180)
    }

    /// gpsd: a JSON number that overflows a Double (`1e999`) is rejected with the line.
    @Test func gpsdOverflowingNumbersAreRejected() {
        #expect(throws: GPSDParseError.notJSON) {
            try GPSDMessage(line: #"{"class":"TPV","mode":3,"time":1,"lat":1,"lon":2,"altHAE":1e999}"#)
        }
    }

    /// Transfer file: a location column that is absent (here speed) decodes as unknown; the
    /// writer writes unknown as 0 (found by the round-trip check; the decoder was right).
    @Test func absentSpeedColumnDecodesAsUnknown() throws {
        let bytes: [UInt8] = [
            0x80, 0x01, 0x03, 0x8a, 0x01, 0x1b, 0x0a, 0x06, 0x80, 0xa4, 0x97, 0xd9, 0xd8, 0x67, 0x12, 0x04,
            0x82, 0x91, 0x8b, 0x32, 0x1a, 0x04, 0xb4, 0xac, 0xe4, 0x0c, 0x2a, 0x02, 0xd0, 0x05, 0x80, 0x01, 0x03,
        ]
        let file = try TransferFileDecoder.decode(bytes)
        #expect(file.fixes.count == 1)
        #expect(file.fixes.first?.speed == nil)
        #expect(file.fixes.first?.horizontalAccuracy == 3.6)
    }
}
