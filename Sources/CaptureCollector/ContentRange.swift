/// A `Content-Range` request header of the upload protocol: `bytes a-b/N` for data, or
/// `bytes */N` for a status query. `bytes */*` and anything else are unparsable (422).
enum ContentRange: Equatable {
    case bytes(from: Int64, to: Int64, total: Int64)
    case query(total: Int64)

    init?(_ text: String) {
        guard text.hasPrefix("bytes ") else { return nil }
        let rest = text.dropFirst(6)
        let parts = rest.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let total = Self.number(parts[1]) else { return nil }
        if parts[0] == "*" {
            self = .query(total: total)
            return
        }
        let bounds = parts[0].split(separator: "-", omittingEmptySubsequences: false)
        guard bounds.count == 2, let from = Self.number(bounds[0]), let to = Self.number(bounds[1]), from <= to else {
            return nil
        }
        self = .bytes(from: from, to: to, total: total)
    }

    private static func number(_ text: Substring) -> Int64? {
        guard !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return Int64(text)
    }
}
