package import CaptureCore

/// The class of a window, 0 (good) to 3 (bad), from the standard deviation of its vertical
/// acceleration against three thresholds per modality (m/s²): below the first 0, below the
/// second 1, below the third 2, else 3.
///
/// The defaults and their reasoning are in docs/surface.md: the figure depends on the mount,
/// the vehicle, its tyres and its speed, so classes compare windows of one box on one vehicle,
/// not different vehicles, and the thresholds are settable (`surface.thresholds`).
package struct SurfaceThresholds: Sendable, Equatable, Codable {
    /// Upper bounds of classes 0, 1 and 2 per modality (upper case, as the store spells it).
    package var byModality: [String: [Double]]
    /// For a modality without its own row.
    package var fallback: [Double]

    /// Thresholds from `byModality`, `fallback` for any other modality.
    package init(byModality: [String: [Double]], fallback: [Double]) {
        self.byModality = byModality
        self.fallback = fallback
    }

    /// The defaults (docs/surface.md, "Classes").
    package static let standard = SurfaceThresholds(
        byModality: [
            "BICYCLE": [1.2, 2.2, 3.5],
            "CAR": [0.6, 1.2, 2.2],
            "BUS": [0.6, 1.2, 2.2],
            "TRAIN": [0.4, 0.8, 1.6],
            "WALKING": [3.0, 4.0, 5.5],
        ],
        fallback: [1.2, 2.2, 3.5])

    /// The thresholds that apply to `modality`.
    package func bounds(for modality: String) -> [Double] { byModality[modality.uppercased()] ?? fallback }

    /// The class of a standard deviation `sd` (m/s²) under `modality`.
    package func surfaceClass(_ sd: Double, modality: String) -> Int {
        let bounds = bounds(for: modality)
        return bounds.firstIndex { sd < $0 } ?? bounds.count
    }

    /// Parses `MODALITY=a,b,c` items separated by spaces or semicolons (`BICYCLE=1.2,2.2,3.5
    /// CAR=0.6,1.2,2.2`; `*=…` sets the fallback) over the defaults; `nil` when an item is not
    /// three ascending positive numbers.
    package static func parse(_ text: String) -> SurfaceThresholds? {
        var result = standard
        for item in text.split(whereSeparator: { $0 == " " || $0 == ";" }) {
            let parts = item.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else { return nil }
            let numbers = parts[1].split(separator: ",").compactMap { Double($0) }
            guard numbers.count == 3, numbers[0] > 0, numbers[0] < numbers[1], numbers[1] < numbers[2] else { return nil }
            let name = parts[0].uppercased()
            if name == "*" { result.fallback = numbers } else { result.byModality[name] = numbers }
        }
        return result
    }
}

extension SurfaceThresholds {
    /// The thresholds `surface.thresholds` sets over the defaults (`settings` scoped to `surface`).
    package init(reading settings: some SettingsReader) throws(SettingsError) {
        guard let text = try settings.text("thresholds") else {
            self = .standard
            return
        }
        guard let parsed = Self.parse(text) else { throw settings.invalid("thresholds", found: text) }
        self = parsed
    }
}
