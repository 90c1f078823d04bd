/// Why a `--source` spec cannot be used. Describes the fault; the command line adds advice.
package enum SourceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No registered kind is called like the spec's first word. `syntaxes` lists the known ones.
    case unknownKind(spec: String, syntaxes: [String])
    /// The kind is known but the spec does not follow `syntax` (a missing file name, say).
    case malformed(spec: String, syntax: String)
    /// `gpsd:HOST:PORT` with a port that is not a number.
    case badAddress(spec: String)
    /// `iio:…@HZ` with a rate that is not a number above 0 and at most 100 kHz.
    case badRate(spec: String)
    /// `iio:/path` that is not under a `…/sys/bus/iio/devices/` directory.
    case notADeviceDirectory(path: String)
    /// No IIO device `id` in `directory`.
    case noDevice(id: String, directory: String)
    /// The device has no channel this tool records.
    case notUseful(id: String, name: String)
    /// The device's attributes (scale, offset, scan type, mount matrix) cannot be used.
    case unreadableDevice(id: String, reason: String)
    /// No file or device node at `path`.
    case noReceiver(path: String)
    /// A trace that cannot be played (missing, unreadable, no trace header).
    case trace(TraceFileError)
    /// Nothing to capture from was found (no `--source` given).
    case nothingFound(sysfsRoot: String, gpsd: String)

    package var description: String {
        switch self {
        case .unknownKind(let spec, _): "unknown source '\(spec)'"
        case .malformed(let spec, let syntax): "bad source '\(spec)' (expected \(syntax))"
        case .badAddress(let spec): "bad gpsd address in '\(spec)'"
        case .badRate(let spec): "bad rate in '\(spec)'"
        case .notADeviceDirectory(let path): "'\(path)' is not an IIO device directory (…/sys/bus/iio/devices/iio:deviceN)"
        case .noDevice(let id, let directory): "no IIO device \(id) under \(directory)"
        case .notUseful(let id, let name): "\(id) (\(name)) has no accelerometer, gyroscope, magnetometer or pressure channel"
        case .unreadableDevice(let id, let reason): "\(id): \(reason)"
        case .noReceiver(let path): "no GNSS receiver at \(path)"
        case .trace(let error): error.description
        case .nothingFound(let root, let gpsd): "no sensors found (no IIO device under \(root), no gpsd at \(gpsd))"
        }
    }
}
