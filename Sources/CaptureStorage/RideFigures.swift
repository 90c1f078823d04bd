public import CaptureCore

/// The figures of one ride: its distance, duration, moving time and altitude, computed here once
/// and stated by every command that states them: `capture show` (and `show --json`, field
/// `figures`), the title of `capture plot`, the `<desc>` of a GPX export and `capture metrics`.
/// docs/figures.md says how each is computed and how it is written.
///
/// - Distance: geodesic, over the clean fixes (``LocationCleaning``), summed per track, so a
///   pause is no distance. Metres, rounded to millimetres.
/// - Duration: from the start to the stop (`nil` while open); moving time: the sum of the tracks
///   (a pause is not moving). Milliseconds.
/// - Altitude: barometric when the ride has pressure samples (the sensor made for height: its
///   climb is not the noise of a GNSS vertical), else the fixes' GNSS altitude; never a mix.
///   Metres, rounded to decimetres.
///
/// ```swift
/// let figures = try store.figures(of: 1)
/// print(figures.headline)  // 2.34 km in 0:10:00, 0:09:00 moving
/// ```
public struct RideFigures: Sendable, Equatable, Codable {
    /// Where the altitude comes from.
    public enum AltitudeSource: String, Sendable, Equatable, Codable {
        /// From the pressure samples (``BarometricProfile``).
        case barometric
        /// From the fixes, as the receiver reports it.
        case gnss
    }

    /// What the heights are measured from.
    public enum AltitudeReference: String, Sendable, Equatable, Codable {
        /// Metres above the first pressure sample (barometric, no QNH given).
        case start
        /// Metres above sea level (barometric with a QNH, or GNSS).
        case seaLevel = "sea level"
    }

    /// The altitude of a ride: first, last, lowest and highest height and the climb (the sum of
    /// the rises of the heights smoothed over ``BarometricProfile/smoothingWindow`` samples),
    /// metres rounded to decimetres.
    public struct Altitude: Sendable, Equatable, Codable {
        public var source: AltitudeSource
        public var reference: AltitudeReference
        public var start: Double
        public var end: Double
        public var min: Double
        public var max: Double
        public var climb: Double
    }

    /// Geodesic distance over clean fixes, summed per track; metres rounded to millimetres.
    public var distanceMeters: Double
    /// From the start to the stop, ms; `nil` while the measurement is open.
    public var durationMs: Int64?
    /// The tracks' time together (pauses left out), ms; an open track counts to its last sample.
    public var movingMs: Int64
    /// The altitude, `nil` without a pressure sample or a fix with an altitude.
    public var altitude: Altitude?

    /// Figures as given; nothing by default (a ride without fixes, tracks or pressure).
    public init(distanceMeters: Double = 0, durationMs: Int64? = nil, movingMs: Int64 = 0, altitude: Altitude? = nil) {
        self.distanceMeters = distanceMeters
        self.durationMs = durationMs
        self.movingMs = movingMs
        self.altitude = altitude
    }

    /// `2.34 km in 0:10:00, 0:09:00 moving` (the moving time only when a pause took a second or
    /// more); `850 m in 0:03:10`; `850 m so far, 0:03:10 moving` while open.
    public var headline: String { headline(open: "so far") }

    /// ``headline``, with `open` said of the distance of a measurement without an end (`so far`
    /// while it records, `until the interruption` once its recorder is gone).
    public func headline(open: String) -> String {
        let distance = TextFormat.distance(distanceMeters)
        guard let durationMs else { return "\(distance) \(open), \(TextFormat.duration(movingMs)) moving" }
        let moving = durationMs - movingMs >= 1000 ? ", \(TextFormat.duration(movingMs)) moving" : ""
        return "\(distance) in \(TextFormat.duration(durationMs))\(moving)"
    }

    /// `barometric, above the start: 0.0 → 2.6 m, range -0.4 to 3.1 m, climb 4.2 m`, or `nil`
    /// without an altitude.
    public var altitudeText: String? {
        altitude.map { altitude in
            "\(altitude.label): \(Self.metres(altitude.start)) → \(Self.metres(altitude.end)) m, "
                + "range \(Self.metres(altitude.min)) to \(Self.metres(altitude.max)) m, climb \(Self.metres(altitude.climb)) m"
        }
    }

    /// The headline and, when there is one, the altitude: what a GPX export's `<desc>` says.
    public var text: String { [headline, altitudeText.map { "altitude " + $0 }].compactMap { $0 }.joined(separator: "; ") }

