// capture-bench: the serialisation benchmark of issue 4 (not a timed test).
//
//   capture-bench [--hours 1] [--rss-hours 24] [--runs 5] [--dir DIR]
//
// (a) Builds a measurement of `--hours` of synthetic 100 Hz data (three sensors, 1 Hz fixes,
//     one flush per second, as the recorder commits them) and serialises it to its transfer file
//     `--runs` times (best run; alternating with the baseline); reports MB/s of uncompressed protobuf beside the baseline measured in the
//     same run: zlib alone raw-deflating the same uncompressed bytes at level 5. Target ≥ 70 %.
// (b) Builds a `--rss-hours` measurement and serialises it in a child process (this executable
//     again), which reports its peak RSS (VmHWM). Target < 64 MiB.
//
// scripts/bench-serialize builds it in release mode and runs it.

import CZlib
import CaptureCore
import CaptureTransfer
import CaptureStorage
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A small deterministic generator (xorshift64*), so every run measures the same data.
struct Noise {
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15

    mutating func next() -> Double {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        let value = state &* 0x2545_F491_4F6C_DD1D
        return Double(value >> 11) / Double(1 << 53) - 0.5
    }
}

/// CPU time (user + system) of this process in seconds: unlike wall time, it does not count the
/// time other processes on a shared machine take from us.
func cpuTime() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
        + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

func now() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
}

/// Peak resident set size of this process in KiB (VmHWM).
func peakRSSKiB() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return -1 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        return Int(line.split(whereSeparator: \.isWhitespace)[1]) ?? -1
    }
    return -1
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("capture-bench: \(message)\n".utf8))
    exit(1)
}

/// Records `hours` of synthetic riding: 100 Hz accelerometer, gyroscope and magnetometer, 1 Hz
/// fixes, one flush (one transaction, one batch row per sensor) per second.
func buildMeasurement(_ store: Store, hours: Double, start: Int64) throws -> Int64 {
    var engine = Recording()
    let id = try store.begin(try engine.apply(.start(.bicycle), at: start), sources: "bench")
    var noise = Noise()
    let seconds = Int(hours * 3600)
    var lat = 51.05
    var lon = 13.73
    for second in 0..<seconds {
        let base = start + Int64(second) * 1000
        for i in 0..<100 {
            let t = base + Int64(i) * 10
            let phase = Double(second * 100 + i) * 0.02
            _ = engine.ingest(
                .motion(
                    .accelerometer,
                    MotionSample(
                        timestamp: t, x: 0.4 * sin(phase) + 0.08 * noise.next(), y: 0.2 * cos(phase) + 0.08 * noise.next(),
                        z: 9.81 + 0.3 * sin(phase * 3) + 0.1 * noise.next())))
            _ = engine.ingest(
                .motion(
                    .gyroscope,
                    MotionSample(
                        timestamp: t, x: 0.05 * sin(phase) + 0.01 * noise.next(), y: 0.01 * noise.next(),
                        z: 0.1 * cos(phase / 7) + 0.01 * noise.next())))
            _ = engine.ingest(
                .motion(
                    .magnetometer,
                    MotionSample(
                        timestamp: t, x: 19 + 2 * sin(phase / 50) + 0.3 * noise.next(), y: 1.5 + 0.3 * noise.next(),
                        z: -45 + 0.3 * noise.next())))
        }
        lat += 0.00003 + 0.000002 * noise.next()
        lon += 0.00004 + 0.000002 * noise.next()
        _ = engine.ingest(
            .fix(
                Fix(
                    timestamp: base, latitude: lat, longitude: lon, altitude: 120 + 5 * noise.next(),
                    horizontalAccuracy: 4 + noise.next(), speed: 5 + noise.next())))
        try store.commit(engine.takeFlush(), to: id)
    }
    try store.commit(try engine.apply(.stop, at: start + Int64(seconds) * 1000), to: id)
    return id
}

