package import CaptureCore

/// A 3×3 rotation from a `mount_matrix` attribute, mapping the chip's axes onto the device's.
///
/// Text form (kernel): `"0, 1, 0; 1, 0, 0; 0, 0, -1"` — rows separated by `;`, values by `,`.
/// Applied as `v' = M · v`, which is what the kernel ABI asks applications to do with samples.
package struct IIOMountMatrix: Sendable, Hashable {
    /// Row-major elements, 9 of them.
    package let elements: [Double]

    /// No rotation.
    package static let identity = IIOMountMatrix(uncheckedRows: [1, 0, 0, 0, 1, 0, 0, 0, 1])

    private init(uncheckedRows elements: [Double]) {
        self.elements = elements
    }

    /// A matrix from three rows of three values.
    package init?(rows: [[Double]]) {
        guard rows.count == 3, rows.allSatisfy({ $0.count == 3 }) else { return nil }
        elements = rows.flatMap { $0 }
    }

    /// Parses the attribute text.
    package init(parsing text: String) throws(IIOError) {
        let trimmed = IIOSysfs.trim(text)
        let rows = trimmed.split(separator: ";", omittingEmptySubsequences: false)
        guard rows.count == 3 else { throw .invalidAttribute(name: "mount_matrix", text: trimmed) }
        var elements: [Double] = []
        for row in rows {
            let values = row.split(separator: ",", omittingEmptySubsequences: false)
            guard values.count == 3 else { throw .invalidAttribute(name: "mount_matrix", text: trimmed) }
            for value in values {
                let number = try IIOSysfs.double(String(value), attribute: "mount_matrix")
                guard number.isFinite else { throw .invalidAttribute(name: "mount_matrix", text: trimmed) }
                elements.append(number)
            }
        }
        self.elements = elements
    }

    /// `M · (x, y, z)`.
    package func apply(x: Double, y: Double, z: Double) -> (x: Double, y: Double, z: Double) {
        let m = elements
        return (
            m[0] * x + m[1] * y + m[2] * z,
            m[3] * x + m[4] * y + m[5] * z,
            m[6] * x + m[7] * y + m[8] * z
        )
    }

    /// The sample with its axes rotated; the timestamp is kept.
    package func apply(_ sample: MotionSample) -> MotionSample {
        let rotated = apply(x: sample.x, y: sample.y, z: sample.z)
        return MotionSample(timestamp: sample.timestamp, x: rotated.x, y: rotated.y, z: rotated.z)
    }

    /// The kernel's text form, e.g. `1, 0, 0; 0, 1, 0; 0, 0, 1` (for recording metadata).
    package var text: String {
        (0..<3).map { row in (0..<3).map { Self.format(elements[row * 3 + $0]) }.joined(separator: ", ") }
            .joined(separator: "; ")
    }

    private static func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
