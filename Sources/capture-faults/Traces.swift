import CaptureCore
import CaptureSensors
import Foundation

/// What a trace holds, as the live trace source plays it: every sample's time after the first
/// sample, in milliseconds, sorted. `capture start --source trace:FILE` re-bases the trace so
/// that its first sample happens when the source starts; a sample at offset `o` is delivered at
/// wall time `anchor + o`.
struct TraceTimeline {
    /// Sample offsets from the first sample, ms, ascending.
    let offsets: [Int64]

    init(path: String) throws {
        var offsets: [Int64] = []
        var first: Int64?
        try TraceFile(path: path).forEachRecord { record, _ in
            guard case .sample(let sample) = record else { return }
            let origin = first ?? sample.timestamp
            first = origin
            offsets.append(sample.timestamp - origin)
        }
        self.offsets = offsets.sorted()
    }

    /// The trace's samples at wall times, given the anchor (wall time of the first sample).
    func wallTimes(anchor: Int64) -> [Int64] { offsets.map { anchor + $0 } }
}

/// Counting samples by time in a sorted list of sample timestamps.
extension Array where Element == Int64 {
    /// How many timestamps are ≤ `time`.
    func count(atOrBefore time: Int64) -> Int {
        var low = 0
        var high = count
        while low < high {
            let middle = (low + high) / 2
            if self[middle] <= time { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// How many timestamps lie in (`from`, `to`].
    func count(after from: Int64, atOrBefore to: Int64) -> Int {
        to <= from ? 0 : count(atOrBefore: to) - count(atOrBefore: from)
    }
}

/// Writes derived traces from a recorded one: short windows (distinct short rides) and long
/// rides (the ride repeated, shifted in time). Only sample lines are taken over; the new trace
/// gets its own `start` and `stop`.
struct TraceText {
    /// Sample lines with their timestamps, in file order.
    private let lines: [(time: Int64, text: Substring)]
    let firstTime: Int64
    let lastTime: Int64

    init(path: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CampaignError("cannot read the trace \(path)")
        }
        let text = String(decoding: data, as: UTF8.self)
        var lines: [(Int64, Substring)] = []
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ", maxSplits: 2)
            guard fields.count == 3, ["acc", "gyr", "mag", "prs", "fix"].contains(fields[0]),
                let time = Int64(fields[1])
            else { continue }
            lines.append((time, line))
        }
        guard let first = lines.map(\.0).min(), let last = lines.map(\.0).max() else {
            throw CampaignError("the trace \(path) holds no samples")
        }
        self.lines = lines
        firstTime = first
        lastTime = last
    }

    /// The samples in [`from`, `from + length`) ms after the trace's first sample, as a ride of
    /// its own.
    func window(from: Int64, length: Int64, modality: String = "BICYCLE") -> String {
        let start = firstTime + from
        let end = start + length
        var out = TraceFormat.magic + "\nstart \(start) \(modality)\n"
        for line in lines where line.time >= start && line.time < end { out += line.text + "\n" }
        return out + "stop \(end)\n"
    }

    /// Like ``window(from:length:modality:)``, every time moved so that the ride starts at
    /// `start` (Unix ms).
    func window(from: Int64, length: Int64, shiftedTo start: Int64, modality: String = "BICYCLE") -> String {
        let first = firstTime + from
        let shift = start - first
        var out = TraceFormat.magic + "\nstart \(start) \(modality)\n"
        for line in lines where line.time >= first && line.time < first + length {
            let fields = line.text.split(separator: " ", maxSplits: 2)
            out += fields[0] + " " + String(line.time + shift) + " " + fields[2] + "\n"
        }
        return out + "stop \(start + length)\n"
    }

    /// The whole ride `copies` times in a row, each copy shifted past the previous one.
    func repeated(_ copies: Int, modality: String = "BICYCLE") -> String {
        let period = lastTime - firstTime + 1000
        var out = TraceFormat.magic + "\nstart \(firstTime) \(modality)\n"
        out.reserveCapacity(lines.count * copies * 48)
        for copy in 0..<copies {
            let shift = Int64(copy) * period
            for line in lines {
                if shift == 0 {
                    out += line.text
                } else {
                    let fields = line.text.split(separator: " ", maxSplits: 2)
                    out += fields[0] + " " + String(line.time + shift) + " " + fields[2]
                }
                out += "\n"
            }
        }
        return out + "stop \(lastTime + Int64(copies - 1) * period + 1)\n"
    }
}
