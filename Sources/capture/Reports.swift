import CaptureCore
import CaptureStorage
import Foundation

/// Per-kind sample counts as printed.
struct CountsReport: Codable, Equatable {
    var accelerometer: Int
    var gyroscope: Int
    var magnetometer: Int
    var pressure: Int
    var locations: Int

    init(_ counts: SampleCounts) {
        accelerometer = counts.accelerometer
        gyroscope = counts.gyroscope
        magnetometer = counts.magnetometer
        pressure = counts.pressure
        locations = counts.locations
    }
}

/// A measurement's upload state as printed by list, show and status.
struct UploadReport: Codable, Equatable {
    /// pending, uploading, uploaded, skipped or failed.
    var status: String
    var reason: String?
    /// Bytes the collector confirmed, and the transfer file's size.
    var acknowledged: Int64
    var totalLength: Int64?
    var uploadedAt: Int64?

    init(_ record: UploadRecord) {
        status = record.status.rawValue
        reason = record.reason
        acknowledged = record.acknowledged
        totalLength = record.totalLength
        uploadedAt = record.uploadedAt
    }

    /// `uploading 12/40 B`, `failed (why)`.
    var text: String {
        switch status {
        case "uploading": "uploading \(acknowledged)/\(totalLength ?? 0) B"
        case "skipped", "failed": status + (reason.map { " (\($0))" } ?? "")
        default: status
        }
    }
}

/// `capture show --json`.
struct MeasurementReport: Codable {
    struct Track: Codable {
        var number: Int
        var start: Int64
        var end: Int64?
        var modality: String
        var counts: CountsReport
        var distanceMeters: Double
    }

    struct EventReport: Codable {
        var timestamp: Int64
        var type: String
        var value: String?
    }

    var id: Int64
    var status: String
    var modality: String
    var start: Int64
    var end: Int64?
    var durationMs: Int64?
    var counts: CountsReport
    /// Geodesic distance over clean fixes, summed per track (pause gaps are not counted).
    var distanceMeters: Double
    var boundingBox: BoundingBox?
    var tracks: [Track]
    var events: [EventReport]
    /// Altitude from the barometer, when the measurement has pressure samples.
    var barometricAltitude: BarometricReport?
    var upload: UploadReport

    /// Altitude from pressure: relative to the first sample with the standard sea-level
    /// pressure (1013.25 hPa), or absolute with a QNH.
    struct BarometricReport: Codable {
        /// `relative` (metres above the first sample) or `absolute` (metres above sea level).
        var kind: String
        /// The sea-level pressure used, hPa.
        var seaLevelPressure: Double
        var firstPressure: Double
        var lastPressure: Double
        var start: Double
        var end: Double
        var min: Double
        var max: Double
        /// Sum of the rises of the altitude smoothed over 20 samples (the Cyface window).
        var climb: Double

        init?(_ samples: [PressureSample], qnh: Double?) {
            let p0 = qnh ?? BarometricAltitude.standardSeaLevelPressure
            let absolute = samples.compactMap { BarometricAltitude.altitude(pressure: $0.hectopascals, seaLevelPressure: p0) }
            guard let first = samples.first, let last = samples.last, let base = absolute.first else { return nil }
            let heights = qnh == nil ? absolute.map { $0 - base } : absolute
            kind = qnh == nil ? "relative" : "absolute"
            seaLevelPressure = p0
            firstPressure = first.hectopascals
            lastPressure = last.hectopascals
            start = MeasurementReport.millimetres(heights.first ?? 0)
            end = MeasurementReport.millimetres(heights.last ?? 0)
            min = MeasurementReport.millimetres(heights.min() ?? 0)
            max = MeasurementReport.millimetres(heights.max() ?? 0)
            let window = 20
            var smoothed: [Double] = []
            var sum = 0.0
            for (index, height) in heights.enumerated() {
                sum += height
                if index >= window { sum -= heights[index - window] }
                smoothed.append(sum / Double(Swift.min(index + 1, window)))
            }
            climb = MeasurementReport.millimetres(zip(smoothed, smoothed.dropFirst()).reduce(0) { $0 + Swift.max(0, $1.1 - $1.0) })
        }
    }

