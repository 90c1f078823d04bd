package import CaptureCore
package import CaptureGNSS
import Glibc

/// Positions from gpsd over its JSON protocol (`?WATCH`), TPVs merged into one fix per epoch,
/// and the accelerometer, gyroscope and magnetometer of receivers with their own sensors (gpsd's
/// `IMU` and `ATT` reports, placed on GNSS time by ``GPSDMotionSamples``).
///
/// When gpsd goes away (restart, crash) the source reconnects with exponential backoff, from
/// ``initialBackoff`` doubling to ``maximumBackoff``; it never fails for that reason alone.
package struct GPSDSource: SampleSource {
    /// Host name or address (default `127.0.0.1`).
    package let host: String
    /// TCP port (default 2947).
    package let port: UInt16
    /// First reconnect delay, ms.
    package var initialBackoff: Int64 = 250
    /// Longest reconnect delay, ms.
    package var maximumBackoff: Int64 = 8_000

    /// The default gpsd address.
    package static let defaultAddress = "127.0.0.1:2947"

    /// A client of gpsd at `host:port`.
    package init(host: String = "127.0.0.1", port: UInt16 = 2947) {
        self.host = host
        self.port = port
    }

    /// Parses `HOST:PORT`, `HOST` or `:PORT`; `nil` if the port is not a number.
    package init?(address: String) {
        guard let colon = address.lastIndex(of: ":") else {
            self.init(host: address.isEmpty ? "127.0.0.1" : address)
            return
        }
        guard let port = UInt16(address[address.index(after: colon)...]) else { return nil }
        let host = String(address[..<colon])
        self.init(host: host.isEmpty ? "127.0.0.1" : host, port: port)
    }

    /// `gpsd:127.0.0.1:2947`.
    package var name: String { "gpsd:\(host):\(port)" }

    /// gpsd reports its receivers' GNSS time.
    package var clock: SourceClock { .gnss }

    /// Whether gpsd answers at the address now (a connect that succeeds within `timeout` ms).
    package func isReachable(timeout: Int32 = 300) -> Bool {
        guard let fd = try? connect(timeout: timeout) else { return false }
        close(fd)
        return true
    }

    /// What gpsd sent in a short watch: its receivers and the kinds of reports they give.
    package struct Probe: Sendable, Equatable, Codable {
        /// Receivers gpsd named (`DEVICES`/`DEVICE`): path and driver, e.g. `/dev/ttyACM0 (u-blox)`.
        package var receivers: [String] = []
        /// Reports received by class (`TPV`, `SKY`, `IMU`, `ATT`, …).
        package var reports: [String: Int] = [:]
        /// Motion sensors seen in `IMU`/`ATT` reports (`acc`, `gyr`, `mag`): the receiver has an IMU.
        package var motion: [String] = []
        /// Whether a TPV held a 2D or 3D fix.
        package var fix = false
    }

    /// Watches gpsd for `milliseconds` and says what arrived; `nil` if it does not answer.
    package func probe(milliseconds: Int64) -> Probe? {
        guard let fd = try? connect(timeout: 300) else { return nil }
        defer { close(fd) }
        let command = Array(GPSDCommand.watch().utf8)
        guard command.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == command.count else {
            return nil
        }
        var probe = Probe()
        var motion = Set<MotionSensor>()
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 8192)
        let deadline = WallClock.now() + milliseconds
        func take(_ line: String) {
            guard let message = try? GPSDMessage(line: line) else { return }
            func receiver(_ device: GPSDDevice) {
                guard let path = device.path, !device.isDeactivated else { return }
                let name = path + (device.driver.map { " (\($0))" } ?? "")
                if !probe.receivers.contains(name) { probe.receivers.append(name) }
            }
            switch message {
            case .devices(let devices): devices.forEach(receiver)
            case .device(let device): receiver(device)
            case .tpv(let tpv): if tpv.fix != nil { probe.fix = true }
            case .motion(let report):
                if report.acceleration != nil { motion.insert(.accelerometer) }
                if report.angularRate != nil { motion.insert(.gyroscope) }
                if report.magneticField != nil { motion.insert(.magnetometer) }
            default: break
            }
            let className: String? = switch message {
            case .tpv: "TPV"
            case .sky: "SKY"
            case .gst: "GST"
            case .motion(let report): report.className
            case .other(let name): name
            default: nil
            }
            if let className { probe.reports[className, default: 0] += 1 }
        }
        while true {
            let left = deadline - WallClock.now()
            if left <= 0 { break }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(min(left, 250)))
            if ready < 0 && errno != EINTR { break }
            if ready <= 0 { continue }
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            if count <= 0 { break }
            pending.append(contentsOf: buffer[0..<count])
            var start = 0
            while let newline = pending[start...].firstIndex(of: 0x0A) {
                take(String(decoding: pending[start..<newline], as: UTF8.self))
                start = newline + 1
            }
            pending.removeFirst(start)
            if pending.count > 1 << 20 { pending.removeAll() }
        }
        probe.motion = MotionSensor.allCases.filter(motion.contains).map(\.shortName)
        return probe
    }

    /// Connects; returns the socket, blocking, with close-on-exec.
    func connect(timeout: Int32 = 2_000) throws(DeviceError) -> Int32 {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_family = AF_UNSPEC
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw DeviceError(path: "\(host):\(port)", action: "resolve", reason: String(cString: gai_strerror(status)))
        }
        defer { freeaddrinfo(list) }
        var lastError = ECONNREFUSED
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry {
            entry = current.pointee.ai_next
            let fd = socket(current.pointee.ai_family, current.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), current.pointee.ai_protocol)
            guard fd >= 0 else { lastError = errno; continue }
            if Glibc.connect(fd, current.pointee.ai_addr, current.pointee.ai_addrlen) != 0 {
                if errno != EINPROGRESS { lastError = errno; close(fd); continue }
                var poller = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                var soError: Int32 = 0
                var length = socklen_t(MemoryLayout<Int32>.size)
                if poll(&poller, 1, timeout) != 1 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &soError, &length) != 0 || soError != 0 {
                    lastError = soError != 0 ? soError : ETIMEDOUT
                    close(fd)
                    continue
                }
            }
            let flags = fcntl(fd, F_GETFL)
            _ = fcntl(fd, F_SETFL, flags & ~O_NONBLOCK)
            return fd
        }
        throw DeviceError(path: "\(host):\(port)", action: "connect to gpsd at", errno: lastError)
    }

    /// Watches gpsd until `stop` is given, reconnecting whenever the connection is lost. Between
    /// reports it waits in poll with no timer while no fix is held, else until the fix would
    /// count as lost.
    package func run(into sink: any SampleSink) throws {
        let stop = sink.stop
        var watch = GNSSFixWatch()
        sink.note(.gnss(state: watch.state))
        var backoff = initialBackoff
        var connectedOnce = false
        while !stop.isStopped {
            let fd: Int32
            do {
                fd = try connect()
            } catch {
                sink.note(.info("\(error); retrying in \(backoff) ms"))
                if !stop.sleep(until: WallClock.now() + backoff) { return }
                backoff = min(backoff * 2, maximumBackoff)
                continue
            }
            if connectedOnce { sink.note(.info("reconnected to gpsd at \(host):\(port)")) }
            connectedOnce = true
            let gotData = session(fd: fd, watch: &watch, sink: sink)
            close(fd)
            if stop.isStopped { return }
            if gotData { backoff = initialBackoff }
            sink.note(.info("gpsd at \(host):\(port) closed the connection; reconnecting in \(backoff) ms"))
            if !stop.sleep(until: WallClock.now() + backoff) { return }
            backoff = min(backoff * 2, maximumBackoff)
        }
    }

    /// One connection: watch, read lines until gpsd closes or the source stops. Returns whether
    /// any report arrived.
    private func session(
        fd: Int32, watch: inout GNSSFixWatch, sink: any SampleSink
    ) -> Bool {
        let stop = sink.stop
        let command = Array(GPSDCommand.watch().utf8)
        guard command.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == command.count else {
            return false
        }
        var stream = GPSDStream()
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 8192)
        var gotData = false
        var invalid = 0
        func handle(_ received: [ReceiverEvent]) {
            watch.hand(received, to: sink, now: WallClock.now())
            let total = stream.stats.invalid + stream.stats.notJSON
            if total > invalid {
                sink.note(.lost(total - invalid, reason: "unreadable gpsd reports"))
                invalid = total
            }
        }
        while !stop.isStopped {
            let now = WallClock.now()
            if let state = watch.tick(now: now) { sink.note(.gnss(state: state)) }
            // An interrupted recv means "nothing yet" (EINTR in poll is retried by the signal).
            guard let readiness = try? stop.wait(for: fd, timeout: watch.deadline.map { max(0, $0 - now) }) else { break }
            if readiness == .stopped { break }
            if readiness == .timedOut { continue }
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            if count <= 0 { break }
            gotData = true
            pending.append(contentsOf: buffer[0..<count])
            var start = 0
            while let newline = pending[start...].firstIndex(of: 0x0A) {
                handle(stream.line(String(decoding: pending[start..<newline], as: UTF8.self), receivedAt: WallClock.now()))
                start = newline + 1
            }
            pending.removeFirst(start)
            if pending.count > 1 << 20 { pending.removeAll() }
        }
        handle(stream.finish())
        return gotData
    }
}
