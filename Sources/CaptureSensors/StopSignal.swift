import Glibc
import Synchronization
package import SystemPackage

/// Tells sources, and the recorder's own threads, to stop: a flag and a pipe that turns readable
/// at the same moment, so a thread blocked in `poll(2)` wakes at once instead of checking a flag
/// on a short timer. A thread waiting for data, a client or a deadline puts ``descriptor`` in its
/// poll set (``wait(for:timeout:)``, ``sleep(until:)``), and sleeps for as long as nothing
/// happens.
///
/// A signal made from a `shouldStop` closure (``init(polling:)``, for a caller that only has a
/// flag to offer) has no descriptor; its waits then wake every ``pollingInterval`` ms to ask
/// the closure.
package final class StopSignal: Sendable {
    private let flag = Atomic<Bool>(false)
    private let check: (@Sendable () -> Bool)?
    /// Read end of the pipe (readable once stopped); `-1` for a polling signal.
    package let descriptor: Int32
    private let writeEnd: Int32

    /// How often a polling signal asks its closure while waiting, ms.
    package static let pollingInterval: Int32 = 100

    /// A signal with a descriptor. If no pipe can be made (out of descriptors) it polls its flag.
    package init() {
        var ends: [Int32] = [-1, -1]
        // pipe2 is not in Glibc's module map; the flags are set one by one (no exec can
        // happen in between that matters: the recorder starts no processes).
        if pipe(&ends) == 0 {
            for end in ends {
                _ = fcntl(end, F_SETFD, FD_CLOEXEC)
                _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            }
            descriptor = ends[0]
            writeEnd = ends[1]
        } else {
            descriptor = -1
            writeEnd = -1
        }
        check = nil
    }

    /// A signal without a descriptor that is stopped once `shouldStop()` (or ``stop()``) says so.
    package init(polling shouldStop: @escaping @Sendable () -> Bool) {
        descriptor = -1
        writeEnd = -1
        check = shouldStop
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
        if writeEnd >= 0 { close(writeEnd) }
    }

    /// Whether ``stop()`` was called (or the closure says stop).
    package var isStopped: Bool { flag.load(ordering: .acquiring) || (check?() ?? false) }

    /// Stops: sets the flag and makes ``descriptor`` readable for good (one byte, never read).
    package func stop() {
        guard !flag.exchange(true, ordering: .acquiringAndReleasing) else { return }
        if writeEnd >= 0 {
            var byte: UInt8 = 1
            _ = write(writeEnd, &byte, 1)
        }
    }

    /// What ``wait(for:timeout:)`` saw.
    package enum Readiness: Equatable, Sendable {
        /// `fd` is ready; its `revents`.
        case ready(Int16)
        /// The signal was given (checked first: a stop wins over ready data).
        case stopped
        /// The timeout passed.
        case timedOut
    }

    /// Waits until `fd` is readable (or hung up, or in error), the signal is given, or `timeout` ms pass (`nil`:
    /// no timeout). `fd` −1 waits for the signal alone. EINTR is retried; another poll error is
    /// thrown as its errno.
    package func wait(for fd: Int32, timeout: Int64?) throws(Errno) -> Readiness {
        let deadline = timeout.map { Self.monotonicMilliseconds() + max(0, $0) }
        while true {
            if isStopped { return .stopped }
            var left: Int64 = -1
            if let deadline {
                left = max(0, deadline - Self.monotonicMilliseconds())
            }
            if descriptor < 0 {
                // A polling signal: never block longer than the polling interval.
                left = left < 0 ? Int64(Self.pollingInterval) : min(left, Int64(Self.pollingInterval))
            }
            var set = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&set, 2, Int32(clamping: left))
            if ready < 0 {
                if errno == EINTR { continue }
                throw Errno(rawValue: errno)
            }
            if set[1].revents != 0 || isStopped { return .stopped }
            if set[0].revents != 0 { return .ready(set[0].revents) }
            if let deadline, Self.monotonicMilliseconds() >= deadline { return .timedOut }
        }
    }

    /// Sleeps until `deadline` (Unix ms, ``WallClock``); returns `false` at once when the signal
    /// is given. One wake-up per call, unless the signal polls.
    package func sleep(until deadline: Int64) -> Bool {
        while true {
            if isStopped { return false }
            let left = deadline - WallClock.now()
            if left <= 0 { return true }
            guard let readiness = try? wait(for: -1, timeout: left) else { return !isStopped }
            if readiness == .stopped { return false }
        }
    }

    private static func monotonicMilliseconds() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
    }
}
