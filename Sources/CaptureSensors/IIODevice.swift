package import CaptureCore
package import CaptureIIO

/// One IIO device found under `<root>/sys/bus/iio/devices`, as `capture sensors` lists it.
///
/// Devices are recognised by their channel files (``IIODeviceCapabilities``), never by `name`:
/// one chip can appear as several devices, and several chips can share a name.
package struct IIODevice: Sendable, Equatable {
    /// `iio:device0`.
    package var id: String
    /// The sysfs directory.
    package var directory: SysfsDirectory
    /// The character device, `<root>/dev/iio:device0`.
    package var node: String
    /// The `name` attribute (chip or part number).
    package var name: String
    /// The optional `label` attribute (`accel-base`, …).
    package var label: String?
    /// What the device can measure.
    package var capabilities: IIODeviceCapabilities
    /// The channel names with a value file (`in_accel_x`, `in_pressure`, …), sorted.
    package var channels: [String]
    /// `sampling_frequency_available`, parsed; `nil` when absent or unreadable.
    package var availableRates: IIOSamplingFrequencies?
    /// The text of `sampling_frequency_available`, for listing.
    package var availableRatesText: String?
    /// `sampling_frequency` in Hz, if the device has one that makes sense (above 0, at most 100 kHz).
    package var currentRate: Double?
    /// Whether the device has scan elements (`bufferY/` or `scan_elements/`) and a `/dev` node.
    package var canStream: Bool
    /// `trigger/current_trigger`, if the device has a trigger directory ("" when none is set).
    package var currentTrigger: String?
    /// A data-ready trigger found for it (`<name>-dev<N>` or `<name>-trigger`).
    package var matchingTrigger: String?
    /// Whether the buffer has a hardware FIFO (no trigger needed).
    package var hasHardwareFIFO: Bool
    /// `current_timestamp_clock`, if present.
    package var timestampClock: String?

    /// Whether the device measures anything this tool records.
    package var isUseful: Bool {
        !capabilities.motionSensors.isEmpty || !capabilities.pressureChannels.isEmpty
    }

    /// The device number `N` of `iio:deviceN`.
    package var number: Int? { Int(id.dropFirst("iio:device".count)) }

    /// The source spec that captures from it: `iio:iio:device0` under `/`, else `iio:` and the
    /// absolute sysfs directory, so that the spec alone finds the device again.
    package var sourceSpec: String {
        directory.path == "/sys/bus/iio/devices/" + id ? "iio:" + id : "iio:" + directory.path
    }

    /// How buffered capture would be triggered, for listing: `current: X`, `available: X`,
    /// `hardware FIFO`, none found (a buffer is tried without one; if the kernel refuses it the
    /// device is polled at the rate asked for), or no buffer.
    package var triggerSummary: String {
        guard canStream else { return "no buffer (polled)" }
        if let currentTrigger, !currentTrigger.isEmpty { return "current: \(currentTrigger)" }
        if let matchingTrigger { return "available: \(matchingTrigger)" }
        if hasHardwareFIFO { return "hardware FIFO, none needed" }
        return "none found (trigger-less attempt, else polled)"
    }
}

/// Finds IIO devices under a root directory (`/` on a real system, a temporary tree in tests).
package enum IIODiscovery {
    /// The sysfs directory holding `iio:deviceN` and `triggerN` under `root`.
    package static func devicesDirectory(root: String) -> SysfsDirectory {
        SysfsDirectory(path: join(root, "sys/bus/iio/devices"))
    }

    /// All `iio:deviceN` directories, in device-number order, whether useful or not.
    package static func devices(root: String) -> [IIODevice] {
        let base = devicesDirectory(root: root)
        let ids = base.entries().filter { $0.hasPrefix("iio:device") && Int($0.dropFirst(10)) != nil }
            .sorted { (Int($0.dropFirst(10)) ?? 0) < (Int($1.dropFirst(10)) ?? 0) }
        let triggers = base.entries().filter { $0.hasPrefix("trigger") }.compactMap { base.appending($0).value("name") }
        return ids.map { device(id: $0, root: root, triggers: triggers) }
    }

    /// One device by id (`iio:device0`); `nil` if its directory does not exist.
    package static func device(id: String, root: String) -> IIODevice? {
        let base = devicesDirectory(root: root)
        guard base.appending(id).exists else { return nil }
        let triggers = base.entries().filter { $0.hasPrefix("trigger") }.compactMap { base.appending($0).value("name") }
        return device(id: id, root: root, triggers: triggers)
    }

    private static func device(id: String, root: String, triggers: [String]) -> IIODevice {
        let directory = devicesDirectory(root: root).appending(id)
        let files = directory.entries()
        let capabilities = IIODeviceCapabilities(fileNames: files)
        var channels = Set<String>()
        for file in files {
            for suffix in ["_raw", "_input"] where file.hasSuffix(suffix) {
                channels.insert(String(file.dropLast(suffix.count)))
            }
        }
        let name = directory.value("name") ?? "?"
        let ratesText = directory.value("sampling_frequency_available")
        let scanDirectory = IIOBufferDirectories.scanElements().first { directory.appending($0).exists
            && directory.appending($0).entries().contains { $0.hasSuffix("_en") } }
        let node = join(root, "dev/" + id)
        let number = Int(id.dropFirst("iio:device".count)) ?? -1
        let matching = ["\(name)-dev\(number)", "\(name)-trigger"].first { triggers.contains($0) }
        let control = IIOBufferDirectories.control().map(directory.appending).first { $0.exists }
        return IIODevice(
            id: id, directory: directory, node: node, name: name, label: directory.value("label"),
            capabilities: capabilities, channels: channels.sorted(),
            availableRates: ratesText.flatMap { try? IIOSamplingFrequencies(parsing: $0) },
            availableRatesText: ratesText,
            currentRate: directory.value("sampling_frequency").flatMap(Double.init).flatMap { $0 > 0 && $0 <= 100_000 ? $0 : nil },
            canStream: scanDirectory != nil && capabilities.hasBuffer && SysfsDirectory(path: root).contains("dev/" + id),
            currentTrigger: directory.appending("trigger").exists ? (directory.appending("trigger").value("current_trigger") ?? "") : nil,
            matchingTrigger: matching,
            hasHardwareFIFO: control?.contains("hwfifo_enabled") ?? false,
            timestampClock: directory.value("current_timestamp_clock"))
    }

    /// `root` + `/` + `relative`, without doubled slashes.
    package static func join(_ root: String, _ relative: String) -> String {
        var base = root
        while base.hasSuffix("/") { base.removeLast() }
        return base + "/" + relative
    }
}
