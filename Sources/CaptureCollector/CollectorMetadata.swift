import CaptureCore
import CaptureTransfer
import Foundation

/// The metadata of one upload as the collector validates it (§2.3): read from the pre-request's
/// JSON or from a PUT's headers, every value as a string.
public struct CollectorMetadata: Sendable, Equatable {
    /// The installation UUID, lower case.
    public var deviceID: String
    /// The device-wide measurement counter.
    public var measurementID: Int64
    /// Every §2.3 field that was present, by name, as received.
    public var fields: [String: String]
    /// `attachmentId`, for an attachment's upload (§2.8).
    public var attachmentID: Int64? { fields["attachmentId"].flatMap { Int64($0) } }

    /// Why metadata was refused, and with which status.
    public enum Problem: Error, Equatable, Sendable {
        /// Unparsable or out of range: 422.
        case invalid(String)
        /// The collector does not want the measurement (fewer than two locations, an old
        /// format): 412.
        case notInterested(String)

        /// The HTTP status code.
        public var status: Int {
            switch self {
            case .invalid: 422
            case .notInterested: 412
            }
        }

        /// The response body.
        public var reason: String {
            switch self {
            case .invalid(let text), .notInterested(let text): text
            }
        }
    }

    /// Parses and checks metadata in the order the reference collector does: locationCount
    /// (412 when below 2) before the start and end fields.
    public static func parse(_ value: (String) -> String?) throws(Problem) -> CollectorMetadata {
        func required(_ name: String) throws(Problem) -> String {
            guard let text = value(name) else { throw .invalid("missing \(name)") }
            return text
        }
        func generic(_ name: String) throws(Problem) -> String {
            let text = try required(name)
            guard !text.isEmpty, text.count <= CollectorProtocol.maximumFieldLength else {
                throw .invalid("\(name) must have 1 to \(CollectorProtocol.maximumFieldLength) characters")
            }
            return text
        }
        func integer(_ name: String) throws(Problem) -> Int64 {
            guard let number = Int64(try required(name)) else { throw .invalid("\(name) is not an integer") }
            return number
        }
        func double(_ name: String) throws(Problem) -> Double {
            guard let number = Double(try required(name)), number.isFinite else {
                throw .invalid("\(name) is not a number")
            }
            return number
        }
        guard let uuid = UUID(uuidString: try required("deviceId")) else { throw .invalid("deviceId is not a UUID") }
        let measurementID = try integer("measurementId")
        _ = try generic("deviceType")
        _ = try generic("osVersion")
        _ = try generic("appVersion")
        guard let format = Int(try required("formatVersion")) else { throw .invalid("formatVersion is not an integer") }
        if format < 3 { throw .notInterested("deprecated format version \(format)") }
        if format > 3 { throw .invalid("unknown format version \(format)") }
        guard try double("length") >= 0 else { throw .invalid("length must be ≥ 0") }
        if try integer("locationCount") < 2 { throw .notInterested(CollectorProtocol.tooFewLocations) }
        for name in ["startLocLat", "startLocLon", "endLocLat", "endLocLon"] { _ = try double(name) }
        _ = try integer("startLocTS")
        _ = try integer("endLocTS")
        _ = try generic("modality")
        for name in ["logCount", "imageCount", "videoCount", "filesSize"] where value(name) != nil {
            guard try integer(name) >= 0 else { throw .invalid("\(name) must be ≥ 0") }
        }
        if value("attachmentId") != nil { _ = try integer("attachmentId") }
        var fields: [String: String] = [:]
        for name in CollectorProtocol.metadataFields + ["attachmentId"] { fields[name] = value(name) }
        return CollectorMetadata(deviceID: uuid.uuidString.lowercased(), measurementID: measurementID, fields: fields)
    }

    /// Parses a pre-request body: a JSON object whose values are strings (numbers are accepted
    /// and read as their text, as Vert.x's `getString` does).
    public static func parse(json bytes: [UInt8]) throws(Problem) -> CollectorMetadata {
        let object: [String: Any]
        do {
            guard let parsed = try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else {
                throw Problem.invalid("the body is not a JSON object")
            }
            object = parsed
        } catch {
            throw .invalid("the body is not a JSON object")
        }
        return try parse { name in
            switch object[name] {
            case let text as String: text
            case let number as NSNumber: number.stringValue
            default: nil
            }
        }
    }
}
