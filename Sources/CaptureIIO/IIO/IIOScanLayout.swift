package import CaptureCore

/// A buffered channel as found in `bufferY/` (or legacy `scan_elements/`): name, `_index`,
/// `_type` and `_en`.
package struct IIOScanChannel: Sendable, Hashable {
    /// Channel name without suffix, e.g. `in_accel_x`, `in_timestamp`.
    package var name: String
    /// The `_index` value: an ordering key, not a byte offset (indices may have gaps).
    package var index: Int
    /// The `_type` value: how the value is stored.
    package var type: IIOScanType
    /// The `_en` value; disabled channels take no space in the scan.
    package var isEnabled: Bool

    /// A channel from its sysfs attributes.
    package init(name: String, index: Int, type: IIOScanType, isEnabled: Bool = true) {
        self.name = name
        self.index = index
        self.type = type
        self.isEnabled = isEnabled
    }
}

/// Where one enabled channel sits inside a scan.
package struct IIOScanElement: Sendable, Hashable {
    /// The channel.
    package var channel: IIOScanChannel
    /// Byte offset from the start of the scan.
    package var offset: Int
}

/// The byte layout of one scan (one record read from `/dev/iio:deviceX`).
///
/// Enabled channels are sorted by `_index`; each starts at the next multiple of its storage size
/// (`storagebits / 8`); the scan is padded to a multiple of the largest storage size.
/// A repeated channel (`X3`) is `repeat × size` long and aligns to `size`, as the research notes
/// (`shared/docs/linux-sensors.md` §1.3) describe. That rule has not been checked against a real
/// repeat-channel device or the kernel source; if the kernel aligns such channels to their whole
/// length instead, layouts with a repeated channel after a smaller one would differ. Kernel documentation example: u16, u32, u32, u64 →
/// offsets 0, 4, 8, 16 and 24 bytes; u16 + u64 only → offsets 0, 8 and 16 bytes.
package struct IIOScanLayout: Sendable, Hashable {
    /// The enabled channels in scan order with their offsets.
    package let elements: [IIOScanElement]
    /// Bytes per scan, padding included. Reads from the device must be multiples of it.
    package let scanSize: Int

    /// Computes the layout of the enabled channels among `channels`.
    package init(channels: [IIOScanChannel]) throws(IIOError) {
        let enabled = channels.filter(\.isEnabled).sorted { $0.index < $1.index }
        for (previous, next) in zip(enabled, enabled.dropFirst()) where previous.index == next.index {
            throw .duplicateScanIndex(next.index)
        }
        var offset = 0
        var largest = 1
        var elements: [IIOScanElement] = []
        for channel in enabled {
            let size = channel.type.storageBytes
            offset = Self.roundUp(offset, to: size)
            elements.append(IIOScanElement(channel: channel, offset: offset))
            offset += channel.type.length
            largest = max(largest, size)
        }
        self.elements = elements
        self.scanSize = elements.isEmpty ? 0 : Self.roundUp(offset, to: largest)
    }

    /// The element for a channel name, if it is enabled.
    package func element(named name: String) -> IIOScanElement? {
        elements.first { $0.channel.name == name }
    }

    /// Decodes every enabled channel of the scan that starts at `start` in `buffer`.
    package func decode(_ buffer: UnsafeRawBufferPointer, scanAt start: Int = 0) throws(IIOError) -> [String: [IIORawValue]] {
        guard start >= 0, start + scanSize <= buffer.count else {
            throw .bufferTooShort(needed: start + scanSize, available: buffer.count)
        }
        var result: [String: [IIORawValue]] = [:]
        for element in elements {
            result[element.channel.name] = try element.channel.type.decode(buffer, at: start + element.offset)
        }
        return result
    }

    /// ``decode(_:scanAt:)`` for a byte array.
    package func decode(_ buffer: [UInt8], scanAt start: Int = 0) throws(IIOError) -> [String: [IIORawValue]] {
        let result = buffer.withUnsafeBytes { raw in
            Result { () throws(IIOError) -> [String: [IIORawValue]] in try decode(raw, scanAt: start) }
        }
        return try result.get()
    }

    private static func roundUp(_ value: Int, to multiple: Int) -> Int {
        (value + multiple - 1) / multiple * multiple
    }
}
