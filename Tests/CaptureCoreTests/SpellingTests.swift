import CaptureCore
import Testing

@Suite struct SpellingTests {
    @Test func aSwapOfNeighboursIsOneEdit() {
        #expect(Spelling.editDistance("stauts", "status") == 1)
        #expect(Spelling.editDistance("", "list") == 4)
        #expect(Spelling.editDistance("upload", "upload") == 0)
    }

    @Test func aSlipIsCorrectedButAnotherWordIsNot() {
        let commands: Set = ["status", "start", "stop", "_record", "list"]
        #expect(Spelling.closest(to: "stauts", among: commands) == "status")
        #expect(Spelling.closest(to: "lst", among: commands) == "list")
        // Two edits in a word of three letters is no slip; hidden words are never offered.
        #expect(Spelling.closest(to: "xyz", among: commands) == nil)
        #expect(Spelling.closest(to: "_recrd", among: commands) == nil)
    }
}
