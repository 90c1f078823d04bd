import CaptureCore
import CaptureSensors
import Foundation
import Glibc

/// `--source` specifications, and finding sources when none is given.
///
/// * `trace:FILE` plays a recorded trace live-paced.
/// * `iio:iio:deviceN[@HZ]` captures from an IIO device under `--sysfs-root`
///   (`iio:/abs/sysfs/dir` names one under another root; with `@HZ` at its own rate). Source
///   names carry both, which is how the recorder gets the same capture back on `capture resume`.
/// * `gpsd[:HOST:PORT]` reads positions from gpsd (default 127.0.0.1:2947).
/// * `nmea:PATH` reads NMEA 0183 from a tty, pty, `/dev/gnss0` or a file.
enum SourceSpec {
    static let help = """
        A source: trace:FILE, iio:iio:deviceN[@HZ], gpsd[:HOST:PORT], nmea:PATH. Repeatable. Without \
        --source, every IIO sensor under --sysfs-root and gpsd (or a GNSS tty) that answers are used.
        """

    /// Options that shape device sources.
    struct Options {
        var sysfsRoot = "/"
        var rate: Double?
    }

    /// Makes a source from its spec, checking now what can be checked (the file and its header,
    /// the device directory and its calibration).
    static func make(_ spec: String, options: Options = Options()) throws -> any SampleSource {
        if spec.hasPrefix("trace:") {
            let path = absolute(String(spec.dropFirst("trace:".count)))
            try TraceFile(path: path).validateHeader()
            return LiveTraceSource(path: path)
        }
        if spec.hasPrefix("iio:") {
            return try iio(String(spec.dropFirst("iio:".count)), options: options)
        }
        if spec == "gpsd" { return GPSDSource() }
        if spec.hasPrefix("gpsd:") {
            guard let source = GPSDSource(address: String(spec.dropFirst("gpsd:".count))) else {
                throw CLIError(.usage, "bad gpsd address in '\(spec)'; use gpsd:HOST:PORT")
            }
            return source
        }
        if spec.hasPrefix("nmea:") {
            let path = absolute(String(spec.dropFirst("nmea:".count)))
            guard access(path, F_OK) == 0 else { throw CLIError(.notFound, "no GNSS receiver at \(path)") }
            return NMEASource(path: path)
        }
        throw CLIError(.usage, "unknown source '\(spec)'; use trace:FILE, iio:iio:deviceN, gpsd:HOST:PORT or nmea:PATH")
    }

    private static func iio(_ spec: String, options: Options) throws -> IIOSource {
        var options = options
        var value = spec
        // `iio:iio:device0@200`: a rate of its own (names given by the recorder carry it).
        if let at = spec.lastIndex(of: "@") {
            guard let rate = Double(spec[spec.index(after: at)...]), rate > 0, rate <= 100_000 else {
                throw CLIError(.usage, "bad rate in 'iio:\(spec)'; use iio:iio:deviceN@HZ")
            }
            options.rate = rate
            value = String(spec[..<at])
        }
        var root = options.sysfsRoot
        var id = value
        if value.hasPrefix("/") {
            let marker = "/sys/bus/iio/devices/"
            guard let range = value.range(of: marker, options: .backwards) else {
                throw CLIError(.usage, "'\(value)' is not an IIO device directory (…/sys/bus/iio/devices/iio:deviceN)")
            }
            root = String(value[..<range.lowerBound])
            if root.isEmpty { root = "/" }
            id = String(value[range.upperBound...])
        }
        guard let device = IIODiscovery.device(id: id, root: root) else {
            throw CLIError(.notFound, "no IIO device \(id) under \(IIODiscovery.devicesDirectory(root: root).path)")
        }
        guard device.isUseful else {
            throw CLIError(.usage, "\(id) (\(device.name)) has no accelerometer, gyroscope, magnetometer or pressure channel")
        }
        do {
            return try IIOSource(device: device, rate: options.rate)
        } catch {
            throw CLIError(.dataError, "\(id): \(error)")
        }
    }

    /// Sources found on this machine: every useful IIO device, then gpsd if it answers, else the
    /// first GNSS device node that exists. Each comes with one line saying what it is.
    static func discover(options: Options) -> [(spec: String, summary: String)] {
        var found: [(String, String)] = []
        for device in IIODiscovery.devices(root: options.sysfsRoot) where device.isUseful {
            guard let source = try? iio(device.id, options: options) else { continue }
            found.append((source.name, source.summary))
        }
        let gpsd = GPSDSource()
        if gpsd.isReachable() {
            found.append((gpsd.name, "gpsd answers at \(GPSDSource.defaultAddress)"))
        } else if let node = gnssNodes(root: options.sysfsRoot).first {
            found.append(("nmea:" + node, "NMEA receiver at \(node)"))
        }
        return found
    }

    /// GNSS device nodes that exist under `root`.
    static func gnssNodes(root: String) -> [String] {
        let dev = SysfsDirectory(path: IIODiscovery.join(root, "dev"))
        let names = dev.entries().filter { $0.hasPrefix("gnss") || $0.hasPrefix("ttyACM") || $0.hasPrefix("ttyUSB") }
        return names.map { dev.path + "/" + $0 }
    }

    /// The spec with a relative trace path made absolute.
    static func normalized(_ spec: String) -> String {
        spec.hasPrefix("trace:") ? "trace:" + absolute(String(spec.dropFirst("trace:".count))) : spec
    }

    static func absolute(_ path: String) -> String {
        URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
            .standardizedFileURL.path
    }
}
