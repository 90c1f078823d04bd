import CaptureCore
import CaptureUpload
@testable import capture
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

    /// Issue 46: a resumed upload's bar showed only what this run handed over, and no line said
    /// where it resumed.
    @Test func aResumedUploadStartsWhereTheCollectorStandsAndSaysSo() throws {
        let fresh = TransferProgress.State(id: 5, total: 1_000_000, began: began)
        let resumed = try #require(TransferProgress.resumed(fresh, at: 550_000))
        #expect(resumed.sent == 550_000 && resumed.resumedFrom == 550_000)
        #expect(resumed.note == "resuming at \(ByteCount.text(550_000)) of \(ByteCount.text(1_000_000)), where the collector stands")
        #expect(TransferProgress.line(resumed, now: began.addingTimeInterval(1)).hasPrefix("measurement 5 [#############..........."))
        // The rate is this run's: 150 kB in 1 s leaves 300 kB, 2 s.
        var going = TransferProgress.advanced(resumed, to: 700_000)
        going.began = began
        #expect(TransferProgress.line(going, now: began.addingTimeInterval(1)).contains("ETA 0:00:02"))
        // Everything handed to the network is not everything received: no ETA of 0:00:00 then.
        let handed = TransferProgress.line(TransferProgress.advanced(going, to: 1_000_000), now: began.addingTimeInterval(2))
        #expect(handed.contains("/s sent, awaiting the collector's answer – resuming at "), "\(handed)")
        // Not a resumption: bytes sent already, or none held.
        #expect(TransferProgress.resumed(going, at: 800_000) == nil && TransferProgress.resumed(fresh, at: 0) == nil)
        #expect(TransferProgress.resumed(fresh, at: 1_000_000) == nil, "all of it held is the end, not a resumption")
    }

    @Test func nothingSentYetHasNoETA() {
        let line = TransferProgress.line(TransferProgress.State(id: 2, total: 100, began: began), now: began)
        #expect(line.contains("[........................]"))
        #expect(line.hasSuffix("ETA 0:00:00"))
    }
}
