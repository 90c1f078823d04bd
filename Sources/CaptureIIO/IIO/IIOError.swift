package import CaptureCore

/// What went wrong interpreting IIO sysfs text or scan data.
package enum IIOError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A `_type` string that does not follow `[be|le]:[s|u]bits/storagebits[Xrepeat][>>shift]`.
    case invalidScanType(String)
    /// A sign character other than `s`, `u`, `S`, `U` (newer kernels may add more): the channel is
    /// unsupported, not broken.
    case unsupportedSign(Character, type: String)
    /// Bit counts that cannot describe a value: storage not 8/16/32/64, real bits 0 or wider than
    /// the storage, or a shift that pushes the value out of the storage.
    case inconsistentBits(String)
    /// Two enabled channels claim the same `_index`.
    case duplicateScanIndex(Int)
    /// A scan buffer shorter than the element being read.
    case bufferTooShort(needed: Int, available: Int)
    /// A sysfs attribute whose text is not what it should be (e.g. a scale that is not a number).
    case invalidAttribute(name: String, text: String)
    /// A channel name that is not `<in|out>_<type>[index][_modifier]`.
    case invalidChannelName(String)
    /// A channel without `_raw` or `_input`.
    case missingValue(channel: String)
    /// A channel the conversion needs is not among the scan's enabled channels.
    case channelNotInScan(String)
    /// A sysfs attribute that must exist does not (e.g. `in_accel_x_index` next to `in_accel_x_en`).
    case missingAttribute(String)

    package var description: String {
        switch self {
        case .invalidScanType(let text):
            "invalid IIO scan type '\(text)' (expected e.g. 'le:s16/16>>0')"
        case .unsupportedSign(let sign, let type):
            "unsupported IIO sign '\(sign)' in scan type '\(type)'; the channel cannot be decoded"
        case .inconsistentBits(let text): "inconsistent bit counts in IIO scan type '\(text)'"
        case .duplicateScanIndex(let index): "two enabled IIO channels have scan index \(index)"
        case .bufferTooShort(let needed, let available):
            "IIO scan buffer too short: need \(needed) bytes, have \(available)"
        case .invalidAttribute(let name, let text): "IIO attribute \(name) has unexpected content '\(text)'"
        case .invalidChannelName(let name): "invalid IIO channel name '\(name)'"
        case .missingValue(let channel): "IIO channel \(channel) has neither _input nor _raw"
        case .channelNotInScan(let channel): "IIO channel \(channel) is not enabled in the scan"
        case .missingAttribute(let name): "IIO attribute \(name) is missing"
        }
    }
}
