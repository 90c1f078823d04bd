/// A string as a JSON string literal (RFC 8259): quotes, backslashes and control characters
/// escaped, everything else as it is. For the few places that write JSON by hand (the upload's
/// pre-request body, GeoJSON export, gpsd's `?WATCH` command), where field order or streaming
/// matters.
public enum JSONString {
    /// `text` between double quotes, escaped.
    public static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// `json` with the empty arrays and objects Foundation's pretty printer spreads over three
    /// lines (`[\n\n  ]`) as `[]` and `{}`. Only layout is touched: a line break in a string is
    /// escaped.
    public static func compactingEmpty(_ json: String) -> String {
        json.replacing(/\[\n\n *\]/, with: "[]").replacing(/\{\n\n *\}/, with: "{}")
    }
}
