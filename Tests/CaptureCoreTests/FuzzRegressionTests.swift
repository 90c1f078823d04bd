import CaptureCore
import CaptureFuzzHarness
import Foundation
import Testing

/// The fast part of fuzzing (docs/fuzzing.md): every seed in `Fuzz/corpus/TARGET` and every input
/// a fuzz run found in `Fuzz/regressions/TARGET` goes through the same entry point as the libFuzzer
/// target, which checks the parser's invariants; a parser that traps would crash this test.
@Suite("Fuzz corpora and regressions")
struct FuzzRegressionTests {
    /// `<repo root>/Fuzz`; this file is `<repo root>/Tests/CaptureCoreTests/…`.
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
