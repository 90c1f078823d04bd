public import CaptureCore
import Foundation

extension Store {
    /// The name of the recorder's journal among a measurement's attachments, where its markers are.
    public static let journalName = "recorder.jsonl"

    /// Where measurement `id`'s journal is in the data directory `directory`.
    public static func journalPath(of id: Int64, in directory: String) -> String {
        attachmentDirectory(of: id, in: directory) + "/" + journalName
    }

    /// The text of measurement `id`'s journal in `directory`; nil when it has none.
    public static func journalText(of id: Int64, in directory: String) -> String? {
        try? String(contentsOfFile: journalPath(of: id, in: directory), encoding: .utf8)
    }

    /// The moments the rider marked in measurement `id` (``Marker``), in the order they were
    /// made: the `marker` lines of its journal. None when it has no journal; a torn last line (a
    /// power cut while it was written) is left out.
    public func markers(of id: Int64) -> [Marker] {
        Self.journalText(of: id, in: directory).map(Self.markers(inJournal:)) ?? []
    }

    /// The `marker` lines of a journal's text.
    public static func markers(inJournal text: String) -> [Marker] {
        struct Line: Decodable {
            var t: Int64?
            var event: String?
            var source: String?
            var latitude: Double?
            var longitude: Double?
        }
        let decoder = JSONDecoder()
        return text.split(separator: "\n").compactMap { row in
            guard row.contains("\"marker\""), let line = try? decoder.decode(Line.self, from: Data(row.utf8)),
                line.event == "marker", let time = line.t
            else { return nil }
            return Marker(time: time, latitude: line.latitude, longitude: line.longitude, source: line.source ?? "")
        }
    }
}