    init(store: Store, id: Int64, qnh: Double? = nil) throws {
        let record = try store.measurement(id)
        let events = try store.events(of: id)
        self.id = id
        status = record.status.rawValue
        modality = record.modality
        start = record.startTime
        end = record.endTime
        durationMs = record.endTime.map { $0 - record.startTime }
        upload = UploadReport(try store.upload(of: id))
        counts = CountsReport(try store.counts(of: id))
        self.events = events.map { EventReport(timestamp: $0.timestamp, type: $0.type.name, value: $0.value) }
        var tracks: [Track] = []
        var total = 0.0
        for track in try store.tracks(of: id) {
            let fixes = try store.fixes(of: id, track: track.number)
            let distance = Geodesy.trackDistance(fixes)
            total += distance
            let modalityAtStart = events.last {
                $0.type == .modalityTypeChange && $0.timestamp <= track.startTime
            }?.value ?? record.modality
            tracks.append(
                Track(
                    number: track.number, start: track.startTime, end: track.endTime, modality: modalityAtStart,
                    counts: CountsReport(try store.counts(of: id, track: track.number)),
                    distanceMeters: Self.millimetres(distance)))
        }
        self.tracks = tracks
        barometricAltitude = BarometricReport(try store.pressures(of: id), qnh: qnh)
        distanceMeters = Self.millimetres(total)
        boundingBox = Geodesy.boundingBox(try store.fixes(of: id)).map {
            BoundingBox(
                minLatitude: Self.micro($0.minLatitude), maxLatitude: Self.micro($0.maxLatitude),
                minLongitude: Self.micro($0.minLongitude), maxLongitude: Self.micro($0.maxLongitude))
        }
    }

    /// Rounds to millimetres, so that golden files do not depend on the last bits of a Double.
    static func millimetres(_ metres: Double) -> Double { (metres * 1000).rounded() / 1000 }
    /// Rounds to 1e-7 degrees (about 1 cm).
    static func micro(_ degrees: Double) -> Double { (degrees * 1e7).rounded() / 1e7 }

    /// The human-readable form.
    var text: String {
        var lines: [String] = []
        let span = durationMs.map { " (\(Format.duration($0)))" } ?? ""
        lines.append("measurement \(id): \(status), \(modality), \(tracks.count) track(s)")
        lines.append("  time      \(Format.time(start)) → \(end.map(Format.time) ?? "open")\(span)")
        lines.append("  distance  \(Format.distance(distanceMeters)) over clean fixes")
        if let box = boundingBox {
            lines.append(
                "  area      lat \(box.minLatitude)…\(box.maxLatitude), lon \(box.minLongitude)…\(box.maxLongitude)")
        }
        lines.append("  samples   " + Format.counts(counts))
        if let baro = barometricAltitude {
            let what = baro.kind == "relative" ? "from first sample, p0 \(baro.seaLevelPressure) hPa" : "QNH \(baro.seaLevelPressure) hPa"
            lines.append(
                "  altitude  barometric (\(what)): \(baro.start) → \(baro.end) m, range \(baro.min)…\(baro.max) m, climb \(baro.climb) m")
        }
        lines.append("  upload    " + upload.text)
        for track in tracks {
            lines.append(
                "  track \(track.number)   \(Format.time(track.start)) → \(track.end.map(Format.time) ?? "open"), "
                    + "\(track.modality), \(Format.distance(track.distanceMeters)), \(track.counts.locations) fixes")
        }
        lines.append("  events")
        for event in events {
            lines.append("    \(Format.time(event.timestamp))  \(event.type)\(event.value.map { " \($0)" } ?? "")")
        }
        return lines.joined(separator: "\n")
    }
}

/// One line of `capture list`.
struct ListEntry: Codable {
    var id: Int64
    var status: String
    var modality: String
    var start: Int64
    var end: Int64?
    var tracks: Int
    var counts: CountsReport
    var upload: UploadReport

    init(store: Store, record: MeasurementRecord, interrupted: Bool, upload: UploadRecord) throws {
        id = record.id
        status = interrupted ? "interrupted" : record.status.rawValue
        modality = record.modality
        start = record.startTime
        end = record.endTime
        tracks = record.trackCount
        counts = CountsReport(try store.counts(of: record.id))
        self.upload = UploadReport(upload)
    }
}

/// Text formatting shared by the commands.
enum Format {
    static func time(_ ms: Int64) -> String {
        let date = Date(timeIntervalSince1970: Double(ms) / 1000)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        return formatter.string(from: date) + "Z"
    }

    static func duration(_ ms: Int64) -> String {
        let seconds = ms / 1000
        return String(format: "%d:%02d:%02d", seconds / 3600, seconds / 60 % 60, seconds % 60)
    }

    static func distance(_ metres: Double) -> String {
        metres >= 1000 ? String(format: "%.2f km", metres / 1000) : String(format: "%.0f m", metres)
    }

    static func counts(_ counts: CountsReport) -> String {
        "acc \(counts.accelerometer), gyr \(counts.gyroscope), mag \(counts.magnetometer), "
            + "prs \(counts.pressure), fixes \(counts.locations)"
    }
}
