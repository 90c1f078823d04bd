package import CaptureCore

/// Everything the receiver said about one instant (one UTC time), gathered from several sentences.
package struct NMEAEpoch: Sendable, Equatable {
    /// The epoch's UTC time of day.
    package var time: NMEATime
    /// The date, from this epoch's RMC (else ZDA) or carried over from an earlier one; `nil` until a date is known.
    package var date: NMEADate?
    /// The epoch's RMC (the last one if several talkers sent one).
    package var rmc: NMEARMC?
    /// The epoch's GGA.
    package var gga: NMEAGGA?
    /// The epoch's GNS.
    package var gns: NMEAGNS?
    /// The epoch's VTG (course and speed; it has no time field and joins the open epoch).
    package var vtg: NMEAVTG?
    /// The epoch's GST.
    package var gst: NMEAGST?
    /// The epoch's ZDA.
    package var zda: NMEAZDA?
    /// All GSA sentences of the epoch (one per constellation on multi-GNSS receivers).
    package var gsa: [NMEAGSA] = []

    /// Starts an empty epoch at `time`.
    package init(time: NMEATime, date: NMEADate? = nil) {
        self.time = time
        self.date = date
    }

    /// Unix milliseconds, once the date is known.
    package var unixMilliseconds: Int64? { date?.unixMilliseconds(at: time) }

    /// `true` unless a sentence of the epoch says there is no fix: RMC status `V` or mode `N`,
    /// GGA quality 0, GNS modes all `N`, every GSA with fix mode 1, or (without RMC) VTG mode `N`.
    /// An RMC `A`, GGA quality > 0 or GNS fix must be present, and so must a position. A GGA
    /// with a fix quality but 0 satellites used is no fix unless an RMC or GNS says there is one
    /// (a Hemisphere receiver sends 15 such while starting, gpsd's hemi.log; gpsd itself takes a
    /// GPGGA or GNGGA with fewer than 3 satellites used for no fix).
    package var hasFix: Bool {
        if let rmc, rmc.isValid == false || rmc.mode == "N" { return false }
        if let gga, gga.quality == 0 { return false }
        if let gga, gga.satellitesUsed == 0, rmc?.isValid != true, gns?.hasFix != true { return false }
        if let gns, !gns.hasFix { return false }
        let modes = gsa.compactMap(\.fixMode)
        if !modes.isEmpty, modes.allSatisfy({ $0 < 2 }) { return false }
        if let vtg, vtg.mode == "N", rmc == nil { return false }
        guard rmc?.isValid == true || (gga?.quality ?? 0) > 0 || gns?.hasFix == true else { return false }
        return position != nil
    }

    /// Latitude and longitude, preferring GGA, then GNS, then RMC.
    package var position: (latitude: Double, longitude: Double)? {
        for candidate in [(gga?.latitude, gga?.longitude), (gns?.latitude, gns?.longitude), (rmc?.latitude, rmc?.longitude)] {
            if let lat = candidate.0, let lon = candidate.1 { return (lat, lon) }
        }
        return nil
    }

    /// HDOP from GGA, else GNS, else the first GSA that has one.
    package var hdop: Double? { gga?.hdop ?? gns?.hdop ?? gsa.lazy.compactMap(\.hdop).first }
    /// VDOP from the first GSA that has one.
    package var vdop: Double? { gsa.lazy.compactMap(\.vdop).first }
    /// PDOP from the first GSA that has one.
    package var pdop: Double? { gsa.lazy.compactMap(\.pdop).first }
    /// Satellites used: GGA, else GNS, else the satellites the GSAs list.
    package var satellitesUsed: Int? {
        if let count = gga?.satellitesUsed ?? gns?.satellitesUsed { return count }
        let listed = gsa.reduce(0) { $0 + $1.satellites.count }
        return listed > 0 ? listed : nil
    }
    /// 2D or 3D, the best fix mode of the GSAs; `nil` without a GSA.
    package var mode: FixMode? { gsa.compactMap(\.fixMode).max().flatMap(FixMode.init(rawValue:)) }

    /// Converts the epoch into a ``Fix``, or `nil` without a fix or without a date.
    ///
    /// - altitude: GGA (else GNS) `altitudeMSL + geoidSeparation`. Without a geoid separation the
    ///   MSL altitude is used as is (off by the local geoid height, up to ±100 m), the same fallback
    ///   the gpsd path uses for `altMSL`.
    /// - horizontal accuracy: from GST, `√(σlat² + σlon²)` (the 1-σ horizontal RMS error); without
    ///   GST, `HDOP × uere`. DOP only scales a range error the receiver does not report, so the UERE
    ///   is an assumption (see ``NMEAEpochAssembler/Configuration/uere``).
    /// - vertical accuracy: GST σalt, else `VDOP × uere`.
    /// - speed and course: RMC, else VTG (speed converted from knots, or km/h, to m/s).
    package func fix(uere: Double) -> Fix? {
        guard hasFix, let time = unixMilliseconds, let position else { return nil }
        let altitude: Double? =
            gga?.altitudeHAE ?? gns?.altitudeHAE ?? gga?.altitudeMSL ?? gns?.altitudeMSL
        var horizontal: Double? = nil
        if let sigmaLat = gst?.sigmaLatitude, let sigmaLon = gst?.sigmaLongitude {
            horizontal = (sigmaLat * sigmaLat + sigmaLon * sigmaLon).squareRoot()
        } else if let hdop {
            horizontal = hdop * uere
        }
        let vertical = gst?.sigmaAltitude ?? vdop.map { $0 * uere }
        return Fix(
            timestamp: time, latitude: position.latitude, longitude: position.longitude, altitude: altitude,
            horizontalAccuracy: horizontal, verticalAccuracy: vertical,
            speed: rmc?.speed ?? vtg?.speed, course: rmc?.course ?? vtg?.courseTrue,
            satellites: satellitesUsed, hdop: hdop, vdop: vdop, pdop: pdop, mode: mode)
    }
}

