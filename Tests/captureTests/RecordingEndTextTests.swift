import CaptureCore
import CaptureRecorder
import CaptureStorage
@testable import capture
import Testing

/// The line `capture status` prints after "ended" for an interrupted recording.
struct RecordingEndTextTests {
    @Test func eachEndSaysWhatItMeansForTheData() {
        let full = RecordingEnd(kind: .storeFull, reason: StoreError.diskFull(path: "/d/capture.sqlite").description, lastJournalAt: 9000)
        #expect(full.text.hasPrefix("the store was full: the disk holding /d/capture.sqlite is full"))
        #expect(full.text.hasSuffix("; make room before it goes on"))
        #expect(RecordingEnd(kind: .storeFailed).text == "the store failed: unknown; what was committed before is kept")
        #expect(
            RecordingEnd(kind: .restarted, lastJournalAt: 5000).text
                == "the machine restarted while it recorded (a power cut or a reboot); what was synced before is kept")
        #expect(
            RecordingEnd(kind: .recorderEnded, lastJournalAt: 5000).text
                == "the recorder ended without finishing (killed or crashed); its output is in recorder.log in the data directory")
    }

    @Test func aGoneSourceIsNamedWithWhenAndAsWhatCameBefore() {
        let gone = RecordingEnd(kind: .sourceGone, lastJournalAt: 7000, sourcesGone: ["trace:x: the device vanished"])
        #expect(
            gone.text
                == "every source was gone (trace:x: the device vanished), a device unplugged or failing for good at "
                + TextFormat.time(7000) + "; nothing was recorded after that, what was committed before is kept; "
                + "connect it again before it goes on")
        let partly = RecordingEnd(kind: .restarted, lastJournalAt: 8000, sourcesGone: ["trace:x: the device vanished"])
        #expect(partly.text.hasSuffix("what was synced before is kept; before that a source was gone (trace:x: the device vanished)"))
    }
}
