public import CaptureCore

/// Names and fixed texts of the Cyface collector upload protocol ("API v4", §2 of the protocol
/// notes), shared by the uploader and by `capture-collector` so both speak exactly the same words.
public enum CollectorProtocol {
    /// The metadata fields of §2.3, in the order the Android client sends them. Each is a JSON
    /// string in the pre-request body and a header of every PUT.
    public static let metadataFields = [
        "deviceId", "measurementId", "deviceType", "osVersion", "appVersion", "length", "locationCount",
        "startLocLat", "startLocLon", "startLocTS", "endLocLat", "endLocLon", "endLocTS", "modality",
        "formatVersion", "logCount", "imageCount", "videoCount", "filesSize",
    ]
    /// The longest value the collector accepts for deviceType, osVersion, appVersion and modality
    /// (`MetaData.MAX_GENERIC_METADATA_FIELD_LENGTH`).
    public static let maximumFieldLength = 30
    /// The largest pre-request body the collector reads (1 KiB); larger bodies get 413.
    public static let maximumPreRequestBody = 1024
    /// The only format version the collector accepts.
    public static let formatVersion = "3"
    /// Why a measurement with fewer than two locations is not uploaded: the collector answers
    /// 412 with this text, and the uploader records the same text without asking.
    public static let tooFewLocations = "too few locations: a measurement needs at least 2 (locationCount < 2)"
    /// `Content-Type` of the pre-request.
    public static let jsonContentType = "application/json; charset=UTF-8"
    /// `Content-Type` of every PUT, including the empty status query.
    public static let binaryContentType = "application/octet-stream"
    /// Length in characters of a session id (lower-case letters and digits).
    public static let sessionIDLength = 32

    /// Whether `text` is a session id: exactly 32 characters of `[a-z0-9]`.
    public static func isSessionID(_ text: Substring) -> Bool {
        text.utf8.count == sessionIDLength
            && text.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) }
    }
}
