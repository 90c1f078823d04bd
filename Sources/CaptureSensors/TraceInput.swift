public import CaptureCore
public import Foundation
import Glibc
import SystemPackage
#if canImport(FoundationXML)
import FoundationXML
#endif

/// The formats `capture replay` reads, recognised by content rather than by file name.
public enum TraceInputFormat: String, Sendable, Equatable {
    /// The native trace (`#capture-trace v1`, docs/trace-format.md).
    case native
    /// NMEA 0183 sentences, one per line, `#` comment lines allowed (gpsd test-log style).
    case nmea
    /// gpsd JSON reports, one per line (`gpspipe -w`).
    case gpsdJSON = "gpsd-json"
    /// GPX 1.1 track, route or waypoint points with times.
    case gpx
}

/// A trace file in any of the ``TraceInputFormat``s, read as native trace records.
///
/// Imported formats give only fixes, in file order: NMEA epochs assembled by UTC time, gpsd TPVs
/// merged per epoch, GPX points with a `<time>`. Points without a time cannot be placed and are
/// skipped.
public struct TraceInput: Sendable {
    /// The file.
    public let path: String
    /// The detected format.
    public let format: TraceInputFormat

    /// Opens `path` and detects its format from its first bytes. A native trace's header is
    /// validated as ``TraceFile/validateHeader()`` does.
    public init(path: String) throws(TraceFileError) {
        self.path = path
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .cannotOpen(path: path, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        var info = stat()
        if fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
            throw .cannotOpen(path: path, reason: "it is a directory")
        }
        var head = [UInt8](repeating: 0, count: 4096)
        let count: Int
        do {
            count = try head.withUnsafeMutableBytes { try FileDescriptor(rawValue: fd).read(into: $0) }
        } catch {
            throw .readFailed(path: path, reason: "\(error)")
        }
        format = Self.detect(Data(head[0..<count]))
        if format == .native { try TraceFile(path: path).validateHeader() }
    }

    /// The format of a file starting with `head`. Anything unrecognised is taken as native, so
    /// that its error names the expected header.
    public static func detect(_ head: Data) -> TraceInputFormat {
        var text = String(decoding: head, as: UTF8.self)
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
        let trimmed = text.drop { $0.isWhitespace }
        if trimmed.hasPrefix(TraceFormat.magic) { return .native }
        if trimmed.hasPrefix("<?xml") || trimmed.hasPrefix("<gpx") { return .gpx }
        for line in trimmed.split(whereSeparator: { $0 == "\n" || $0 == "\r" }) {
            let content = line.drop { $0 == " " || $0 == "\t" }
            if content.isEmpty || content.hasPrefix("#") { continue }
            if content.hasPrefix("{") { return .gpsdJSON }
            if content.hasPrefix("$") || content.hasPrefix("!") { return .nmea }
            return .native
        }
        return .native
    }

    /// Calls `body` with each record and a 1-based position (line for native, record number
    /// otherwise).
    public func forEachRecord(_ body: (TraceRecord, Int) throws -> Void) throws {
        switch format {
        case .native:
            try TraceFile(path: path).forEachRecord(body)
            return
        case .nmea, .gpsdJSON, .gpx:
            break
        }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw TraceFileError.readFailed(path: path, reason: "\(error.localizedDescription)")
        }
        var fixes: [Fix] = []
        switch format {
        case .nmea:
            var stream = NMEAStream()
            let events = stream.push(data) + stream.finish()
            for case .fix(let fix) in events { fixes.append(fix) }
        case .gpsdJSON:
            var stream = GPSDStream()
            var events: [GNSSEvent] = []
            for line in data.split(separator: 0x0A) {
                events += stream.line(String(decoding: line, as: UTF8.self))
            }
            events += stream.finish()
            for case .fix(let fix) in events { fixes.append(fix) }
        case .gpx:
            fixes = try GPXReader.fixes(data, path: path)
        case .native:
            break
        }
        for (index, fix) in fixes.enumerated() { try body(.sample(.fix(fix)), index + 1) }
    }
}

/// Reads GPX 1.1 points (`trkpt`, `rtept`, `wpt`) with Foundation's XMLParser.
enum GPXReader {
    static func fixes(_ data: Data, path: String) throws(TraceFileError) -> [Fix] {
        let delegate = Delegate()
        let parser = XMLParser(data: data)
        parser.delegate = delegate
        let parsed = parser.parse()
        guard parsed, parser.parserError == nil, delegate.depth == 0 else {
            let line = parser.lineNumber
            throw .malformed(
                path: path,
                TraceError(line: line, expected: "well-formed GPX", found: parser.parserError.map { "\($0.localizedDescription)" } ?? ""))
        }
        return delegate.fixes
    }

    private final class Delegate: NSObject, XMLParserDelegate {
        var fixes: [Fix] = []
        /// Elements open; not 0 at the end means the document was cut off or mismatched.
        var depth = 0
        private var point: (lat: Double, lon: Double)?
        private var elevation: Double?
        private var time: Int64?
        private var text = ""

        func parser(
            _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
            qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]
        ) {
            let name = Self.local(elementName)
            depth += 1
            text = ""
            if ["trkpt", "rtept", "wpt"].contains(name) {
                if let lat = attributeDict["lat"].flatMap(Double.init), let lon = attributeDict["lon"].flatMap(Double.init),
                    (-90...90).contains(lat), (-180...180).contains(lon)
                {
                    point = (lat, lon)
                } else {
                    point = nil
                }
                elevation = nil
                time = nil
            }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            text += string
        }

        func parser(
            _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?
        ) {
            let name = Self.local(elementName)
            depth -= 1
            let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
            switch name {
            case "ele": elevation = Double(value)
            case "time": time = Self.time(value)
            case "trkpt", "rtept", "wpt":
                if let point, let time {
                    fixes.append(Fix(timestamp: time, latitude: point.lat, longitude: point.lon, altitude: elevation))
                }
                point = nil
            default: break
            }
            text = ""
        }

        static func local(_ name: String) -> String {
            name.split(separator: ":").last.map(String.init) ?? name
        }

        /// GPX times: ISO 8601 UTC, with or without fractions.
        static func time(_ text: String) -> Int64? {
            if let ms = GPSDTime.unixMilliseconds(iso8601: text) { return ms }
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            if let date = formatter.date(from: text) { return Int64((date.timeIntervalSince1970 * 1000).rounded()) }
            formatter.formatOptions = [.withInternetDateTime]
            return formatter.date(from: text).map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) }
        }
    }
}
