import CaptureCore
import CaptureSensors
import CaptureStorage
import Foundation
import Glibc
import SystemPackage

/// The recorder's log of one measurement, `recorder.jsonl` among its attachments (uploaded after
/// it, §2.8): one JSON object per line with `t` (Unix ms) and what happened: the start (sources,
/// flush interval), a recovery after a crash, every lifecycle command, a source's note when it
/// changes (lost samples, GNSS fix state), a source that failed for good, and a summary of what
/// was captured at the end.
///
/// Best effort: a line that cannot be written is dropped, never the recording. Each line is
/// made durable (`fdatasync`; lines are few: lifecycle commands, changes of a source's state), so
/// a power cut loses at most the line being written; that torn line is cut off before the log
/// is written again, its measurement finished after a crash, or it is uploaded
/// (``AttachmentFile/cutTornLastLine(_:)``).
final class RecorderJournal {
    static let name = Store.journalName
    private let descriptor: Int32

    /// Opens (appending) the journal of `measurement` and, given a `store`, records it as an
    /// attachment (without one, the measurement's `begin` step in the flush log does); nil if
    /// either fails.
    init?(directory: String, measurement: Int64, store: Store?) {
        let folder = Store.attachmentDirectory(of: measurement, in: directory)
        do {
            try PrivateFiles.createDirectory((folder as NSString).deletingLastPathComponent)
            try PrivateFiles.createDirectory(folder)
        } catch {
            return nil
        }
        let path = Store.journalPath(of: measurement, in: directory)
        AttachmentFile.cutTornLastLine(path)
        let fd = PrivateFiles.open(path, O_WRONLY | O_APPEND)
        guard fd >= 0 else { return nil }
        guard store == nil || (try? store?.addAttachment(to: measurement, name: Self.name, format: .jsonl)) != nil else {
            close(fd)
            return nil
        }
        descriptor = fd
    }

    deinit { close(descriptor) }

    /// Appends `line`, at `time`.
    func note(_ line: JournalLine, at time: Int64 = WallClock.now()) {
        var line = line
        line.t = time
        guard let data = try? line.encoded(), (try? FileDescriptor(rawValue: descriptor).writeAll(data)) != nil else { return }
        while fdatasync(descriptor) != 0, errno == EINTR {}
    }
}
