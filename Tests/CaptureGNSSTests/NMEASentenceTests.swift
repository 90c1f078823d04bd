import CaptureCore
import CaptureGNSS
import Testing

@Suite struct NMEASentenceTests {
    @Test func checksumIsXorBetweenDollarAndStar() throws {
        let sentence = try NMEASentence(validating: "$GPGSA,A,3,02,05,11,12,18,20,25,29,,,,,1.4,1.1,0.9*3D")
        #expect(sentence.talker == .gps)
        #expect(sentence.type == "GSA")
        #expect(sentence.fields.count == 17)
        #expect(NMEAChecksum.compute(Array("GPGSA,A,3,02,05,11,12,18,20,25,29,,,,,1.4,1.1,0.9".utf8)) == 0x3D)
    }

    @Test func lowerCaseChecksumDigitsAreAccepted() throws {
        _ = try NMEASentence(validating: "$GPGSA,A,3,02,05,11,12,18,20,25,29,,,,,1.4,1.1,0.9*3d")
    }

    @Test func wrongChecksumIsRejected() {
        #expect(throws: NMEAFrameError.checksumMismatch(expected: 0x3D, found: 0x3E)) {
            try NMEASentence(validating: "$GPGSA,A,3,02,05,11,12,18,20,25,29,,,,,1.4,1.1,0.9*3E")
        }
        // One flipped character in the body.
        #expect(throws: NMEAFrameError.self) {
            try NMEASentence(validating: "$GPGSA,A,3,02,05,11,12,18,20,25,29,,,,,1.4,1.1,0.8*3D")
        }
    }

    @Test func truncatedAndMalformedFramesAreTyped() {
        #expect(throws: NMEAFrameError.truncated) { try NMEASentence(validating: "$GPRMC,113304,A,3238.9123,N,1") }
        #expect(throws: NMEAFrameError.truncated) { try NMEASentence(validating: "$GPRMC,113304,A*6") }
        #expect(throws: NMEAFrameError.malformedChecksum) { try NMEASentence(validating: "$GPRMC,113304,A*6G") }
        #expect(throws: NMEAFrameError.malformedChecksum) { try NMEASentence(validating: "$GPRMC,113304,A*6B1") }
        #expect(throws: NMEAFrameError.missingStartDelimiter) { try NMEASentence(validating: "GPRMC,113304,A*6B") }
        #expect(throws: NMEAFrameError.missingStartDelimiter) { try NMEASentence(validating: "") }
        #expect(throws: NMEAFrameError.invalidCharacter) { try NMEASentence(validating: "$GPRMC,1133\u{7}04*6B") }
        #expect(throws: NMEAFrameError.malformedAddress) { try NMEASentence(validating: NMEAChecksum.seal("$G,1")) }
        #expect(throws: NMEAFrameError.malformedAddress) { try NMEASentence(validating: NMEAChecksum.seal("$gprmc,1")) }
    }

    @Test func lineEndingsAreTolerated() throws {
        let base = "$GPGGA,113258,3238.9148,N,10822.4466,W,2,08,1.1,1577.4,M,-24.6,M,,*4D"
        for ending in ["", "\r\n", "\n", "\r", "\r\r\n", " \r\n"] {
            let sentence = try NMEASentence(validating: base + ending)
            #expect(sentence.type == "GGA")
            #expect(sentence.fields.last == "")
        }
    }

    @Test func the82ByteLimitIsEnforcedOnlyInStrictMode() throws {
        // A real 87-byte Trimble RTK sentence (gpsd nmea-fuzzy-cases.log).
        let long = "$GPGGA,132820.60,4134.49821229,N,09345.03351845,W,2,09,1.0,278.020,M,-31.442,M,7.6,0133*7E"
        #expect(long.utf8.count + 2 > 82)
        let tolerant = try NMEASentence(validating: long)
        #expect(tolerant.exceedsStandardLength)
        #expect(throws: NMEAFrameError.tooLong(length: long.utf8.count + 2)) {
            try NMEASentence(validating: long, options: .strict)
        }
        let short = "$GPGSA,A,3,02,05,11,12,18,20,25,29,,,,,1.4,1.1,0.9*3D"
        #expect(try !NMEASentence(validating: short, options: .strict).exceedsStandardLength)
        #expect(throws: NMEAFrameError.tooLong(length: 2002)) {
            try NMEASentence(validating: NMEAChecksum.seal("$GPTXT," + String(repeating: "A", count: 1990)))
        }
    }

    @Test func missingChecksumCanBeAllowed() throws {
        let options = NMEAFramingOptions(requireChecksum: false)
        let sentence = try NMEASentence(validating: "$GPVTG,054.7,T,034.4,M,005.5,N,010.2,K", options: options)
        #expect(sentence.type == "VTG")
    }

    @Test func talkersAreClassified() throws {
        let cases: [(String, NMEATalker)] = [
            ("GP", .gps), ("GN", .multiGNSS), ("GL", .glonass), ("GA", .galileo),
            ("GB", .beidou(code: "GB")), ("BD", .beidou(code: "BD")), ("GQ", .qzss), ("II", .other("II")),
        ]
        for (code, talker) in cases {
            let sentence = try NMEASentence(validating: NMEAChecksum.seal("$\(code)GSA,A,1,,,,,,,,,,,,,,,"))
            #expect(sentence.talker == talker)
            #expect(sentence.talker.code == code)
            #expect(sentence.type == "GSA")
        }
        let proprietary = try NMEASentence(validating: "$PGRME,7.6,M,41.7,M,42.4,M*2F")
        #expect(proprietary.talker == .proprietary)
        #expect(proprietary.type == "GRME")
        let encapsulated = try NMEASentence(validating: NMEAChecksum.seal("!AIVDM,1,1,,A,13aG?P0P00PD;88MD5MTDww@2<0L,0"))
        #expect(encapsulated.startDelimiter == "!")
    }

    @Test func splitterHandlesAllLineEndingsAcrossChunks() {
        var splitter = NMEALineSplitter()
        var lines: [String] = []
        lines += splitter.push(Array("$A*00\r".utf8))
        lines += splitter.push(Array("\n$B*00\n$C".utf8))
        lines += splitter.push(Array("*00\r$D*00\r\n\r\n".utf8))
        lines += splitter.push(Array("$E*0".utf8))
        lines += splitter.finish()
        #expect(lines == ["$A*00", "$B*00", "$C*00", "$D*00", "$E*0"])
    }

    @Test func splitterDropsRunawayLines() {
        var splitter = NMEALineSplitter(maximumLineLength: 10)
        let lines = splitter.push(Array("0123456789ABCDEF\n$OK*00\n".utf8))
        #expect(lines == ["$OK*00"])
        #expect(splitter.discardedOverlongLines == 1)
    }
}