    /// Heights as every figure writes them: metres with one decimal.
    public static func metres(_ value: Double) -> String {
        let rounded = (value * 10).rounded() / 10
        return String(format: "%.1f", rounded == 0 ? 0 : rounded)
    }
}

extension RideFigures.Altitude {
    /// `barometric, above the start`, `barometric, above sea level` (a QNH given), `GNSS`.
    public var label: String {
        switch (source, reference) {
        case (.barometric, .start): "barometric, above the start"
        case (.barometric, .seaLevel): "barometric, above sea level"
        case (.gnss, _): "GNSS"
        }
    }

    init(source: RideFigures.AltitudeSource, reference: RideFigures.AltitudeReference, heights: [Double]) {
        func decimetres(_ metres: Double) -> Double { (metres * 10).rounded() / 10 }
        self.source = source
        self.reference = reference
        start = decimetres(heights.first ?? 0)
        end = decimetres(heights.last ?? 0)
        min = decimetres(heights.min() ?? 0)
        max = decimetres(heights.max() ?? 0)
        climb = decimetres(BarometricProfile.climb(heights))
    }
}

extension RideFigures {
    /// The figures gathered fix by fix, for a reader that streams a ride (the plot reads each fix
    /// once for its picture and its figures): ``add(_:)`` every fix of a track in time order,
    /// ``endTrack()`` after each track, then ``figures(start:end:tracks:lastSample:pressures:qnh:)``.
    public struct Tally: Sendable {
        private var track = Geodesy.TrackDistance()
        private var total = 0.0
        private var gnssHeights: [Double] = []
        /// The distance of the track ended last, metres (not rounded).
        public private(set) var lastTrackMeters = 0.0

        public init() {}

        /// The next fix of the current track, in time order.
        public mutating func add(_ fix: Fix) {
            track.add(fix)
            if let altitude = fix.altitude, altitude.isFinite { gnssHeights.append(altitude) }
        }

        /// Ends the current track: its distance counts, and the next fix begins a new one.
        public mutating func endTrack() {
            lastTrackMeters = track.metres
            total += track.metres
            track = Geodesy.TrackDistance()
        }

        /// The figures of a measurement from `start` to `end` (`nil` while open) made of `tracks`.
        ///
        /// - Parameters:
        ///   - lastSample: the last sample's time, where an open track ends for the moving time.
        ///   - pressures: the pressure samples' hPa in time order; barometric altitude when one is valid.
        ///   - qnh: the sea-level pressure of the day, hPa, for barometric heights above sea level.
        public func figures(
            start: Int64, end: Int64?, tracks: [TrackRecord], lastSample: Int64?, pressures: [Double], qnh: Double?
        ) -> RideFigures {
            var moving: Int64 = 0
            for track in tracks {
                let trackEnd = track.endTime ?? end ?? lastSample ?? track.startTime
                moving += max(0, trackEnd - track.startTime)
            }
            var altitude: Altitude?
            if let heights = BarometricProfile.heights(hectopascals: pressures, qnh: qnh) {
                altitude = Altitude(source: .barometric, reference: qnh == nil ? .start : .seaLevel, heights: heights)
            } else if !gnssHeights.isEmpty {
                altitude = Altitude(source: .gnss, reference: .seaLevel, heights: gnssHeights)
            }
            return RideFigures(
                distanceMeters: ((total + track.metres) * 1000).rounded() / 1000, durationMs: end.map { $0 - start },
                movingMs: moving, altitude: altitude)
        }
    }
}

extension Store {
    /// The figures of measurement `id` (see ``RideFigures``), its fixes streamed.
    ///
    /// - Parameters:
    ///   - qnh: the sea-level pressure of the day, hPa, for barometric heights above sea level.
    ///   - privacy: fixes and samples it hides count for nothing (an export's figures are those
    ///     of what it exports).
    /// - Throws: ``StoreError/measurementNotFound(_:)`` and other ``StoreError``s.
    public func figures(of id: Int64, qnh: Double? = nil, privacy: PrivacyFilter = .none) throws(StoreError) -> RideFigures {
        let record = try measurement(id)
        let tracks = try tracks(of: id)
        var tally = RideFigures.Tally()
        for track in tracks {
            try forEachFix(of: id, track: track.number) { fix in
                if !privacy.hides(fix) { tally.add(fix) }
            }
            tally.endTrack()
        }
        let pressures = try pressures(of: id).filter { !privacy.hides(time: $0.timestamp) }.map(\.hectopascals)
        return tally.figures(
            start: record.startTime, end: record.endTime, tracks: tracks,
            lastSample: record.endTime == nil ? try lastTimestamp(of: id) : nil, pressures: pressures, qnh: qnh)
    }
}
