import CaptureCore
import CaptureRecorder

extension RecordingEnd {
    /// One line for `capture status`: what ended the recording and what it means for the data.
    var text: String {
        let gone = (sourcesGone ?? []).joined(separator: "; ")
        let before = kind == .sourceGone || gone.isEmpty ? "" : "; before that a source was gone (\(gone))"
        return reasonText + before
    }

    private var reasonText: String {
        switch kind {
        case .storeFull:
            "the store was full: \(reason ?? "no room left"); make room before it goes on"
        case .storeFailed:
            "the store failed: \(reason ?? "unknown"); what was committed before is kept"
        case .restarted:
            "the machine restarted while it recorded (a power cut or a reboot); what was synced before is kept"
        case .recorderEnded:
            "the recorder ended without finishing (killed or crashed); its output is in \(RecorderLauncher.logFileName) in the data directory"
        case .sourceGone:
            "every source was gone (\((sourcesGone ?? []).joined(separator: "; "))), a device unplugged or failing for good"
                + (lastJournalAt.map { " at \(TextFormat.time($0))" } ?? "")
                + "; nothing was recorded after that, what was committed before is kept; connect it again before it goes on"
        }
    }
}
