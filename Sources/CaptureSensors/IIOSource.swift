package import CaptureCore
package import CaptureIIO
import Glibc
import SystemPackage

/// Captures from one IIO device: buffered reads from its character device when it has scan
/// elements, else polling of its sysfs value files.
///
/// Buffered capture configures the device (`sampling_frequency`, trigger, `*_en`, `length`,
/// `watermark`), writes `enable` last and writes it back to 0 on exit (and clears a trigger it
/// set). The device node is opened `O_NONBLOCK` and waited on with `poll`, with the stop
/// signal's descriptor beside it and no timeout; `read() == 0` means the source ended (a FIFO
/// whose writer closed). Reads are batched by the kernel: the watermark
/// (``IIOBufferSizing``) makes the device readable only once ``maxLatency`` seconds of scans are
/// queued, so a 1 kHz device wakes the process twice a second. A kernel without
/// `buffer/watermark` (before 4.2) wakes the reader at every scan; there the source sleeps
/// ``maxLatency`` after each read instead, for the same batches.
package struct IIOSource: SampleSource {
    /// The device.
    package let device: IIODevice
    /// The rate asked for with `--rate`, Hz.
    package let requestedRate: Double?
    /// The rate buffered capture sets: the available one nearest to ``requestedRate``.
    package let chosenRate: Double?
    /// The rate the value files are read at when the device is polled, Hz: ``requestedRate``,
    /// else the device's `sampling_frequency`, else ``defaultPollingRate``; 0.1 to 1000 Hz.
    package let pollingRate: Double
    /// The `sampling_frequency` polling sets (``pollingFrequency(for:available:)``); `nil` when the device
    /// has no `sampling_frequency`.
    package let pollingFrequency: Double?
    /// Motion converters, one per three-axis sensor of the device.
    package let motion: [IIOMotionConverter]
    /// The pressure converter, if the device has a pressure channel.
    package let pressure: IIOPressureConverter?
    /// Whether capture will be buffered (else polled).
    package let buffered: Bool
    /// Longest time, seconds, a scan may wait in the kernel buffer before it is read; sets the
    /// watermark (see ``IIOBufferSizing``). Keep it well under the recorder's flush interval:
    /// a sample reaches the store at most `maxLatency` + one flush interval after it was taken.
    package var maxLatency: Double = Self.defaultMaxLatency
    /// Half the default 1 s flush interval: two wake-ups a second per device at any rate up to 16 kHz.
    package static let defaultMaxLatency = 0.5
    /// Polling rate when neither `--rate` nor `sampling_frequency` says, Hz.
    package static let defaultPollingRate = 10.0
    /// Seconds after which a polled source first says the rate and jitter it achieves (a
    /// ``SourceNote/info(_:)``, shown in `capture status`); then every 10 minutes.
    package var rateReportAfter: Double = 10

    /// Prepares capture from `device`, resolving scales, offsets and mount matrices now.
    package init(device: IIODevice, rate: Double? = nil) throws(IIOError) {
        self.device = device
        requestedRate = rate
        chosenRate = rate.map { requested in
            guard let nearest = device.availableRates?.nearest(to: requested), nearest > 0, nearest <= 100_000 else { return requested }
            return nearest
        }
        let asked = rate ?? device.currentRate ?? Self.defaultPollingRate
        // Polling is sysfs reads: 0.1 to 1000 Hz, and a rate that is not a number falls back.
        pollingRate = asked.isFinite ? min(max(asked, 0.1), 1000) : Self.defaultPollingRate
        pollingFrequency = device.directory.contains("sampling_frequency") ? Self.pollingFrequency(for: pollingRate, available: device.availableRates) : nil
        let attribute = { (name: String) in device.directory.value(name) }
        var motion: [IIOMotionConverter] = []
        for sensor in MotionSensor.allCases where device.capabilities.motionSensors.contains(sensor) {
            motion.append(try IIOMotionConverter.resolve(sensor: sensor, attribute: attribute))
        }
        self.motion = motion
        pressure = try device.capabilities.pressureChannels.first.map { channel throws(IIOError) in
            try IIOPressureConverter.resolve(channel: channel, attribute: attribute)
        }
        buffered = device.canStream
        // The scan elements are read now too, so that a broken one (an unreadable `_type` or
        // `_index`) is refused by `capture start` rather than found by the running recorder.
        if buffered,
            let scan = IIOBufferDirectories.scanElements().map(device.directory.appending).first(where: {
                $0.entries().contains { $0.hasSuffix("_en") }
            })
        {
            _ = try IIOBufferDirectories.channels(fileNames: scan.entries(), attribute: scan.value)
        }
    }

    /// `iio:iio:device0`, with `@RATE` when a rate was asked for (`iio:iio:device0@200`), so
    /// that the name alone, stored with the measurement, restarts the same capture on resume.
    package var name: String { device.sourceSpec + (requestedRate.map { "@" + Self.format($0) } ?? "") }

    /// One line on what capture will do, for `capture start`.
    package var summary: String {
        var parts = ["\(device.id) (\(device.name)\(device.label.map { ", " + $0 } ?? ""))"]
        parts.append(motion.map(\.sensor.shortName).joined(separator: "+") + (pressure == nil ? "" : (motion.isEmpty ? "" : "+") + "prs"))
        parts.append(buffered ? "buffered" : "polled")
        if let requestedRate, buffered {
            parts.append("rate \(Self.format(chosenRate ?? requestedRate)) Hz (asked \(Self.format(requestedRate)))")
        } else if let requestedRate {
            parts.append("rate \(Self.format(pollingRate)) Hz (asked \(Self.format(requestedRate)))")
            if let pollingFrequency, pollingFrequency != pollingRate {
                parts.append("sampling_frequency \(Self.format(pollingFrequency)) Hz")
            }
        }
        let matrices = motion.filter { $0.mountMatrix != .identity }
        for converter in matrices { parts.append("\(converter.sensor.shortName) mount matrix \(converter.mountMatrix.text)") }
        return parts.joined(separator: ", ")
    }

    /// The rate samples should arrive at when one was asked for (`capture doctor` checks it):
    /// buffered, ``chosenRate``; polled, ``pollingRate``.
    package var expectedRate: Double? {
        guard requestedRate != nil else { return nil }
        return buffered ? chosenRate : pollingRate
    }

    /// The `sampling_frequency` for polling at `rate` Hz: the lowest available at or above it
    /// (else the highest), so that every read finds a new conversion where the nearest rate
    /// could be slower and repeat values; `rate` itself when the device lists no rates.
    package static func pollingFrequency(for rate: Double, available: IIOSamplingFrequencies?) -> Double {
        guard let atLeast = available?.lowest(atLeast: rate), atLeast > 0, atLeast <= 100_000 else { return rate }
        return atLeast
    }

    /// A rate without a needless `.0` (`100`, `12.5`).
    package static func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }

    /// The buffer sizing for this source: its rate (as set, else the device's, else assumed) and
    /// ``maxLatency``.
    package var bufferSizing: IIOBufferSizing {
        IIOBufferSizing(rate: chosenRate ?? device.currentRate, maxLatency: maxLatency)
    }

    /// Configures the device, captures until it ends, fails or `stop` is given, and restores it.
    package func run(into sink: any SampleSink) throws {
        let deliverAll: @Sendable ([Sample]) -> Void = { sink.deliver($0) }
        let note: @Sendable (SourceNote) -> Void = { sink.note($0) }
        let stop = sink.stop
        // A buffer left enabled (by a crashed capture) must be off before anything is configured.
        if buffered, let control = try? bufferDirectories().control, control.value("enable") == "1" {
            try control.write("enable", "0")
        }
        if buffered {
            var deviceRate = device.currentRate
            if let chosenRate, device.directory.contains("sampling_frequency") {
                deviceRate = setSamplingFrequency(chosenRate, polling: false, note: note) ?? deviceRate
            }
            do {
                try runBuffered(deviceRate: deviceRate, deliverAll: deliverAll, note: note, stop: stop)
                return
            } catch let refused as TriggerlessRefusal {
                // No trigger to be had (Debian's kernel has no software trigger; a sensor whose
                // interrupt pin is not wired has no data-ready one), but the values read fine.
                note(.info("buffer refused without a trigger (\(refused.reason)); polling the value files instead"))
            }
        }
        try runPolled(deliverAll: deliverAll, note: note, stop: stop)
    }

    /// The kernel refused to enable the buffer of a device with no trigger set or found and no
    /// hardware FIFO: ``run(into:)`` polls it instead.
    struct TriggerlessRefusal: Error {
        var reason: String
    }

    /// Sets `sampling_frequency` to `rate` Hz (for buffered capture, or for polling at
    /// ``pollingRate``) unless it reads so already, says in a note what the device runs at
    /// afterwards, and returns that (`nil` when unknown). Never fatal: a device that keeps its
    /// rate (a read-only attribute, a value its driver refuses) is captured at that rate, and the
    /// note says so, and that values repeat when it converts slower than it is polled. The rate
    /// is not put back when the source ends.
    private func setSamplingFrequency(_ rate: Double, polling: Bool, note: @Sendable (SourceNote) -> Void) -> Double? {
        let directory = device.directory
        let readRate = { directory.value("sampling_frequency").flatMap(Double.init).flatMap { $0 > 0 && $0 <= 100_000 ? $0 : nil } }
        let before = readRate()
        var refusal: DeviceError?
        if before != rate {
            do {
                try directory.write("sampling_frequency", Self.format(rate))
            } catch {
                refusal = error
            }
        }
        let after = readRate()
        let purpose = polling ? " for polling at \(Self.format(pollingRate)) Hz" : ""
        let runs = after.map { "\(Self.format($0)) Hz" } ?? "a rate it does not say"
        let repeats = polling && after.map { $0 < pollingRate } == true ? ", slower than it is polled: values repeat" : ""
        let unlisted = polling && device.availableRates == nil ? " (the device lists no sampling_frequency_available)" : ""
        if let refusal {
            note(.info("sampling_frequency not set to \(Self.format(rate)) Hz\(purpose) (\(refusal.reason)); the device runs at \(runs)\(repeats)"))
            return after
        }
        if before == rate {
            note(.info("sampling_frequency already \(Self.format(rate)) Hz\(purpose)\(unlisted)"))
        } else if after == nil || after == rate {
            note(.info("sampling_frequency set to \(Self.format(rate)) Hz\(purpose)\(unlisted)"))
        } else {
            note(.info("sampling_frequency set to \(Self.format(rate)) Hz\(purpose); the device runs at \(runs)\(repeats)\(unlisted)"))
        }
        return after ?? rate
    }

    // MARK: Polling

    private func runPolled(
        deliverAll: @Sendable ([Sample]) -> Void, note: @Sendable (SourceNote) -> Void, stop: StopSignal
    ) throws {
        let rate = pollingRate
        // The device converts at least as often as it is read, where it lets itself be set.
        var deviceRate: Double?
        if let pollingFrequency {
            deviceRate = setSamplingFrequency(pollingFrequency, polling: true, note: note)
        } else {
            note(.info("no sampling_frequency to set: polling at \(Self.format(rate)) Hz whatever the device converts at"))
        }
        let period = 1000 / rate
        let attribute = { (name: String) in device.directory.value(name) }
        let start = WallClock.now()
        var tick: Int64 = 0
        // What the timer achieves, said once after the first window and then now and then
        // (each different note is a line in the recorder's journal).
        var statistics = PollingStatistics(askedRate: rate, deviceRate: deviceRate)
        var window = Int64(rateReportAfter * 1e9)
        var windowStart = PollingStatistics.monotonicNanoseconds()
        while !stop.isStopped {
            let now = WallClock.now()
            let monotonic = PollingStatistics.monotonicNanoseconds()
            statistics.read(at: monotonic)
            if monotonic - windowStart >= window {
                if let text = statistics.text { note(.info(text)) }
                statistics.reset()
                (window, windowStart) = (Self.pollingWindow, monotonic)
            }
            guard device.directory.exists else {
                throw DeviceError(path: device.directory.path, action: "read", reason: "the device vanished")
            }
            var samples: [Sample] = []
            for converter in motion {
                do {
                    samples.append(.motion(converter.sensor, try converter.polledSample(attribute: attribute, timestamp: now)))
                } catch {
                    note(.lost(1, reason: "\(error)"))
                }
            }
            if let pressure {
                do {
                    samples.append(.pressure(try pressure.polledSample(attribute: attribute, timestamp: now)))
                } catch {
                    note(.lost(1, reason: "\(error)"))
                }
            }
            if !samples.isEmpty { deliverAll(samples) }
            tick += 1
            // Reads that overran their period are not made up in a burst (samples bunched
            // together say nothing the next one does not): the timer skips to the next tick.
            let late = Double(WallClock.now() - start) / period - Double(tick)
            if late >= 1 {
                statistics.skip(Int(late))
                tick += Int64(late)
            }
            let due = start + Int64((Double(tick) * period).rounded())
            if !stop.sleep(until: due) { return }
        }
    }

    /// The windows, ns, over which a polled source says what rate it achieved after the first
    /// (``rateReportAfter``): 10 minutes.
    static let pollingWindow: Int64 = 600_000_000_000

    // MARK: Buffered

    /// The scan-elements and control directories of buffer 0.
    private func bufferDirectories() throws(DeviceError) -> (scan: SysfsDirectory, control: SysfsDirectory) {
        let scan = IIOBufferDirectories.scanElements().map(device.directory.appending).first {
            $0.entries().contains { $0.hasSuffix("_en") }
        }
        let control = IIOBufferDirectories.control().map(device.directory.appending).first { $0.contains("enable") }
        guard let scan, let control else {
            throw DeviceError(path: device.directory.path, action: "find the buffer of", reason: "no scan elements or enable file")
        }
        return (scan, control)
    }

    /// Channel names the source wants in each scan.
    private var wantedChannels: Set<String> {
        var names = Set(motion.flatMap { $0.axes.map(\.name) })
        if let pressure { names.insert(pressure.channel.name) }
        names.insert("in_timestamp")
        return names
    }

    /// Buffered capture of a device running at `deviceRate` Hz (what it read after the rate was
    /// set, else as found; it sizes the buffer).
    private func runBuffered(
        deviceRate: Double?, deliverAll: @Sendable ([Sample]) -> Void, note: @Sendable (SourceNote) -> Void, stop: StopSignal
    ) throws {
        let (scanDirectory, control) = try bufferDirectories()
        let wanted = wantedChannels
        // Configure with the buffer off (see `run`): rate, trigger, channel selection, length, watermark.
        let triggerDirectory = device.directory.appending("trigger")
        var setTrigger = false
        if triggerDirectory.exists, (device.currentTrigger ?? "").isEmpty, let matching = device.matchingTrigger {
            try triggerDirectory.write("current_trigger", matching)
            setTrigger = true
            note(.info("trigger \(matching)"))
        }
        for file in scanDirectory.entries() where file.hasSuffix("_en") {
            let enable = wanted.contains(String(file.dropLast(3)))
            try scanDirectory.write(file, enable ? "1" : "0")
        }
        let channels = try IIOBufferDirectories.channels(fileNames: scanDirectory.entries(), attribute: scanDirectory.value)
        let layout = try IIOScanLayout(channels: channels)
        guard layout.scanSize > 0 else {
            throw DeviceError(path: scanDirectory.path, action: "enable channels in", reason: "no channel could be enabled")
        }
        let sizing = IIOBufferSizing(rate: deviceRate ?? chosenRate, maxLatency: maxLatency)
        if control.contains("length") {
            try control.write("length", String(sizing.length))
        }
        // The kernel refuses a watermark above the length (EINVAL), so the length goes first.
        var kernelBatches = false
        if control.contains("watermark") {
            do {
                try control.write("watermark", String(sizing.watermark))
                kernelBatches = true
                note(.info("buffer watermark \(sizing.watermark) scans, length \(sizing.length)"))
            } catch {
                note(.info("buffer watermark not accepted (\(error.reason)); reading every \(Self.format(sizing.batchPeriod)) s instead"))
            }
        } else {
            note(.info("no buffer watermark (kernel before 4.2); reading every \(Self.format(sizing.batchPeriod)) s instead"))
        }
        let batchPeriod = kernelBatches ? nil : Int64((sizing.batchPeriod * 1000).rounded())
        let clock = device.timestampClock.flatMap(IIOTimestampClock.init(parsing:)) ?? .realtime
        let offset = Self.offsetToUnix(clock)
        // Enable last; undo on every exit.
        do {
            try control.write("enable", "1")
        } catch {
            if setTrigger { try? triggerDirectory.write("current_trigger", "NULL") }
            // Trigger-less was tried (no trigger set or found, no hardware FIFO): poll instead.
            if (device.currentTrigger ?? "").isEmpty && !setTrigger && !device.hasHardwareFIFO {
                throw TriggerlessRefusal(reason: error.reason)
            }
            throw error
        }
        defer {
            try? control.write("enable", "0")
            if setTrigger { try? triggerDirectory.write("current_trigger", "NULL") }
        }
        let fd = open(device.node, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw DeviceError(path: device.node, action: "open", errno: errno) }
        defer { close(fd) }

        // Where each wanted value sits in a scan, worked out once rather than per scan.
        let timestampElement = layout.element(named: "in_timestamp")
        var motionElements: [(IIOMotionConverter, [IIOScanElement])] = []
        for converter in motion {
            var elements: [IIOScanElement] = []
            for axis in converter.axes {
                guard let element = layout.element(named: axis.name) else {
                    throw DeviceError(path: scanDirectory.path, action: "enable", reason: "\(axis.name) is not in the scan")
                }
                elements.append(element)
            }
            motionElements.append((converter, elements))
        }
        let pressureElement = try pressure.map { converter throws(DeviceError) in
            guard let element = layout.element(named: converter.channel.name) else {
                throw DeviceError(path: scanDirectory.path, action: "enable", reason: "\(converter.channel.name) is not in the scan")
            }
            return (converter, element)
        }
        let scanSize = layout.scanSize
        func first(_ element: IIOScanElement, _ bytes: UnsafeRawBufferPointer, _ start: Int) throws(IIOError) -> IIORawValue {
            try element.channel.type.decodeFirst(bytes, at: start + element.offset)
        }
        /// Delivers every whole scan in `bytes`, all at once.
        var batch: [Sample] = []
        func decodeScans(_ bytes: UnsafeRawBufferPointer, now: Int64) {
            batch.removeAll(keepingCapacity: true)
            defer { if !batch.isEmpty { deliverAll(batch) } }
            var start = 0
            while start + scanSize <= bytes.count {
                defer { start += scanSize }
                do {
                    var time = now
                    if let timestampElement, let ns = try first(timestampElement, bytes, start).int64Value {
                        time = IIOUnits.unixMilliseconds(fromNanoseconds: ns &+ offset)
                    }
                    for (converter, elements) in motionElements {
                        let sample = converter.sample(
                            rawX: try first(elements[0], bytes, start).doubleValue,
                            rawY: try first(elements[1], bytes, start).doubleValue,
                            rawZ: try first(elements[2], bytes, start).doubleValue, timestamp: time)
                        batch.append(.motion(converter.sensor, sample))
                    }
                    if let (converter, element) = pressureElement {
                        let hectopascals = converter.hectopascals(raw: try first(element, bytes, start))
                        batch.append(.pressure(PressureSample(timestamp: time, hectopascals: hectopascals)))
                    }
                } catch {
                    note(.lost(1, reason: "\(error)"))
                }
            }
        }

        var reassembler = IIOScanReassembler(scanSize: scanSize)
        // Room for two batches, so one read takes what a wake-up found.
        let capacity = scanSize * max(256, 2 * sizing.watermark)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 8)
        defer { buffer.deallocate() }
        let node = FileDescriptor(rawValue: fd)
        // After a read that filled the buffer, read again before waiting: more is queued.
        var full = false
        while !stop.isStopped {
            if !full {
                // No timeout: data (at the watermark), the device going away, or the stop signal.
                let readiness: StopSignal.Readiness
                do {
                    readiness = try stop.wait(for: fd, timeout: nil)
                } catch {
                    throw DeviceError(path: device.node, action: "poll", errno: error.rawValue)
                }
                guard case .ready(let revents) = readiness else { return }
                if revents & Int16(POLLERR | POLLNVAL) != 0 && revents & Int16(POLLIN) == 0 {
                    throw DeviceError(path: device.node, action: "read", reason: "the device vanished")
                }
            }
            let count: Int
            do {
                count = try node.read(into: buffer)
            } catch let error as Errno where error == .resourceTemporarilyUnavailable {
                full = false
                continue
            } catch {
                throw DeviceError(path: device.node, action: "read", errno: (error as? Errno)?.rawValue ?? EIO)
            }
            if count == 0 {
                if reassembler.pendingByteCount > 0 {
                    note(.lost(1, reason: "a partial scan at the end of \(device.node)"))
                }
                return
            }
            let received = UnsafeRawBufferPointer(rebasing: buffer[0..<count])
            if reassembler.pendingByteCount == 0 && count % scanSize == 0 {
                // Whole scans, as the kernel hands them out: decode in place.
                decodeScans(received, now: WallClock.now())
            } else {
                reassembler.push(received).withUnsafeBytes { decodeScans($0, now: WallClock.now()) }
            }
            full = count == capacity
            if let batchPeriod, !full {
                // No watermark: let a batch gather, as the kernel would have.
                if !stop.sleep(until: WallClock.now() + batchPeriod) { return }
            }
        }
    }

    /// Nanoseconds to add to a timestamp of `clock` to get Unix time (0 for the realtime clocks).
    static func offsetToUnix(_ clock: IIOTimestampClock) -> Int64 {
        let id: clockid_t
        switch clock {
        case .realtime, .realtimeCoarse: return 0
        case .monotonic: id = CLOCK_MONOTONIC
        case .monotonicRaw: id = CLOCK_MONOTONIC_RAW
        case .monotonicCoarse: id = CLOCK_MONOTONIC_COARSE
        case .boottime: id = CLOCK_BOOTTIME
        case .tai: id = CLOCK_TAI
        }
        var real = timespec()
        var other = timespec()
        clock_gettime(CLOCK_REALTIME, &real)
        clock_gettime(id, &other)
        return (Int64(real.tv_sec) - Int64(other.tv_sec)) * 1_000_000_000 + Int64(real.tv_nsec) - Int64(other.tv_nsec)
    }
}