/// Raw deflate at level 5 with zlib alone, output discarded; returns the compressed size.
func zlibOnly(_ input: [UInt8]) -> Int {
    var stream = z_stream()
    guard czlib_deflateInit2(&stream, 5, -15, 8, Z_DEFAULT_STRATEGY) == Z_OK else { fail("deflateInit2 failed") }
    defer { deflateEnd(&stream) }
    var output = [UInt8](repeating: 0, count: 1 << 16)
    var total = 0
    input.withUnsafeBufferPointer { inBuffer in
        var offset = 0
        while true {
            let chunk = min(1 << 16, inBuffer.count - offset)
            stream.next_in = UnsafeMutablePointer(mutating: inBuffer.baseAddress! + offset)
            stream.avail_in = UInt32(chunk)
            offset += chunk
            let flush = offset == inBuffer.count ? Z_FINISH : Z_NO_FLUSH
            repeat {
                output.withUnsafeMutableBufferPointer { out in
                    stream.next_out = out.baseAddress
                    stream.avail_out = UInt32(out.count)
                    _ = deflate(&stream, flush)
                    total += out.count - Int(stream.avail_out)
                }
            } while stream.avail_out == 0
            if flush == Z_FINISH { break }
        }
    }
    return total
}

/// Removes the cached transfer file so that the next call serialises again.
func dropCache(_ directory: String, _ id: Int64) {
    unlink("\(directory)/transfer/\(id).ccyf")
    unlink("\(directory)/transfer/\(id).ccyf.meta")
}

@main
enum Bench {
    static let arguments = CommandLine.arguments

