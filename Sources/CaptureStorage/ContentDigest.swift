public import CaptureCore
public import CaptureTransfer
import Crypto

extension CyfaceTransferFile {
    /// A SHA-256 of what an import stores from the file: every fix, every event and, per sensor,
    /// every motion sample (batches concatenated), each value by its exact bits, as lowercase hex.
    ///
    /// It identifies a ride independently of how its file was packed: the same content
    /// compressed otherwise, with or without the `00 03` header, or batched differently gives the
    /// same digest. A Cyface v3 transfer file carries no device or measurement id (those travel in
    /// the upload's metadata), so this digest is what ``Store/importTransferFile(at:duplicates:)``
    /// compares to tell a ride already imported.
    public var contentDigest: String {
        var hasher = SHA256()
        func bits(_ value: UInt64) { withUnsafeBytes(of: value.littleEndian) { hasher.update(bufferPointer: $0) } }
        func integer(_ value: Int64) { bits(UInt64(bitPattern: value)) }
        func real(_ value: Double) { bits(value.bitPattern) }
        func optional(_ value: Double?) {
            if let value {
                bits(1)
                real(value)
            } else {
                bits(0)
            }
        }
        /// A list: its length, then each element as `element` hashes it.
        func list<Element>(_ elements: [Element], _ element: (Element) -> Void) {
            integer(Int64(elements.count))
            elements.forEach(element)
        }
        list(fixes) { fix in
            integer(fix.timestamp)
            real(fix.latitude)
            real(fix.longitude)
            optional(fix.altitude)
            optional(fix.horizontalAccuracy)
            optional(fix.verticalAccuracy)
            optional(fix.speed)
            optional(fix.course)
        }
        list(events) { event in
            integer(event.timestamp)
            integer(Int64(event.type.rawValue))
            if let value = event.value {
                let bytes = Array(value.utf8)
                integer(Int64(bytes.count) + 1)
                hasher.update(data: bytes)
            } else {
                integer(0)
            }
        }
        for sensor in MotionSensor.allCases {
            list(samples(of: sensor)) { sample in
                integer(sample.timestamp)
                real(sample.x)
                real(sample.y)
                real(sample.z)
            }
        }
        return hasher.finalize().hex
    }
}

/// SHA-256 of bytes for the libraries that do not import Crypto themselves.
public enum ContentDigest {
    /// The SHA-256 of `bytes` as lowercase hex (64 digits).
    public static func sha256Hex(_ bytes: [UInt8]) -> String {
        SHA256.hash(data: bytes).hex
    }
}
