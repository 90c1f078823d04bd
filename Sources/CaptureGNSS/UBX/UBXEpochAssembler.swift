package import CaptureCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Everything a u-blox receiver said about one navigation epoch (one iTOW), merged from NAV-PVT
/// or from the older NAV-POSLLH / NAV-SOL / NAV-VELNED / NAV-DOP (and NAV-STATUS, NAV-TIMEGPS,
/// NAV-POSECEF, NAV-VELECEF) messages.
package struct UBXEpoch: Sendable, Equatable {
    /// GPS time of week, ms.
    package var iTOW: UInt32
    /// The epoch's NAV-PVT, if sent.
    package var pvt: UBXNavPVT?
    /// The epoch's NAV-POSLLH, if sent.
    package var posLLH: UBXNavPosLLH?
    /// The epoch's NAV-SOL, if sent.
    package var sol: UBXNavSol?
    /// The epoch's NAV-VELNED, if sent.
    package var velNED: UBXNavVelNED?
    /// The epoch's NAV-DOP, if sent.
    package var dop: UBXNavDOP?
    /// The epoch's NAV-STATUS, if sent.
    package var status: UBXNavStatus?
    /// The epoch's NAV-TIMEGPS, if sent.
    package var timeGPS: UBXNavTimeGPS?
    /// The epoch's NAV-POSECEF, if sent.
    package var posECEF: UBXNavPosECEF?
    /// The epoch's NAV-VELECEF, if sent.
    package var velECEF: UBXNavVelECEF?

    /// An empty epoch at `iTOW`.
    package init(iTOW: UInt32) {
        self.iTOW = iTOW
    }

    /// The fix type (0 none … 5 time only) from NAV-PVT, else NAV-SOL, else NAV-STATUS.
    package var fixType: UInt8? { pvt?.fixType ?? sol?.gpsFix ?? status?.gpsFix }

    /// Whether the receiver marks the solution valid (gnssFixOK / GPSfixOK) with a 2D, 3D,
    /// GNSS + dead-reckoning or time-only fix. Dead reckoning alone (type 1) is no fix.
    ///
    /// A time-only fix (type 5) is a timing receiver (NEO-M8T, ZED-F9T) in time mode: it no
    /// longer solves for its position but holds one fixed, surveyed in or configured, and reports
    /// that position in NAV-PVT / NAV-POSLLH; gpsd reports these epochs as 3D fixes too.
    /// NAV-POSLLH and NAV-POSECEF carry no status: an epoch with neither NAV-PVT, NAV-SOL nor
    /// NAV-STATUS is not taken as a fix.
    package var hasFix: Bool {
        let flags = pvt?.flags ?? sol?.flags ?? status?.flags
        guard let fixType, let flags else { return false }
        return (2...5).contains(fixType) && flags & 0x01 != 0
    }

    /// Satellites used (NAV-PVT, else NAV-SOL).
    package var satellitesUsed: Int? { pvt?.numSV ?? sol?.numSV }
    /// Horizontal DOP (NAV-DOP).
    package var hDOP: Double? { dop?.hDOP }
    /// Vertical DOP (NAV-DOP).
    package var vDOP: Double? { dop?.vDOP }
    /// Position DOP (NAV-DOP, else NAV-PVT, else NAV-SOL).
    package var pDOP: Double? { dop?.pDOP ?? pvt?.pDOP ?? sol?.pDOP }

    /// The GPS week, from NAV-SOL (when its week-valid flag is set) or NAV-TIMEGPS.
    var week: Int? {
        if let sol, sol.flags & 0x04 != 0 { return sol.week }
        if let timeGPS, timeGPS.valid & 0x02 != 0 { return timeGPS.week }
        return nil
    }

    /// Converts the epoch into a ``Fix``; `nil` without a fix or a time.
    ///
    /// - time: NAV-PVT's UTC date and time when valid, else GPS week + iTOW − leap seconds
    ///   (`week` and `leapSeconds` are the caller's fallbacks, carried over from earlier epochs).
    /// - position: NAV-PVT, else NAV-POSLLH, else the ECEF position of NAV-SOL / NAV-POSECEF
    ///   converted to WGS-84 latitude, longitude and ellipsoidal height.
    /// - accuracy: NAV-PVT or NAV-POSLLH hAcc / vAcc; with only ECEF messages, their 3D accuracy
    ///   estimate (pAcc) serves for both (an upper bound of the horizontal one).
    /// - speed and course: NAV-PVT, else NAV-VELNED, else the ECEF velocity (NAV-SOL /
    ///   NAV-VELECEF) rotated into north-east-down at the fix's position.
    package func fix(week fallbackWeek: Int?, leapSeconds: Int?) -> Fix? {
        guard hasFix, let time = unixMilliseconds(week: fallbackWeek, leapSeconds: leapSeconds) else { return nil }
        var latitude: Double
        var longitude: Double
        var altitude: Double?
        var horizontal: Double?
        var vertical: Double?
        if let pvt {
            (latitude, longitude, altitude) = (pvt.latitude, pvt.longitude, pvt.height)
            (horizontal, vertical) = (pvt.horizontalAccuracy, pvt.verticalAccuracy)
        } else if let posLLH {
            (latitude, longitude, altitude) = (posLLH.latitude, posLLH.longitude, posLLH.height)
            (horizontal, vertical) = (posLLH.horizontalAccuracy, posLLH.verticalAccuracy)
        } else if let ecef = sol?.ecef ?? posECEF?.ecef {
            (latitude, longitude, altitude) = ECEF.geodetic(x: ecef.x, y: ecef.y, z: ecef.z)
            let accuracy = sol?.positionAccuracy ?? posECEF?.positionAccuracy
            (horizontal, vertical) = (accuracy, accuracy)
        } else {
            return nil
        }
        guard (-90...90).contains(latitude), (-180...180).contains(longitude),
            !(latitude == 0 && longitude == 0)
        else { return nil }
        var speed: Double?
        var course: Double?
        if let pvt {
            (speed, course) = (pvt.groundSpeed, pvt.headingOfMotion)
        } else if let velNED {
            (speed, course) = (velNED.groundSpeed, velNED.heading)
        } else if let velocity = sol?.ecefVelocity ?? velECEF?.ecefVelocity {
            let ned = ECEF.northEastDown(velocity: velocity, latitude: latitude, longitude: longitude)
            speed = (ned.north * ned.north + ned.east * ned.east).squareRoot()
            var degrees = atan2(ned.east, ned.north) * 180 / .pi
            if degrees < 0 { degrees += 360 }
            course = degrees
        }
        if let value = course {
            let wrapped = value.truncatingRemainder(dividingBy: 360)
            course = wrapped < 0 ? wrapped + 360 : wrapped
        }
        return Fix(
            timestamp: time, latitude: latitude, longitude: longitude, altitude: altitude,
            horizontalAccuracy: horizontal, verticalAccuracy: vertical, speed: speed, course: course,
            satellites: satellitesUsed, hdop: hDOP, vdop: vDOP, pdop: pDOP, mode: mode)
    }

    /// 2D or 3D; GNSS + dead reckoning (fix type 4) and a time-only fix's held position (5)
    /// count as 3D.
    package var mode: FixMode? {
        switch fixType {
        case 2: .twoD
        case 3, 4, 5: .threeD
        default: nil
        }
    }

    /// The epoch's Unix time in ms: NAV-PVT's UTC when valid, else from the GPS week and iTOW.
    package func unixMilliseconds(week fallbackWeek: Int?, leapSeconds: Int?) -> Int64? {
        if let time = pvt?.unixMilliseconds { return time }
        guard let week = week ?? fallbackWeek else { return nil }
        return GPSTime.unixMilliseconds(week: week, timeOfWeek: iTOW, leapSeconds: leapSeconds)
    }
}

