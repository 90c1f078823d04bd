// capture-faults: the bounded fault campaign of issue 6 (docs/faults.md).
//
//   capture-faults [--recorder-kills 50] [--upload-kills 20] [--measurements 100]
//                  [--fault-rate 0.3] [--power-cuts 500] [--week-days 7] [--month-days 30]
//                  [--seed N] [--trace fixtures/bicycle.trace]
//
// Drives the built `capture` and `capture-collector` (next to this executable) with posix_spawn,
// kills them at seeded random moments, checks what survives with CaptureStorage, prints one
// summary table and exits 1 if any check failed. scripts/faults runs it with the full counts;
// the end-to-end tests run it with small ones.

import ArgumentParser
import Foundation
import Glibc

@main
struct Faults: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "capture-faults",
        abstract: "The fault campaign (the default) and the simulated lives of a box.",
        subcommands: [Campaign.self, Simulate.self], defaultSubcommand: Campaign.self)
}

/// The campaign against the built binaries: `capture-faults [campaign] …`.
struct Campaign: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "campaign",
        abstract: "Run the fault campaign against the built capture and capture-collector; print one table.",
        discussion: """
            Campaigns: kill -9 of the recorder (trace and fake IIO sources, alternating), kill -9 \
            of capture upload against a throttled collector, power cuts (the states a cut can leave, \
            built from the journal of the powercut shim, scripts/powercut/powercut.c) during live \
            recording, around its lifecycle commands, the flush log's replay, an upload with its \
            serialisation, capture sync with pruning, a login refresh, import and attach, a full \
            store (--max-store-size), and \
            the collector's random fault plan over many measurements, and a simulated week of \
            rides with the timer's capture sync, the collector down half the time and a store \
            budget (under Debian's faketime), and a simulated month in the field (a box that \
            records rides by motion on a fake accelerometer and a pty receiver, its power cut \
            after every trip, each boot's clock off by hours or days, the collector down whole \
            days). Exit status 0 when every check passed, 1 otherwise (each failure is printed on \
            stderr as FAIL [campaign] …).
            """)

    @Option(help: "kill -9 of the recorder, alternating trace and fake IIO (0 skips).") var recorderKills = 50
    @Option(help: "kill -9 of capture upload (0 skips).") var uploadKills = 20
    @Option(help: "Measurements uploaded under the collector's fault plan (0 skips).") var measurements = 100
    @Option(help: "The collector's fault rate per PUT.") var faultRate = 0.3
    @Option(help: "Days of the simulated week of rides, collector down half the time, store on a budget (0 skips, else ≥ 3).")
    var weekDays = 7
    @Option(help: "Days of the simulated month in the field: rides by motion, power cuts, clocks off, collector down whole days (0 skips).")
    var monthDays = 30
    @Option(help: "The most trips a day of the month has (2 to 6; each day has 2 to this many).") var monthMostTrips = 6
    @Flag(inversion: .prefixedNo, help: "Run the full-disk campaign.") var fullDisk = true
    @Option(help: "Power cuts (crash states built from the powercut shim's journal; 0 skips).") var powerCuts = 500
    @Option(help: "The powercut shim's C source, built with cc.") var powercutSource = "scripts/powercut/powercut.c"
    @Option(help: "Seed of the random moments and faults (default: random, printed).") var seed: UInt64?
    @Option(help: "The native trace to capture from and derive rides from.") var trace = "fixtures/bicycle.trace"
    @Option(help: "The recorder's flush interval in seconds.") var flushInterval = 1.0
    @Option(help: "Milliseconds beyond one flush interval that a kill may lose (see docs/faults.md).")
    var allowance: Int64 = 250
    @Option(help: "The latest moment of a recorder kill after start, seconds.") var killWithin = 4.0
    @Option(help: "Copies of the trace in the long measurement of the upload campaign.") var rideCopies = 6
    @Option(help: "How long one upload run lasts at the collector's throttle, seconds.") var uploadSeconds = 3.0
    @Option(help: "The directory holding capture and capture-collector (default: this executable's).")
    var binaries: String?
    @Flag(help: "Keep the work directory.") var keep = false
    @Flag(help: "Print every command.") var verbose = false

    func validate() throws {
        guard recorderKills >= 0, uploadKills >= 0, measurements >= 0, weekDays >= 0, powerCuts >= 0 else {
            throw ValidationError("counts must be ≥ 0")
        }
        guard weekDays == 0 || weekDays >= Week.minimumDays else {
            throw ValidationError("--week-days: 0, or at least \(Week.minimumDays) (the store budget holds \(Week.budgetRides) rides)")
        }
        guard monthDays >= 0, (2...6).contains(monthMostTrips) else {
            throw ValidationError("--month-days ≥ 0, --month-most-trips 2 to 6")
        }
        guard (0...1).contains(faultRate) else { throw ValidationError("--fault-rate must be between 0 and 1") }
        guard (0.05...3600).contains(flushInterval) else { throw ValidationError("--flush-interval: 0.05 to 3600 s") }
        guard killWithin >= 1, rideCopies >= 1, uploadSeconds > 0.2 else {
            throw ValidationError("--kill-within ≥ 1, --ride-copies ≥ 1, --upload-seconds > 0.2")
        }
    }

    func run() throws {
        signal(SIGPIPE, SIG_IGN)  // the fake IIO writer learns of a killed recorder by EPIPE
        let folder =
            binaries
            ?? URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent().path
        for tool in ["capture", "capture-collector"] where access(folder + "/" + tool, X_OK) != 0 {
            throw ValidationError("\(folder)/\(tool) is not there: build it first (swift build)")
        }
        let tracePath = URL(fileURLWithPath: trace).standardizedFileURL.path
        guard access(tracePath, R_OK) == 0 else { throw ValidationError("cannot read the trace \(tracePath)") }
        let seed = self.seed ?? UInt64.random(in: 1...999_999)
        var template = Array("/tmp/capture-faults-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw ValidationError("cannot create a work directory") }
        let work = String(cString: made)
        let context = Context(binaries: folder, work: work, trace: tracePath, seed: seed, verbose: verbose)
        print("fault campaign: seed \(seed), trace \(trace), work directory \(work)")

        let began = Clock.now()
        var tallies: [Tally] = []
        func attempt(_ name: String, _ body: () throws -> [Tally]) {
            let start = Clock.now()
            do {
                let results = try body()
                tallies += results
                for tally in results {
                    FileHandle.standardError.write(
                        Data("\(tally.name): \(tally.runs) runs, \(tally.checks) checks, \(tally.failures.count) failed (\(format(Clock.now() - start)) s)\n".utf8))
                }
            } catch {
                let tally = Tally(name)
                tally.check(false, "the campaign could not run: \(error)")
                tallies.append(tally)
            }
        }
        if recorderKills > 0 {
            attempt("recorder kill -9") {
                try RecorderKills(context: context, flushInterval: flushInterval, allowance: allowance, longest: killWithin)
                    .run(count: recorderKills)
            }
        }
        if uploadKills > 0 {
            attempt("capture upload kill -9") {
                [try UploadKills(context: context, copies: rideCopies, uploadSeconds: uploadSeconds).run(count: uploadKills)]
            }
        }
        if powerCuts > 0 {
            attempt("power cut") {
                let shim = try PowerCuts.buildShim(source: URL(fileURLWithPath: powercutSource).standardizedFileURL.path, context: context)
                return try PowerCuts(context: context, shim: shim, flushInterval: flushInterval, allowance: allowance).run(cuts: powerCuts)
            }
        }
        if fullDisk { attempt("full disk") { [try FullDisk(context: context).run()] } }
        if weekDays > 0 { attempt("a simulated week") { [try Week(context: context, days: weekDays).run()] } }
        if monthDays > 0 {
            attempt("a simulated month") { [try Month(context: context, days: monthDays, mostTrips: monthMostTrips).run()] }
        }
        if measurements > 0 {
            attempt("collector faults") { [try CollectorFaults(context: context, rate: faultRate).run(measurements: measurements)] }
        }

        print("")
        print("| campaign | runs | checks | worst case vs allowed | result |")
        print("|---|---|---|---|---|")
        for tally in tallies {
            let result = tally.passed ? "pass" : "**FAIL** (\(tally.failures.count))"
            print("| \(tally.name) | \(tally.runs) | \(tally.checks) | \(tally.worst) | \(result) |")
        }
        let failed = tallies.filter { !$0.passed }
        print("")
        print(
            "\(failed.isEmpty ? "all campaigns passed" : "\(failed.count) campaign(s) FAILED") in \(Int(Clock.now() - began)) s "
                + "(seed \(seed); rerun with --seed \(seed))")
        if keep || !failed.isEmpty {
            print("work directory kept: \(work)")
        } else {
            try? FileManager.default.removeItem(atPath: work)
        }
        if !failed.isEmpty { throw ExitCode(1) }
    }
}