    static func main() {
        // MARK: - Child: serialise and report the peak RSS

        if arguments.count == 4, arguments[1] == "child-serialize" {
            let directory = arguments[2]
            guard let id = Int64(arguments[3]) else { fail("bad id") }
            do {
                let store = try Store(directory: directory)
                let idle = peakRSSKiB()
                dropCache(directory, id)
                let began = now()
                let file = try store.transferFile(for: id, directory: directory)
                let seconds = now() - began
                print("idle_kib \(idle) peak_kib \(peakRSSKiB()) size \(file.size) seconds \(seconds)")
                exit(0)
            } catch {
                fail("\(error)")
            }
        }

        // MARK: - Parent

        func option(_ name: String, _ fallback: Double) -> Double {
            guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count, let value = Double(arguments[index + 1])
            else { return fallback }
            return value
        }

        let hours = option("--hours", 1)
        let rssHours = option("--rss-hours", 24)
        let runs = max(1, Int(option("--runs", 5)))
        let directory: String = {
            if let index = arguments.firstIndex(of: "--dir"), index + 1 < arguments.count { return arguments[index + 1] }
            return FileManager.default.temporaryDirectory.appendingPathComponent("capture-bench-\(getpid())").path
        }()
        let keep = arguments.contains("--dir")

        func runChild(directory: String, id: Int64) -> (idle: Int, peak: Int, size: Int64, seconds: Double) {
            let output = directory + "/child.out"
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? arguments[0]
            let command: [String] = [executable, "child-serialize", directory, String(id)]
            let argv: [UnsafeMutablePointer<CChar>?] = command.map { strdup($0) } + [nil]
            defer { argv.forEach { free($0) } }
            var pid: pid_t = 0
            guard posix_spawn(&pid, executable, &actions, nil, argv, environ) == 0 else { fail("cannot spawn \(executable)") }
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0, errno == EINTR {}
            guard status == 0, let text = try? String(contentsOfFile: output, encoding: .utf8) else { fail("the child failed") }
            let words = text.split(whereSeparator: \.isWhitespace).map(String.init)
            guard words.count == 8, let idle = Int(words[1]), let peak = Int(words[3]), let size = Int64(words[5]),
                let seconds = Double(words[7])
            else { fail("unexpected child output: \(text)") }
            return (idle, peak, size, seconds)
        }

        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let store = try Store(directory: directory, durability: .relaxed)

            // (a) Throughput.
            var began = now()
            let id = try buildMeasurement(store, hours: hours, start: 1_781_424_000_000)
            FileHandle.standardError.write(Data(String(format: "built %g h in %.1f s\n", hours, now() - began).utf8))
            // The first serialisation also yields the uncompressed bytes for the baseline; then the
            // two are timed alternately, so that both see the same load on a shared machine.
            dropCache(directory, id)
            var file = try store.transferFile(for: id, directory: directory)
            guard let compressed = FileManager.default.contents(atPath: file.path) else { fail("cannot read \(file.path)") }
            let plain = try TransferFileDecoder.decompress([UInt8](compressed)).1
            var serializeBest = Double.infinity
            var zlibBest = Double.infinity
            var serializeCPU = Double.infinity
            var zlibCPU = Double.infinity
            var zlibSize = 0
            for _ in 0..<runs {
                dropCache(directory, id)
                began = now()
                var cpu = cpuTime()
                file = try store.transferFile(for: id, directory: directory)
                serializeBest = min(serializeBest, now() - began)
                serializeCPU = min(serializeCPU, cpuTime() - cpu)
                began = now()
                cpu = cpuTime()
                zlibSize = zlibOnly(plain)
                zlibBest = min(zlibBest, now() - began)
                zlibCPU = min(zlibCPU, cpuTime() - cpu)
            }
            // A cached call: the snapshot and fingerprint only, without serialising.
            var cachedBest = Double.infinity
            for _ in 0..<runs {
                began = now()
                _ = try store.transferFile(for: id, directory: directory)
                cachedBest = min(cachedBest, now() - began)
            }
            let megabytes = Double(plain.count) / 1e6
            let serializeRate = megabytes / serializeBest
            let zlibRate = megabytes / zlibBest
            let ratio = serializeRate / zlibRate

            // (b) Peak RSS of a long measurement, in a child process.
            began = now()
            let longID = try buildMeasurement(store, hours: rssHours, start: 1_790_000_000_000)
            FileHandle.standardError.write(Data(String(format: "built %g h in %.1f s\n", rssHours, now() - began).utf8))
            let child = runChild(directory: directory, id: longID)
            let peakMiB = Double(child.peak) / 1024

            func row(_ cells: [String]) -> String {
                zip(cells, [38, 16, 22, 8, 10, 6]).map { $0.0.padding(toLength: $0.1, withPad: " ", startingAt: 0) }.joined()
            }
            print(
                String(
                    format: "%g h: %.1f MB uncompressed → %.2f MB (%.2f MB by zlib alone); best of %d runs: %.3f s (zlib %.3f s; a cached call %.3f s)",
                    hours, megabytes, Double(file.size) / 1e6, Double(zlibSize) / 1e6, runs, serializeBest, zlibBest, cachedBest))
            print(
                String(
                    format: "%g h: %.2f MB transfer file in %.1f s; peak RSS %.1f MiB (%.1f MiB after opening the store)", rssHours,
                    Double(child.size) / 1e6, child.seconds, peakMiB, Double(child.idle) / 1024))
            print(row(["figure", "value", "baseline", "ratio", "target", "result"]))
            print(
                row([
                    String(format: "serialise %g h, MB/s uncompressed", hours), String(format: "%.1f MB/s", serializeRate),
                    String(format: "%.1f MB/s zlib-5", zlibRate), String(format: "%.0f %%", ratio * 100), "≥ 70 %",
                    ratio >= 0.7 ? "pass" : "FAIL",
                ]))
            print(
                row([
                    String(format: "  same, by CPU time (no I/O wait)"), String(format: "%.1f MB/s", megabytes / serializeCPU),
                    String(format: "%.1f MB/s zlib-5", megabytes / zlibCPU), String(format: "%.0f %%", zlibCPU / serializeCPU * 100),
                    "(info)", "",
                ]))
            print(
                row([
                    String(format: "serialise %g h, peak RSS", rssHours), String(format: "%.1f MiB", peakMiB),
                    String(format: "%.1f MiB idle", Double(child.idle) / 1024), "-", "< 64 MiB", peakMiB < 64 ? "pass" : "FAIL",
                ]))
            // For scripts/bench: one tab-separated row per figure (figure, value, baseline, ratio, target, result).
            if let path = ProcessInfo.processInfo.environment["BENCH_ROWS"], let rows = FileHandle(forWritingAtPath: path) {
                let lines = [
                    [
                        String(format: "serialise %g h, uncompressed MB/s", hours), String(format: "%.1f MB/s", serializeRate),
                        String(format: "%.1f MB/s zlib-5", zlibRate), String(format: "%.0f %%", ratio * 100), ">= 70 %",
                        ratio >= 0.7 ? "pass" : "FAIL",
                    ],
                    [
                        String(format: "serialise %g h, peak RSS", rssHours), String(format: "%.1f MiB", peakMiB),
                        String(format: "%.1f MiB idle", Double(child.idle) / 1024), "-", "< 64 MiB", peakMiB < 64 ? "pass" : "FAIL",
                    ],
                ]
                rows.seekToEndOfFile()
                rows.write(Data(lines.map { $0.joined(separator: "\t") + "\n" }.joined().utf8))
                rows.closeFile()
            }
        } catch {
            fail("\(error)")
        }
        if !keep { try? FileManager.default.removeItem(atPath: directory) }
    }
}
