import Foundation

/// Byte counts as people read them, in powers of 1000: `512 B`, `1.2 kB`, `3.4 MB`, `1.25 GB`.
public enum ByteCount {
    /// `count` bytes as text.
    public static func text(_ count: Int64) -> String {
        let value = Double(count)
        if value >= 1e9 { return String(format: "%.2f GB", value / 1e9) }
        if value >= 1e6 { return String(format: "%.1f MB", value / 1e6) }
        if value >= 1e3 { return String(format: "%.1f kB", value / 1e3) }
        return "\(count) B"
    }
}
