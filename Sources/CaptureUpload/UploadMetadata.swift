public import CaptureCore
public import CaptureTransfer
public import CaptureStorage
import Foundation

/// The metadata of one measurement as the collector wants it (§2.3): every value a string,
/// sent as the JSON body of the pre-request and as headers of every PUT.
public struct UploadMetadata: Sendable, Equatable {
    /// The fields in ``CollectorProtocol/metadataFields`` order.
    public private(set) var fields: [(name: String, value: String)]
    /// The number of locations; fewer than 2 and the collector refuses the measurement (412).
    public let locationCount: Int

    /// Compares field by field.
    public static func == (lhs: UploadMetadata, rhs: UploadMetadata) -> Bool {
        lhs.fields.map(\.name) == rhs.fields.map(\.name) && lhs.fields.map(\.value) == rhs.fields.map(\.value)
    }

    /// The value of one field.
    public subscript(name: String) -> String? { fields.first { $0.name == name }?.value }

    /// The pre-request body: a JSON object of strings, in field order, without spaces.
    public var json: [UInt8] {
        var out = "{"
        for (index, field) in fields.enumerated() {
            if index > 0 { out += "," }
            out += JSONString.quoted(field.name) + ":" + JSONString.quoted(field.value)
        }
        return Array((out + "}").utf8)
    }

    /// Builds the metadata of a finished measurement from the store.
    ///
    /// - Parameters:
    ///   - appVersion: this program's version.
    ///   - machine: deviceType and osVersion; defaults to this machine's `uname`.
    ///   - privacyZones: fixes inside them are not counted, as they are not sent (the location
    ///     count, start, end and length describe what the transfer file holds).
    /// - Returns: nil when the measurement has fewer than two locations (there is no start and
    ///   end to report); the caller skips it with ``CollectorProtocol/tooFewLocations``.
    public init?(
        store: Store, measurement id: Int64, appVersion: String, machine: Machine = .current, privacyZones: [PrivacyZone] = []
    ) throws {
        let record = try store.measurement(id)
        let privacy = privacyZones.isEmpty ? .none : PrivacyFilter(zones: privacyZones, fixes: try store.fixes(of: id))
        var fixes: [Fix] = []
        var length = 0.0
        for track in try store.tracks(of: id) {
            let trackFixes = try store.fixes(of: id, track: track.number).filter { !privacy.hides($0) }
            length += Geodesy.trackDistance(trackFixes)
            fixes += trackFixes
        }
        guard fixes.count >= 2, let first = fixes.first, let last = fixes.last else { return nil }
        self.init(
            deviceID: try store.deviceID(), measurementID: id, machine: machine, appVersion: appVersion,
            length: length, locationCount: fixes.count, start: first, end: last, modality: record.modality)
    }

    /// Builds metadata from its parts (for tests and for callers without a store).
    public init(
        deviceID: String, measurementID: Int64, machine: Machine, appVersion: String, length: Double,
        locationCount: Int, start: Fix, end: Fix, modality: String
    ) {
        self.locationCount = locationCount
        fields = [
            ("deviceId", deviceID.lowercased()),
            ("measurementId", String(measurementID)),
            ("deviceType", Self.limited(machine.deviceType)),
            ("osVersion", Self.limited(machine.osVersion)),
            ("appVersion", Self.limited(appVersion)),
            ("length", Self.number(max(0, length))),
            ("locationCount", String(locationCount)),
            ("startLocLat", Self.number(start.latitude)),
            ("startLocLon", Self.number(start.longitude)),
            ("startLocTS", String(start.timestamp)),
            ("endLocLat", Self.number(end.latitude)),
            ("endLocLon", Self.number(end.longitude)),
            ("endLocTS", String(end.timestamp)),
            ("modality", Self.limited(modality)),
            ("formatVersion", CollectorProtocol.formatVersion),
            ("logCount", "0"),
            ("imageCount", "0"),
            ("videoCount", "0"),
            ("filesSize", "0"),
        ]
    }

    /// Sets the attachment counts of §2.3: logs (CSV, JSON, JSONL), images (JPG), videos (none)
    /// and the bytes of them all.
    public mutating func setAttachments(logs: Int, images: Int, bytes: Int64) {
        set("logCount", String(logs))
        set("imageCount", String(images))
        set("videoCount", "0")
        set("filesSize", String(bytes))
    }

    /// The same metadata for one of the measurement's attachments: `attachmentId` added (§2.8).
    public func forAttachment(_ id: Int64) -> UploadMetadata {
        var copy = self
        copy.fields.append(("attachmentId", String(id)))
        return copy
    }

    private mutating func set(_ name: String, _ value: String) {
        if let index = fields.firstIndex(where: { $0.name == name }) { fields[index].value = value } else { fields.append((name, value)) }
    }

    /// The machine as the collector sees it.
    public struct Machine: Sendable, Equatable {
        /// `uname -m`, such as `x86_64` (like iOS's `uname` machine).
        public var deviceType: String
        /// `Linux <release>`, such as `Linux 6.1.0-18-amd64` (like Android's `Android 14`).
        public var osVersion: String

        /// Creates a machine description.
        public init(deviceType: String, osVersion: String) {
            self.deviceType = deviceType
            self.osVersion = osVersion
        }

        /// This machine, from `uname(2)`.
        public static var current: Machine {
            var names = utsname()
            guard uname(&names) == 0 else { return Machine(deviceType: "unknown", osVersion: "Linux") }
            func text<T>(_ field: T) -> String {
                withUnsafeBytes(of: field) { bytes in
                    String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
                }
            }
            let machine = text(names.machine)
            return Machine(
                deviceType: machine.isEmpty ? "unknown" : machine, osVersion: "\(text(names.sysname)) \(text(names.release))")
        }
    }

    /// At most 30 characters, never empty (the collector refuses both with 422).
    static func limited(_ text: String) -> String {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? "unknown" : String(trimmed.prefix(CollectorProtocol.maximumFieldLength))
    }

    /// A double the way Kotlin's `toString()` writes it for ordinary magnitudes (`51.0522`,
    /// `0.0`): Swift's shortest round-trip form, which Java's `parseDouble` reads back exactly.
    static func number(_ value: Double) -> String { value.isFinite ? "\(value)" : "0.0" }
}
