import CaptureCore
import CaptureUpload
import Foundation
import Testing

@Suite struct TransferProgressTests {
    let began = Date(timeIntervalSince1970: 1_000_000)

    @Test func aBarShowsTheShareSentTheRateAndWhatIsLeft() {
        let state = TransferProgress.State(id: 7, total: 4_000_000, sent: 1_000_000, began: began)
        let line = TransferProgress.line(state, now: began.addingTimeInterval(2))
        #expect(line.hasPrefix("measurement 7 [######..................] "))
        #expect(line.contains("/s ETA 0:00:06"))
        #expect(!line.contains("–"))
    }

    @Test func aNoteFollowsTheBarAndTheLineStaysWithin160Characters() {
        let state = TransferProgress.State(
            id: 1, total: 10, sent: 10, began: began, note: "retrying in 0.5 s: " + String(repeating: "x", count: 300))
        let line = TransferProgress.line(state, now: began.addingTimeInterval(1))
        #expect(line.contains("[########################]"))
        #expect(line.contains(" – retrying in 0.5 s: x"))
        #expect(line.count == 160)
    }

    /// Issue 32: the bar went from 524 kB back to 262 kB after a 503 without a word.
    @Test func aBarThatGoesBackSaysWhy() {
        let state = TransferProgress.State(id: 3, total: 1_000_000, sent: 524_000, began: began, note: "retrying in 0.5 s: x")
        let back = TransferProgress.advanced(state, to: 262_000)
        #expect(back.sent == 262_000)
        #expect(back.note == "resuming at \(ByteCount.text(262_000)), where the collector stands")
        #expect(TransferProgress.line(back, now: began.addingTimeInterval(1)).hasSuffix(" – " + back.note))
        #expect(TransferProgress.advanced(back, to: 300_000).note == back.note, "going on keeps the note")
        #expect(TransferProgress.advanced(state, to: 600_000).note == state.note, "forward says nothing new")
    }

    @Test func nothingSentYetHasNoETA() {
        let line = TransferProgress.line(TransferProgress.State(id: 2, total: 100, began: began), now: began)
        #expect(line.contains("[........................]"))
        #expect(line.hasSuffix("ETA 0:00:00"))
    }
}
