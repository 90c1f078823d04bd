/// Formats trace records as lines of the native trace format (see ``TraceFormat``).
///
/// Numbers are written in Swift's shortest round-trip form, so that parsing a written line gives
/// back exactly the same values.
public enum TraceWriter {
    /// The header line, with its line ending.
    public static var header: String { TraceFormat.magic + "\n" }

    /// One record as a line, with its line ending.
    public static func line(_ record: TraceRecord) -> String {
        switch record {
        case .sample(.motion(let sensor, let s)):
            return "\(sensor.shortName) \(s.timestamp) \(s.x) \(s.y) \(s.z)\n"
        case .sample(.pressure(let p)):
            return "prs \(p.timestamp) \(p.hectopascals)\n"
        case .sample(.fix(let f)):
            let optional = [f.altitude, f.horizontalAccuracy, f.verticalAccuracy, f.speed, f.course]
                .map { $0.map { "\($0)" } ?? "-" }.joined(separator: " ")
            guard f.hasQuality else { return "fix \(f.timestamp) \(f.latitude) \(f.longitude) \(optional)\n" }
            let quality = [f.satellites.map { "\($0)" }, f.hdop.map { "\($0)" }, f.vdop.map { "\($0)" }, f.pdop.map { "\($0)" }, f.mode?.spelling]
                .map { $0 ?? "-" }.joined(separator: " ")
            return "fix \(f.timestamp) \(f.latitude) \(f.longitude) \(optional) \(quality)\n"
        case .mark(.start(let modality), let time): return "start \(time) \(modality.rawValue)\n"
        case .mark(.modality(let modality), let time): return "modality \(time) \(modality.rawValue)\n"
        case .mark(.pause, let time): return "pause \(time)\n"
        case .mark(.resume, let time): return "resume \(time)\n"
        case .mark(.stop, let time): return "stop \(time)\n"
        }
    }
}
