package import CaptureCore
package import CaptureGNSS
import Glibc

/// Reads a GNSS receiver straight from its device: a tty (`/dev/ttyACM0`, put in raw mode), a
/// pty, `/dev/gnss0` (where termios may not apply; that is fine), a FIFO or a plain file (read to
/// its end; the source then ends).
///
/// The receiver may speak NMEA 0183, u-blox UBX, or both on one port (``GNSSReceiverStream``):
/// NMEA epochs and UBX NAV epochs become fixes, and a u-blox dead-reckoning module's UBX-ESF-RAW
/// / ESF-MEAS become accelerometer and gyroscope samples (on GNSS time, see
/// ``UBXSensorSamples``). Bad, truncated and unknown sentences and frames are skipped and
/// reported as losses; fix acquired and lost are reported as ``SourceNote/gnss(state:)``.
package struct NMEASource: SampleSource {
    /// The device or file.
    package let path: String

    /// A reader of `path`.
    package init(path: String) {
        self.path = path
    }

    /// `nmea:/dev/ttyACM0`.
    package var name: String { "nmea:\(path)" }

    /// A receiver's GNSS time; a plain file is a recording, whose times are its own.
    package var clock: SourceClock {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG ? .recorded : .gnss
    }

    /// Checks that `path` can be opened for reading now.
    package func check() throws(DeviceError) {
        let fd = open(path, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw DeviceError(path: path, action: "open", errno: errno) }
        close(fd)
    }

    /// Reads until the file or FIFO ends, the device fails, or `stop` is given. It waits in poll
    /// with no timer while no fix is held, else until the fix would count as lost: one wake-up
    /// per burst of sentences the receiver writes at once.
    package func run(into sink: any SampleSink) throws {
        let stop = sink.stop
        let device = try ReceiverDevice(path: path, writable: false)
        defer { device.close() }
        if let failure = device.rawModeFailure { sink.note(.info("could not put \(path) in raw mode: \(failure)")) }
        var stream = GNSSReceiverStream()
        var watch = GNSSFixWatch()
        var rejected = 0
        var unsupported = 0
        sink.note(.gnss(state: watch.state))
        var buffer = [UInt8](repeating: 0, count: 4096)

        func handle(_ received: [ReceiverEvent]) {
            let now = WallClock.now()
            watch.hand(received, to: sink, now: now)
            let stats = stream.stats
            let total = stats.rejected
            if total > rejected {
                sink.note(.lost(total - rejected, reason: "bad or unknown NMEA sentences or UBX frames"))
                rejected = total
            }
            let unused = stats.unused
            if unused > unsupported {
                sink.note(.skipped(unused - unsupported))
                unsupported = unused
            }
        }

        while !stop.isStopped {
            let now = WallClock.now()
            if let state = watch.tick(now: now) { sink.note(.gnss(state: state)) }
            let input: ReceiverDevice.Input
            do {
                input = try device.next(into: &buffer, stop: stop, timeout: watch.deadline.map { max(0, $0 - now) })
            } catch {
                if error.action == "read" { handle(stream.finish()) }
                throw error
            }
            switch input {
            case .bytes(let count): handle(stream.push(buffer[0..<count]))
            case .nothing: continue
            case .stopped: return
            case .end:
                // The end of a file, or a FIFO whose writer closed: the source has ended.
                handle(stream.finish())
                return
            }
        }
    }
}
