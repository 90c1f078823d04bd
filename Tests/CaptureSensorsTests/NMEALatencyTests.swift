import CaptureCore
import CaptureSensors
import CaptureTestSupport
import Foundation
import Glibc
import Testing

/// Issue 13.4, no late fixes: the delay from an epoch's last sentence written to a pty to its fix
/// handed to the recorder (the source's `deliver`). The target is under 50 ms; without early
/// closing it was one navigation interval (here 400 ms), because an epoch closed only when the
/// next one began.
@Suite("NMEA over a pty: no late fixes")
struct NMEALatencyTests {
    /// Receipt times of fixes, by fix timestamp, on the monotonic clock.
    final class Arrivals: @unchecked Sendable {
        private let lock = NSLock()
        private var times: [Int64: UInt64] = [:]
        func deliver(_ sample: Sample) {
            guard case .fix(let fix) = sample else { return }
            let now = DispatchTime.now().uptimeNanoseconds
            lock.withLock { times[fix.timestamp] = times[fix.timestamp] ?? now }
        }
        func time(of timestamp: Int64) -> UInt64? { lock.withLock { times[timestamp] } }
    }

    @Test("each fix reaches the recorder within a few ms of its epoch's last sentence")
    func fixesAreNotHeldBackForTheNextEpoch() throws {
        let terminal = try PseudoTerminal()
        let path = terminal.path
        let arrivals = Arrivals()
        let stop = StopFlag()
        let worker = Worker {
            try? NMEASource(path: path).run(deliver: arrivals.deliver, note: { _ in }, shouldStop: { stop.isSet })
        }
        usleep(200_000)
        terminal.closeSlave()
        let epochs = 8
        var lastWritten: [Int64: UInt64] = [:]
        for second in 0..<epochs {
            let time = String(format: "1200%02d.00", second)
            let sentences = [
                "$GPRMC,\(time),A,5103.0240,N,01344.2380,E,10.0,90.0,140626,,,A*",
                "$GPGGA,\(time),5103.0240,N,01344.2380,E,1,08,0.9,112.0,M,46.0,M,,*",
                "$GPGSA,A,3,01,02,03,04,05,06,07,08,,,,,1.6,0.9,1.3*",
            ].map(GNSSSourceTests.withChecksum)
            for sentence in sentences {
                let bytes = Array((sentence + "\r\n").utf8)
                _ = terminal.write(bytes)
                lastWritten[1_781_438_400_000 + Int64(second) * 1000] = DispatchTime.now().uptimeNanoseconds
                usleep(5_000)  // a receiver at 9600 baud takes about this long per sentence
            }
            usleep(400_000)
        }
        // Wait briefly for the last delivery, then stop the source.
        let deadline = Date().addingTimeInterval(2)
        while Date() < deadline, arrivals.time(of: 1_781_438_400_000 + Int64(epochs - 1) * 1000) == nil { usleep(10_000) }
        stop.set()
        #expect(worker.join())
        // From the second epoch on the receiver's order is known.
        var delays: [Double] = []
        for second in 1..<epochs {
            let timestamp = 1_781_438_400_000 + Int64(second) * 1000
            guard let written = lastWritten[timestamp], let arrived = arrivals.time(of: timestamp) else {
                Issue.record("the fix of epoch \(second) never arrived")
                continue
            }
            delays.append(Double(Int64(arrived) - Int64(written)) / 1e6)
        }
        let sorted = delays.sorted()
        let median = sorted.isEmpty ? .infinity : sorted[sorted.count / 2]
        let worst = sorted.last ?? .infinity
        print("NMEA epoch-to-recorder delay over a pty: median \(String(format: "%.2f", median)) ms, worst \(String(format: "%.2f", worst)) ms")
        // Target < 50 ms; a generous bound for a loaded machine, still far below the 400 ms interval.
        #expect(median < 50, "median delay \(median) ms")
        #expect(worst < 250, "worst delay \(worst) ms")
    }
}
