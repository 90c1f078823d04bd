package import CaptureCore
package import CaptureStorage

/// How to analyse: window length, the slowest speed kept, the class thresholds, the privacy zones.
package struct SurfaceOptions: Sendable, Equatable {
    /// Default window length, metres.
    package static let defaultWindow = 10.0
    /// Default slowest mean speed of a window that is kept, m/s: below it (pushing, queueing,
    /// stopping at a light) vibration says more about the rider than the road.
    package static let defaultMinimumSpeed = 2.0
    /// Fewest accelerometer samples in a window that is kept (10 m at 20 m/s and 100 Hz is 50).
    package static let minimumSamples = 10

    /// Metres.
    package var window: Double
    /// m/s.
    package var minimumSpeed: Double
    package var thresholds: SurfaceThresholds
    /// `privacy.zones`: a window they touch is left out.
    package var privacyZones: [PrivacyZone]

    package init(
        window: Double = defaultWindow, minimumSpeed: Double = defaultMinimumSpeed,
        thresholds: SurfaceThresholds = .standard, privacyZones: [PrivacyZone] = []
    ) {
        self.window = window
        self.minimumSpeed = minimumSpeed
        self.thresholds = thresholds
        self.privacyZones = privacyZones
    }
}

/// One window of a ride: where and when, how fast, and the statistics of its vertical acceleration.
package struct SurfaceWindow: Sendable, Equatable, Codable {
    package var measurement: Int64
    /// 1, 2, … within the measurement, counting only windows kept.
    package var index: Int
    package var track: Int
    /// The modality at the window's start.
    package var modality: String
    /// Unix ms.
    package var start: Int64
    package var end: Int64
    /// Its start, the fixes inside it, its end.
    package var points: [SurfacePoint]
    /// Metres.
    package var distance: Double
    /// Mean speed, m/s.
    package var speed: Double
    /// Vertical acceleration with gravity removed, m/s².
    package var statistics: SurfaceStatistics
    /// 0 (good) … 3 (bad).
    package var surfaceClass: Int

    package init(
        measurement: Int64, index: Int, track: Int, modality: String, start: Int64, end: Int64, points: [SurfacePoint],
        distance: Double, speed: Double, statistics: SurfaceStatistics, surfaceClass: Int
    ) {
        self.measurement = measurement
        self.index = index
        self.track = track
        self.modality = modality
        self.start = start
        self.end = end
        self.points = points
        self.distance = distance
        self.speed = speed
        self.statistics = statistics
        self.surfaceClass = surfaceClass
    }
}

/// What was left out and why (docs/surface.md).
package struct SurfaceExclusions: Sendable, Equatable, Codable {
    /// Windows slower than the minimum speed.
    package var slow = 0
    /// Windows a privacy zone touches.
    package var privacy = 0
    /// Track ends shorter than a window.
    package var partial = 0
    /// Windows with fewer than ``SurfaceOptions/minimumSamples`` accelerometer samples.
    package var fewSamples = 0
    /// Accelerometer samples in a pause (between tracks) or outside any window.
    package var samplesOutside = 0

    package init() {}
}

/// The windows of one measurement.
package struct SurfaceReport: Sendable, Equatable, Codable {
    package var measurement: Int64
    /// The modality at the start.
    package var modality: String
    /// Metres, m/s.
    package var window: Double
    package var minimumSpeed: Double
    /// Degrees between the device's z axis and up (0: flat, z up); `nil` without samples.
    package var tilt: Double?
    package var samples: Int
    package var windows: [SurfaceWindow]
    package var excluded: SurfaceExclusions
}