/// Counters kept by ``NMEAEpochAssembler``.
package struct NMEAAssemblyStats: Sendable, Equatable {
    /// Epochs closed (distinct UTC times).
    package var epochs = 0
    /// Epochs turned into a ``Fix``.
    package var fixes = 0
    /// Epochs closed without a fix (status V, quality 0, no position).
    package var epochsWithoutFix = 0
    /// Epochs that had a fix but no date yet (before the first RMC with a date).
    package var epochsWithoutDate = 0
    /// Time-less sentences (GSA, VTG) seen before any epoch started.
    package var orphanSentences = 0
    /// Epochs closed as soon as their last sentence arrived (see ``NMEAEpochAssembler``).
    package var closedOnLastSentence = 0
    /// Sentences of an epoch already closed that way, arriving after it (ignored).
    package var late = 0

    /// All zero.
    package init() {}
}

/// Groups decoded sentences into epochs by their UTC time and turns each epoch into a ``Fix``.
///
/// A sentence with a time different from the open epoch's closes that epoch and opens a new one;
/// time-less sentences (GSA, VTG) join the open epoch. This works whatever order a receiver sends
/// its sentences in (garmin: RMC first; Quectel: GGA, GNS, VTG, RMC, GSA). The last epoch is
/// closed by ``finish()``.
///
/// No late fixes: a receiver sends its sentences in the same order every epoch, so once an epoch
/// has been closed by the next one's time, the kind of its last sentence (and how many of that
/// kind it had: one GSA per constellation) is remembered, and later epochs close as soon as that
/// sentence arrives instead of one navigation interval later. Sentences of an epoch closed early
/// that come after it (a receiver that changed its order) are counted as `late` and ignored; the
/// next epoch that way relearns the order. Until a date is known no epoch closes early (no fix
/// could be made, and its RMC may still be on the way). Dates come from RMC or ZDA; an epoch without either uses the last date,
/// advanced by a day when the time of day jumps back by more than 12 hours (midnight).
package struct NMEAEpochAssembler: Sendable {
    /// Tunables.
    package struct Configuration: Sendable, Equatable {
        /// Assumed 1-σ user equivalent range error in metres, used to turn DOPs into accuracies
        /// when the receiver sends no GST. 5 m is a middle-of-the-road figure for autonomous
        /// single-frequency GPS; receivers with SBAS/DGPS do better, so such accuracies are pessimistic.
        package var uere: Double
        /// Sentence time without a fix after which the fix counts as lost, ms.
        package var fixLossTimeout: Int64

        /// - Parameters:
        ///   - uere: metres per unit of DOP (default 5).
        ///   - fixLossTimeout: ms (default 2000).
        package init(uere: Double = 5.0, fixLossTimeout: Int64 = 2_000) {
            self.uere = uere
            self.fixLossTimeout = fixLossTimeout
        }
    }

    /// The tunables in use.
    package let configuration: Configuration
    /// Counters since creation.
    package private(set) var stats = NMEAAssemblyStats()
    /// The fix tracker, for its ``FixLossTracker/state``.
    package private(set) var tracker: FixLossTracker
    /// The epoch being gathered, if any.
    package private(set) var openEpoch: NMEAEpoch?

    private var lastDate: NMEADate?
    private var lastDateTime: NMEATime?
    /// The kind of the last sentence of the last epoch closed by a new time, and its count there.
    private var lastSentence: (kind: Int, count: Int)?
    /// The kind of the latest sentence added to the open epoch, and its count so far.
    private var latestSentence: (kind: Int, count: Int)?
    /// Sentences per kind in the open epoch.
    private var kindCounts: [Int] = Array(repeating: 0, count: 7)
    /// The time of an epoch closed early, while no new epoch has started.
    private var closedEarly: NMEATime?

    /// A fresh assembler.
    package init(configuration: Configuration = .init()) {
        self.configuration = configuration
        self.tracker = FixLossTracker(timeout: configuration.fixLossTimeout)
    }

    /// Adds one decoded sentence; returns the events of an epoch it closed, if any.
    package mutating func add(_ message: NMEAMessage) -> [GNSSEvent] {
        var events: [GNSSEvent] = []
        if openEpoch == nil, let closedEarly, message.time == nil || message.time == closedEarly {
            stats.late += 1
            if message.time == nil { return [] }
            // The order changed: relearn it from the next epoch closed by a new time.
            lastSentence = nil
            return []
        }
        if let time = message.time, time != openEpoch?.time {
            if openEpoch != nil {
                lastSentence = latestSentence
                events = closeEpoch()
            }
            openEpoch = NMEAEpoch(time: time)
            closedEarly = nil
            kindCounts = Array(repeating: 0, count: kindCounts.count)
        }
        guard var epoch = openEpoch else {
            stats.orphanSentences += 1
            return events
        }
        switch message {
        case .rmc(let rmc): epoch.rmc = rmc
        case .gga(let gga): epoch.gga = gga
        case .gns(let gns): epoch.gns = gns
        case .vtg(let vtg): epoch.vtg = vtg
        case .gst(let gst): epoch.gst = gst
        case .gsa(let gsa): epoch.gsa.append(gsa)
        case .zda(let zda): epoch.zda = zda
        }
        openEpoch = epoch
        let kind = Self.kind(of: message)
        kindCounts[kind] += 1
        latestSentence = (kind, kindCounts[kind])
        // Before the first date, no epoch gives a fix: wait for its end (its RMC may still come).
        let dated = epoch.rmc?.date != nil || epoch.zda?.date != nil || lastDate != nil
        if dated, let lastSentence, lastSentence.kind == kind, lastSentence.count == kindCounts[kind] {
            stats.closedOnLastSentence += 1
            closedEarly = epoch.time
            events += closeEpoch()
        }
        return events
    }

    private static func kind(of message: NMEAMessage) -> Int {
        switch message {
        case .rmc: 0
        case .gga: 1
        case .gns: 2
        case .vtg: 3
        case .gst: 4
        case .gsa: 5
        case .zda: 6
        }
    }

    /// Closes the open epoch (end of input).
    package mutating func finish() -> [GNSSEvent] {
        closeEpoch()
    }

    private mutating func closeEpoch() -> [GNSSEvent] {
        guard var epoch = openEpoch else { return [] }
        openEpoch = nil
        stats.epochs += 1
        if let date = epoch.rmc?.date ?? epoch.zda?.date {
            epoch.date = date
        } else if let lastDate, let lastDateTime {
            // No RMC in this epoch: carry the date over, across midnight if the clock wrapped.
            let wrapped = lastDateTime.millisecondsOfDay - epoch.time.millisecondsOfDay > 43_200_000
            epoch.date = wrapped ? lastDate.next : lastDate
        }
        if let date = epoch.date {
            lastDate = date
            lastDateTime = epoch.time
        }
        var events: [GNSSEvent] = []
        if let fix = epoch.fix(uere: configuration.uere) {
            stats.fixes += 1
            if let transition = tracker.fix(at: fix.timestamp) { events.append(.transition(transition)) }
            events.append(.fix(fix))
        } else {
            if epoch.hasFix { stats.epochsWithoutDate += 1 } else { stats.epochsWithoutFix += 1 }
            if let time = epoch.unixMilliseconds, let transition = tracker.noFix(at: time) {
                events.append(.transition(transition))
            }
        }
        return events
    }
}
