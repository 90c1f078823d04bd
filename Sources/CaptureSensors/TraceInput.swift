package import CaptureCore
package import CaptureGNSS
package import Foundation
import CaptureFormats
import Glibc
import SystemPackage

/// The formats `capture replay` reads, recognised by content rather than by file name.
package enum TraceInputFormat: String, Sendable, Equatable {
    /// The native trace (`#capture-trace v1`, docs/trace-format.md).
    case native
    /// A GNSS receiver's own output: NMEA 0183 sentences and/or u-blox UBX binary frames,
    /// interleaved or not, LF or CRLF, `#` comment lines and line noise allowed (gpsd test-log
    /// style). Read with ``GNSSReceiverStream``, as the `nmea:` live source does.
    case nmea
    /// gpsd JSON reports, one per line (`gpspipe -w`).
    case gpsdJSON = "gpsd-json"
    /// GPX 1.1 track, route or waypoint points with times.
    case gpx
    /// A GeoJSON FeatureCollection of LineStrings with per-point `coordinateProperties.times`,
    /// as capture's GeoJSON export writes it.
    case geojson
    /// capture's CSV locations table (`time_unix_ms,track,latitude_deg,…`).
    case csv
}

/// A trace file in any of the ``TraceInputFormat``s, read as native trace records.
///
/// Imported formats give fixes in file order: NMEA epochs assembled by UTC time, UBX epochs
/// merged by iTOW, gpsd TPVs merged per epoch, GPX points with a `<time>`. Points without a time
/// cannot be placed and are skipped. A u-blox dead-reckoning module's UBX-ESF-RAW / ESF-MEAS
/// messages also give accelerometer and gyroscope samples (see ``UBXSensorSamples``).
package struct TraceInput: Sendable {
    /// The file.
    package let path: String
    /// The detected format.
    package let format: TraceInputFormat

    /// Opens `path` and detects its format from its first ``headLength`` bytes. A native trace's
    /// header is validated as ``TraceFile/validateHeader()`` does.
    package init(path: String) throws(TraceFileError) {
        self.path = path
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .cannotOpen(path: path, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        var info = stat()
        if fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
            throw .cannotOpen(path: path, reason: "it is a directory")
        }
        var head = [UInt8](repeating: 0, count: Self.headLength)
        let count: Int
        do {
            count = try head.withUnsafeMutableBytes { try FileDescriptor(rawValue: fd).read(into: $0) }
        } catch {
            throw .readFailed(path: path, reason: "\(error)")
        }
        format = Self.detect(Data(head[0..<count]))
        if format == .native { try TraceFile(path: path).validateHeader() }
    }

    /// How much of a file ``detect(_:)`` looks at: 64 KiB, the first part of a receiver log
    /// whatever comes first (a comment header, gpsd's preamble, seconds of RTCM 3 corrections
    /// from a base station or timing receiver before its first UBX navigation message).
    package static let headLength = 65_536

    /// The format of a file starting with `head`. Anything unrecognised is taken as native, so
    /// that its error names the expected header.
    ///
    /// Looks past a byte-order mark, blank lines and `#` comment lines (LF, CRLF or CR). The
    /// first line after them decides for NMEA (`$`, `!`: a receiver stream, which may go on in
    /// UBX); `{` is gpsd JSON unless the head holds UBX or RTCM 3 frames, or NMEA sentences with
    /// good checksums and no gpsd report besides its session preamble (a `gpspipe -R` log:
    /// gpsd's VERSION, DEVICES and WATCH, then the receiver's own output; a `gpspipe -w -r` log
    /// has reports between the NMEA it echoes). A line of anything else (binary) is a receiver stream
    /// (``TraceInputFormat/nmea``) if the whole head holds a UBX frame, an RTCM 3 frame or an NMEA
    /// sentence with a good checksum: RTCM 3 and unknown binary are skipped and counted there.
    package static func detect(_ head: Data) -> TraceInputFormat {
        var bytes = [UInt8](head)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        let text = String(decoding: bytes.prefix(64), as: UTF8.self).drop { $0.isWhitespace }
        if text.hasPrefix(TraceFormat.magic) { return .native }
        if text.hasPrefix("<?xml") || text.hasPrefix("<gpx") { return .gpx }
        if text.hasPrefix("time_unix_ms,track,latitude_deg,") { return .csv }
        if text.hasPrefix("{"), String(decoding: bytes, as: UTF8.self).contains("\"FeatureCollection\"") { return .geojson }
        var start = 0
        while start < bytes.count {
            var end = start
            while end < bytes.count, bytes[end] != 0x0A, bytes[end] != 0x0D { end += 1 }
            var first = start
            while first < end, bytes[first] == 0x20 || bytes[first] == 0x09 { first += 1 }
            if first < end, bytes[first] != UInt8(ascii: "#") {
                switch bytes[first] {
                case UInt8(ascii: "{"):
                    // gpsd's JSON, unless the receiver's own output follows it (`gpspipe -R`
                    // logs begin with gpsd's VERSION, DEVICES and WATCH reports).
                    let output = receiverOutput(bytes[first...])
                    return output.frames > 0 || (output.sentences > 0 && !hasGPSDReports(bytes[first...])) ? .nmea : .gpsdJSON
                case UInt8(ascii: "$"), UInt8(ascii: "!"): return .nmea
                default:
                    let output = receiverOutput(bytes[first...])
                    return output.frames + output.sentences > 0 ? .nmea : .native
                }
            }
            start = end + 1
        }
        return .native
    }

    /// Whether `bytes` hold a gpsd JSON line of a class other than those gpsd starts a session
    /// with (VERSION, DEVICES, DEVICE, WATCH): a report (TPV, SKY, IMU, …) of a `gpspipe -w` log.
    static func hasGPSDReports(_ bytes: ArraySlice<UInt8>) -> Bool {
        let preamble: Set<Substring> = ["VERSION", "DEVICES", "DEVICE", "WATCH"]
        for line in bytes.split(whereSeparator: { $0 == 0x0A || $0 == 0x0D }) where line.first == UInt8(ascii: "{") {
            let text = String(decoding: line, as: UTF8.self)
            guard let key = text.range(of: "\"class\":\"") else { continue }
            let name = text[key.upperBound...].prefix { $0 != "\"" }
            if !preamble.contains(name) { return true }
        }
        return false
    }

    /// The whole UBX and RTCM 3 frames (matching checksums) and the NMEA sentences with
    /// matching checksums in `bytes`.
    static func receiverOutput(_ bytes: ArraySlice<UInt8>) -> (frames: Int, sentences: Int) {
        var splitter = UBXFrameSplitter()
        var text: [UInt8] = []
        for piece in splitter.push(bytes) {
            if case .text(let chunk) = piece { text += chunk }
        }
        var sentences = 0
        for line in text.split(whereSeparator: { $0 == 0x0A || $0 == 0x0D }) {
            guard let dollar = line.lastIndex(where: { $0 == UInt8(ascii: "$") || $0 == UInt8(ascii: "!") }) else { continue }
            let candidate = String(decoding: line[dollar...], as: UTF8.self)
            if (try? NMEASentence(validating: candidate[...], options: .init())) != nil { sentences += 1 }
        }
        return (splitter.stats.frames + splitter.stats.rtcm3Frames, sentences)
    }

    /// Calls `body` with each record and a 1-based position (line for native, record number
    /// otherwise).
    package func forEachRecord(_ body: (TraceRecord, Int) throws -> Void) throws {
        switch format {
        case .native:
            try TraceFile(path: path).forEachRecord(body)
            return
        case .nmea, .gpsdJSON, .gpx, .geojson, .csv:
            break
        }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw TraceFileError.readFailed(path: path, reason: "\(error.localizedDescription)")
        }
        switch format {
        case .nmea:
            // Fixes and, from UBX-ESF, motion samples, in stream order.
            var stream = GNSSReceiverStream()
            for (number, sample) in (stream.push(data) + stream.finish()).compactMap(\.sample).enumerated() {
                try body(.sample(sample), number + 1)
            }
            return
        case .gpsdJSON:
            // Fixes and, from IMU and ATT reports, motion samples, in stream order.
            var stream = GPSDStream()
            var events: [ReceiverEvent] = []
            for line in data.split(whereSeparator: { $0 == 0x0A || $0 == 0x0D }) {
                events += stream.line(String(decoding: line, as: UTF8.self))
            }
            events += stream.finish()
            for (number, sample) in events.compactMap(\.sample).enumerated() {
                try body(.sample(sample), number + 1)
            }
            return
        case .gpx:
            // capture's own GPX comes back as it went out: the track's <type> as the modality,
            // each <trkseg> as a track (a pause after a segment's last point, a resume before
            // the next one's first).
            let document = try Self.reading(path) { () throws(TraceError) in try GPXReader.read(data) }
            var number = 0
            if let first = document.fixes.first, let modality = document.modality {
                number += 1
                try body(.mark(.start(modality), at: first.fix.timestamp), number)
            }
            var previous: (fix: Fix, segment: Int, modality: Modality?)?
            var modality = document.modality
            for point in document.fixes {
                var resumed: Int64?
                if let previous, point.segment != previous.segment, point.fix.timestamp > previous.fix.timestamp {
                    let pause = previous.fix.timestamp + 1
                    number += 1
                    try body(.mark(.pause, at: pause), number)
                    resumed = max(pause, point.fix.timestamp - 1)
                    number += 1
                    try body(.mark(.resume, at: resumed!), number)
                }
                // capture's extension marks the point where the modality changed: at the resume
                // if it begins a track, else at the point itself.
                if let next = point.modality, next != modality, previous != nil {
                    number += 1
                    try body(.mark(.modality(next), at: resumed ?? point.fix.timestamp), number)
                    modality = next
                }
                number += 1
                try body(.sample(.fix(point.fix)), number)
                previous = point
            }
            return
        case .csv:
            // One track per `track` number (0, data in a pause gap, is left out); the modality
            // column gives the start mark and its changes.
            var number = 0
            var previous: (fix: Fix, track: Int)?
            var modality: Modality?
            let rows = try Self.reading(path) { () throws(TraceError) in try CSVLocationsReader.read(data) }
            for row in rows where row.track > 0 {
                if let last = previous, row.track != last.track {
                    let pause = last.fix.timestamp + 1
                    number += 1
                    try body(.mark(.pause, at: pause), number)
                    number += 1
                    try body(.mark(.resume, at: max(pause, row.fix.timestamp - 1)), number)
                }
                if let next = row.modality, next != modality {
                    number += 1
                    if previous == nil {
                        try body(.mark(.start(next), at: row.fix.timestamp), number)
                    } else {
                        let at = row.track != previous?.track ? max((previous?.fix.timestamp ?? 0) + 1, row.fix.timestamp - 1) : row.fix.timestamp
                        try body(.mark(.modality(next), at: at), number)
                    }
                    modality = next
                }
                number += 1
                try body(.sample(.fix(row.fix)), number)
                previous = (row.fix, row.track)
            }
            return
        case .geojson:
            // One track per feature (a pause after one's last point, a resume before the next
            // one's first), its `modality` property as the start mark or a modality change.
            var number = 0
            var previous: Fix?
            var modality: Modality?
            let features = try Self.reading(path) { () throws(TraceError) in try GeoJSONReader.read(data) }
            for feature in features {
                guard let first = feature.fixes.first else { continue }
                if let last = previous {
                    let pause = last.timestamp + 1
                    number += 1
                    try body(.mark(.pause, at: pause), number)
                    let resume = max(pause, first.timestamp - 1)
                    number += 1
                    try body(.mark(.resume, at: resume), number)
                    if let next = feature.modality, next != modality {
                        number += 1
                        try body(.mark(.modality(next), at: resume), number)
                        modality = next
                    }
                } else if let next = feature.modality {
                    number += 1
                    try body(.mark(.start(next), at: first.timestamp), number)
                    modality = next
                }
                for (index, fix) in feature.fixes.enumerated() {
                    // A change of modality inside the track, at the first point after it.
                    if let next = feature.modalities?[index], next != modality {
                        number += 1
                        try body(.mark(.modality(next), at: fix.timestamp), number)
                        modality = next
                    }
                    number += 1
                    try body(.sample(.fix(fix)), number)
                }
                previous = feature.fixes.last
            }
            return
        case .native:
            break
        }
    }

    /// What a reader of one of the formats in CaptureFormats gives, its error as this file's.
    private static func reading<T>(_ path: String, _ read: () throws(TraceError) -> T) throws(TraceFileError) -> T {
        do {
            return try read()
        } catch {
            throw .malformed(path: path, error)
        }
    }
}
