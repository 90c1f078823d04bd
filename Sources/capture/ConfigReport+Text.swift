import CaptureConfig

extension ConfigReport {
    /// `capture config`'s table: the file line, then one line per setting: name, value, origin,
    /// in aligned columns.
    var text: String {
        let none = "none ($CAPTURE_CONFIG is unset; neither \(searched.joined(separator: " nor ")) exists)"
        var lines = ["configuration file: " + (file ?? none)]
        let width = (settings.map(\.key.name.count).max() ?? 0) + 2
        let valueWidth = min(44, (settings.map(\.text.count).max() ?? 0) + 2)
        for row in settings {
            let name = row.key.name.padding(toLength: width, withPad: " ", startingAt: 0)
            let value = row.text.count < valueWidth ? row.text.padding(toLength: valueWidth, withPad: " ", startingAt: 0) : row.text + "  "
            lines.append(name + value + row.origin)
        }
        return lines.joined(separator: "\n")
    }
}

extension ConfigReport.Row {
    /// The value as text: `15m`, `[trace:/x, gpsd]`, `none`.
    var text: String {
        switch setting.value {
        case .text(let text): text
        case .bool(let flag): String(flag)
        case .int(let number): number.map(String.init) ?? "forever"
        case .span(let span): span.description
        case .size(let size): size.map { "\($0.bytes) bytes" } ?? "unlimited"
        case .list(let items): "[" + items.joined(separator: ", ") + "]"
        case .zones(let zones): "[" + zones.map { "\($0.latitude),\($0.longitude) r=\($0.radius)m" }.joined(separator: "; ") + "]"
        case .modality(let modality): modality?.rawValue ?? "none (a trace's start mark, else UNKNOWN)"
        case .metres(let metres): metres == metres.rounded() && metres < 1e15 ? "\(Int64(metres))m" : "\(metres)m"
        case .none: "none"
        }
    }
}
