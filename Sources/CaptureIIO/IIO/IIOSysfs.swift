package import CaptureCore

/// Parsing of IIO sysfs attribute text: decimal values that end in a newline.
package enum IIOSysfs {
    /// `text` without leading and trailing spaces, tabs, CR and LF.
    package static func trim(_ text: String) -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }
        return String(text.drop(while: isSpace).reversed().drop(while: isSpace).reversed())
    }

    /// A decimal number such as `0.000598`, `-1.5`, `104.000000`, `2` (after trimming).
    package static func double(_ text: String, attribute: String) throws(IIOError) -> Double {
        var trimmed = trim(text)
        guard let value = trimmed.withUTF8({ DecimalParser.parse($0) }) else {
            throw .invalidAttribute(name: attribute, text: trimmed)
        }
        return value
    }

    /// An integer such as `_index` or `_en` (after trimming).
    package static func int(_ text: String, attribute: String) throws(IIOError) -> Int {
        let trimmed = trim(text)
        guard let value = Int(trimmed) else { throw .invalidAttribute(name: attribute, text: trimmed) }
        return value
    }

    /// `1`/`0` attributes (`_en`, `enable`); any other integer counts as `true`.
    package static func bool(_ text: String, attribute: String) throws(IIOError) -> Bool {
        try int(text, attribute: attribute) != 0
    }
}

/// The rates a device offers, from `sampling_frequency_available`: either a list (`"0 2 4 6 8"`,
/// `"12.5 26 52 104"`) or a range `"[min step max]"`.
package enum IIOSamplingFrequencies: Sendable, Hashable {
    /// Discrete rates in Hz, in the order listed.
    case list([Double])
    /// Every `min + k × step` up to `max` (Hz); a step of 0 means any value in between.
    case range(min: Double, step: Double, max: Double)

    /// Parses the attribute text.
    package init(parsing text: String) throws(IIOError) {
        let name = "sampling_frequency_available"
        let trimmed = IIOSysfs.trim(text)
        if trimmed.hasPrefix("[") {
            guard trimmed.hasSuffix("]") else { throw .invalidAttribute(name: name, text: trimmed) }
            let parts = trimmed.dropFirst().dropLast().split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard parts.count == 3 else { throw .invalidAttribute(name: name, text: trimmed) }
            let min = try IIOSysfs.double(String(parts[0]), attribute: name)
            let step = try IIOSysfs.double(String(parts[1]), attribute: name)
            let max = try IIOSysfs.double(String(parts[2]), attribute: name)
            guard min <= max, step >= 0 else { throw .invalidAttribute(name: name, text: trimmed) }
            self = .range(min: min, step: step, max: max)
        } else {
            let parts = trimmed.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" })
            guard !parts.isEmpty else { throw .invalidAttribute(name: name, text: trimmed) }
            var rates: [Double] = []
            for part in parts { rates.append(try IIOSysfs.double(String(part), attribute: name)) }
            self = .list(rates)
        }
    }

    /// The available rate closest to `requested` Hz; on a tie the higher one (better to sample
    /// a little faster than asked than slower). `nil` only for an empty list.
    package func nearest(to requested: Double) -> Double? {
        switch self {
        case .list(let rates):
            guard var best = rates.first else { return nil }
            for rate in rates.dropFirst() {
                let distance = abs(rate - requested)
                let bestDistance = abs(best - requested)
                if distance < bestDistance || (distance == bestDistance && rate > best) { best = rate }
            }
            return best
        case .range(let min, let step, let max):
            let clamped = Swift.min(Swift.max(requested, min), max)
            guard step > 0 else { return clamped }
            let lastStep = ((max - min) / step).rounded(.down)
            let steps = Swift.min(((clamped - min) / step).rounded(.toNearestOrAwayFromZero), lastStep)
            return min + steps * step
        }
    }

    /// The lowest available rate at or above `rate` Hz, else the highest; `nil` only for an empty
    /// list. What a polled device is set to: converting at least as often as it is read, it has a
    /// new value for every read, and no faster than that needs.
    package func lowest(atLeast rate: Double) -> Double? {
        switch self {
        case .list(let rates):
            return rates.filter { $0 >= rate }.min() ?? rates.max()
        case .range(let min, let step, let max):
            guard rate > min else { return min }
            guard step > 0 else { return Swift.min(rate, max) }
            let lastStep = ((max - min) / step).rounded(.down)
            // A rate a rounding error above a step (3.0000000001 on a grid of 1) is that step.
            let steps = ((rate - min) / step - 1e-9).rounded(.up)
            return min + Swift.min(steps, lastStep) * step
        }
    }
}