/// `capture surface`: the road surface a measurement rode on, window by window.
///
/// The store is streamed: fixes once (their windows, a few hundred bytes per 10 m, are kept),
/// then the accelerometer batch by batch through a ``GravityFilter`` into the window each sample
/// falls in by time.
package enum SurfaceAnalysis {
    /// Analyses measurement `id`.
    ///
    /// - Throws: ``SurfaceError``: no such measurement, or no accelerometer samples.
    package static func analyse(_ id: Int64, in store: Store, options: SurfaceOptions) throws(SurfaceError) -> SurfaceReport {
        do {
            let record = try store.measurement(id)
            guard try store.counts(of: id).accelerometer > 0 else { throw SurfaceError.noAccelerometer(id) }
            let events = try store.events(of: id)
            let privacy = options.privacyZones.isEmpty ? PrivacyFilter.none : PrivacyFilter(zones: options.privacyZones, fixes: try store.fixes(of: id))

            var cutter = DistanceWindows(length: options.window)
            var spans: [(track: Int, span: DistanceWindows.Span)] = []
            for track in try store.tracks(of: id) {
                try store.forEachFix(of: id, track: track.number) { cutter.add($0, hidden: privacy.hides($0)) }
                cutter.endTrack()
                spans += cutter.windows[spans.count...].map { (track.number, $0) }
            }
            var excluded = SurfaceExclusions()
            excluded.privacy = cutter.hidden
            excluded.partial = cutter.partial

            var statistics = Array(repeating: SurfaceStatistics(), count: spans.count)
            var filter = GravityFilter()
            var samples = 0
            var cursor = 0
            var failure: StoreError?
            try store.forEachBatch(of: id, sensor: .accelerometer) { batch in
                guard failure == nil else { return }
                let decoded: [MotionSample]
                do throws(StoreError) { decoded = try Store.samples(of: batch) } catch {
                    failure = error
                    return
                }
                for sample in decoded {
                    samples += 1
                    let vertical = filter.vertical(time: sample.timestamp, x: sample.x, y: sample.y, z: sample.z)
                    guard let index = Self.window(at: sample.timestamp, in: spans, near: &cursor) else {
                        excluded.samplesOutside += 1
                        continue
                    }
                    statistics[index].add(vertical)
                }
            }
            if let failure { throw failure }

            var windows: [SurfaceWindow] = []
            for (index, (track, span)) in spans.enumerated() {
                guard span.speed >= options.minimumSpeed else {
                    excluded.slow += 1
                    continue
                }
                guard statistics[index].count >= SurfaceOptions.minimumSamples else {
                    excluded.fewSamples += 1
                    continue
                }
                let modality = Modality.spelling(at: span.start, events: events, initial: record.modality)
                windows.append(
                    SurfaceWindow(
                        measurement: id, index: windows.count + 1, track: track, modality: modality, start: span.start,
                        end: span.end, points: span.points, distance: span.distance, speed: span.speed,
                        statistics: statistics[index],
                        surfaceClass: options.thresholds.surfaceClass(statistics[index].standardDeviation, modality: modality)))
            }
            return SurfaceReport(
                measurement: id, modality: record.modality, window: options.window, minimumSpeed: options.minimumSpeed,
                tilt: filter.tilt, samples: samples, windows: windows, excluded: excluded)
        } catch let error as SurfaceError {
            throw error
        } catch let error as StoreError {
            throw .store(error)
        } catch {
            throw .store(.corrupt(path: "the store", reason: "\(error)"))
        }
    }

    /// The index of the span holding `time` (start ≤ time < end), starting from `cursor` (samples
    /// come in time order, so the next one is almost always in the same window or the next).
    static func window(at time: Int64, in spans: [(track: Int, span: DistanceWindows.Span)], near cursor: inout Int) -> Int? {
        guard !spans.isEmpty else { return nil }
        if cursor >= spans.count || time < spans[cursor].span.start {
            // Out of order: find it again.
            var low = 0
            var high = spans.count
            while low < high {
                let middle = (low + high) / 2
                if spans[middle].span.end <= time { low = middle + 1 } else { high = middle }
            }
            cursor = low
        }
        while cursor < spans.count, spans[cursor].span.end <= time { cursor += 1 }
        guard cursor < spans.count, spans[cursor].span.start <= time else { return nil }
        return cursor
    }
}