/// Counters kept by ``UBXEpochAssembler``.
package struct UBXAssemblyStats: Sendable, Equatable {
    /// Epochs closed (distinct iTOWs with navigation messages).
    package var epochs = 0
    /// Epochs turned into a ``Fix``.
    package var fixes = 0
    /// Epochs closed without a valid fix.
    package var epochsWithoutFix = 0
    /// Epochs with a fix but no way to tell their date (no NAV-PVT date, no GPS week yet).
    package var epochsWithoutTime = 0
    /// Epochs closed early, on the message kind that ended the previous epoch (receivers
    /// without NAV-EOE).
    package var closedOnLastKind = 0
    /// Messages of an epoch already closed early, arriving after it (ignored).
    package var late = 0
    /// HNR-PVT solutions turned into a ``Fix``.
    package var highRateFixes = 0
    /// HNR-PVT solutions without a valid fix or a valid UTC time.
    package var highRateWithoutFix = 0
    /// Epoch fixes not reported because HNR-PVT had already reported that time or a later one
    /// (a dead-reckoning module's NAV-PVT repeats one of its HNR-PVT epochs at the navigation rate).
    package var fixesCoveredByHighRate = 0

    /// All zero.
    package init() {}
}

/// Groups UBX navigation messages into epochs by iTOW and turns each epoch into a ``Fix``.
///
/// An epoch closes when NAV-EOE names it, when a message with another iTOW arrives, or at
/// ``finish()``. Receivers without NAV-EOE (protocol before 18) send their epoch's messages in a
/// fixed order, so once an epoch has been closed by the next iTOW, the kind of its last message
/// is remembered and closes later epochs as soon as it arrives: the fix is not held back for
/// one navigation interval. A message for an epoch already closed that way is ignored (`late`).
/// The GPS week and leap seconds are carried over from earlier epochs (NAV-SOL,
/// NAV-TIMEGPS), the week advanced when iTOW wraps at the end of a week.
///
/// A dead-reckoning module's HNR-PVT (10–30 Hz) is a whole solution in one message: each becomes
/// a fix at once. Its NAV epochs (1–2 Hz) fall on HNR-PVT times too and arrive after the HNR-PVT
/// solutions that followed them, so an epoch's fix is not reported when an HNR-PVT fix of its
/// time or a later one already was: one fix per time, in time order.
package struct UBXEpochAssembler: Sendable {
    /// Counters since creation.
    package private(set) var stats = UBXAssemblyStats()
    /// Fix acquired / lost, on GNSS time.
    package private(set) var tracker: FixLossTracker
    /// The epoch being gathered.
    package private(set) var openEpoch: UBXEpoch?
    /// The Unix time (ms) of the latest epoch whose time is known, fix or not.
    package private(set) var latestTime: Int64?

    private var week: Int?
    private var leapSeconds: Int?
    private var lastITOW: UInt32?
    /// Whether NAV-EOE has been seen (then it alone ends epochs early).
    private var sawEndOfEpoch = false
    /// The kind of the last message of the last epoch closed by a new iTOW.
    private var lastKindOfEpoch: UInt16?
    /// The kind of the latest message added to the open epoch.
    private var latestKind: UInt16?
    /// The iTOW of an epoch closed early.
    private var closedEarly: UInt32?
    /// The time (Unix ms) of the latest HNR-PVT fix.
    private var latestHighRateFix: Int64?

    /// - Parameter fixLossTimeout: ms of epochs without a fix before the fix counts as lost.
    package init(fixLossTimeout: Int64 = 2_000) {
        tracker = FixLossTracker(timeout: fixLossTimeout)
    }

    /// Adds one decoded navigation message; returns the events of epochs it closed. Messages
    /// other than NAV ones are ignored here.
    package mutating func add(_ message: UBXMessage) -> [GNSSEvent] {
        let iTOW: UInt32
        switch message {
        case .navPVT(let m): iTOW = m.iTOW
        case .navPosLLH(let m): iTOW = m.iTOW
        case .navSol(let m): iTOW = m.iTOW
        case .navVelNED(let m): iTOW = m.iTOW
        case .navDOP(let m): iTOW = m.iTOW
        case .navStatus(let m): iTOW = m.iTOW
        case .navTimeGPS(let m): iTOW = m.iTOW
        case .navPosECEF(let m): iTOW = m.iTOW
        case .navVelECEF(let m): iTOW = m.iTOW
        case .navEOE(let eoe):
            sawEndOfEpoch = true
            return eoe == openEpoch?.iTOW ? closeEpoch() : []
        case .hnrPVT(let m):
            return highRate(m)
        case .esfRaw, .esfMeas, .esfINS:
            return []
        }
        if openEpoch == nil, iTOW == closedEarly {
            stats.late += 1
            return []
        }
        var events: [GNSSEvent] = []
        if let open = openEpoch, open.iTOW != iTOW {
            lastKindOfEpoch = latestKind
            events = closeEpoch()
        }
        var epoch = openEpoch ?? UBXEpoch(iTOW: iTOW)
        switch message {
        case .navPVT(let m): epoch.pvt = m
        case .navPosLLH(let m): epoch.posLLH = m
        case .navSol(let m): epoch.sol = m
        case .navVelNED(let m): epoch.velNED = m
        case .navDOP(let m): epoch.dop = m
        case .navStatus(let m): epoch.status = m
        case .navTimeGPS(let m): epoch.timeGPS = m
        case .navPosECEF(let m): epoch.posECEF = m
        case .navVelECEF(let m): epoch.velECEF = m
        case .navEOE, .esfRaw, .esfMeas, .esfINS, .hnrPVT: break
        }
        openEpoch = epoch
        let kind = Self.kind(of: message)
        latestKind = kind
        if !sawEndOfEpoch, kind == lastKindOfEpoch {
            stats.closedOnLastKind += 1
            closedEarly = iTOW
            events += closeEpoch()
        }
        return events
    }

    private static func kind(of message: UBXMessage) -> UInt16 {
        switch message {
        case .navPVT: UBXMessage.Kind.navPVT
        case .navPosLLH: UBXMessage.Kind.navPosLLH
        case .navSol: UBXMessage.Kind.navSol
        case .navVelNED: UBXMessage.Kind.navVelNED
        case .navDOP: UBXMessage.Kind.navDOP
        case .navStatus: UBXMessage.Kind.navStatus
        case .navTimeGPS: UBXMessage.Kind.navTimeGPS
        case .navPosECEF: UBXMessage.Kind.navPosECEF
        case .navVelECEF: UBXMessage.Kind.navVelECEF
        case .navEOE: UBXMessage.Kind.navEOE
        case .esfRaw: UBXMessage.Kind.esfRaw
        case .esfMeas: UBXMessage.Kind.esfMeas
        case .esfINS: UBXMessage.Kind.esfINS
        case .hnrPVT: UBXMessage.Kind.hnrPVT
        }
    }

    /// One HNR-PVT solution: a fix when the module marks it valid (as ``UBXEpoch/hasFix`` for
    /// NAV-PVT) with a valid UTC date and time.
    private mutating func highRate(_ m: UBXHNRPVT) -> [GNSSEvent] {
        guard let time = m.unixMilliseconds else {
            stats.highRateWithoutFix += 1
            return []
        }
        latestTime = time
        guard (2...5).contains(m.gpsFix), m.flags & 0x01 != 0, (-90...90).contains(m.latitude),
            (-180...180).contains(m.longitude), !(m.latitude == 0 && m.longitude == 0)
        else {
            stats.highRateWithoutFix += 1
            return tracker.noFix(at: time).map { [.transition($0)] } ?? []
        }
        stats.highRateFixes += 1
        latestHighRateFix = time
        var course = m.headingOfMotion.truncatingRemainder(dividingBy: 360)
        if course < 0 { course += 360 }
        var events: [GNSSEvent] = []
        if let transition = tracker.fix(at: time) { events.append(.transition(transition)) }
        events.append(
            .fix(
                Fix(
                    timestamp: time, latitude: m.latitude, longitude: m.longitude, altitude: m.height,
                    horizontalAccuracy: m.horizontalAccuracy, verticalAccuracy: m.verticalAccuracy,
                    speed: m.groundSpeed, course: course, mode: m.gpsFix == 2 ? .twoD : .threeD)))
        return events
    }

    /// Closes the open epoch (end of input).
    package mutating func finish() -> [GNSSEvent] {
        closeEpoch()
    }

    private mutating func closeEpoch() -> [GNSSEvent] {
        guard let epoch = openEpoch else { return [] }
        openEpoch = nil
        stats.epochs += 1
        // Carry the week over, one further when the time of week wrapped.
        if let lastITOW, let known = week, epoch.iTOW + 302_400_000 < lastITOW { week = known + 1 }
        if let own = epoch.week { week = own }
        if let timeGPS = epoch.timeGPS, timeGPS.valid & 0x04 != 0 { leapSeconds = timeGPS.leapSeconds }
        if let pvt = epoch.pvt, week == nil, let utc = pvt.unixMilliseconds {
            // NAV-PVT alone: derive the week from its UTC date and the leap seconds.
            let gps = utc + Int64(leapSeconds ?? GPSTime.leapSeconds(atGPSSeconds: utc / 1000 - GPSTime.epochUnixSeconds)) * 1000
                - GPSTime.epochUnixSeconds * 1000
            // Rounded: the UTC fields are rounded to the ms and may be 1 ms off the iTOW.
            let derived = Int((gps - Int64(epoch.iTOW) + 302_400_000) / 604_800_000)
            if derived >= 0 { week = derived }
        }
        lastITOW = epoch.iTOW
        let time = epoch.unixMilliseconds(week: week, leapSeconds: leapSeconds)
        if let time { latestTime = time }
        var events: [GNSSEvent] = []
        if let fix = epoch.fix(week: week, leapSeconds: leapSeconds) {
            stats.fixes += 1
            if let latestHighRateFix, fix.timestamp <= latestHighRateFix {
                stats.fixesCoveredByHighRate += 1
                return events
            }
            if let transition = tracker.fix(at: fix.timestamp) { events.append(.transition(transition)) }
            events.append(.fix(fix))
        } else {
            if epoch.hasFix { stats.epochsWithoutTime += 1 } else { stats.epochsWithoutFix += 1 }
            if let time, let transition = tracker.noFix(at: time) { events.append(.transition(transition)) }
        }
        return events
    }
}
