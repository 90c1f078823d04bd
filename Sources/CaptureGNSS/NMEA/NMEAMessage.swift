package import CaptureCore

/// Why a well-framed sentence could not be turned into an ``NMEAMessage``.
package enum NMEAParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A sentence type this parser does not decode (GSV, GLL, ZDA, proprietary ones, …). Not an error
    /// in the data; callers count and skip it.
    case unsupported(type: String)
    /// Fewer fields than the sentence type needs.
    case tooFewFields(type: String, count: Int, needed: Int)
    /// A field is present but not valid for its position (e.g. a latitude of `91xx.xx`, status `X`).
    case invalidField(type: String, field: String)

    package var description: String {
        switch self {
        case .unsupported(let type): "unsupported sentence type \(type)"
        case .tooFewFields(let type, let count, let needed): "\(type) has \(count) fields, needs at least \(needed)"
        case .invalidField(let type, let field): "\(type): invalid \(field)"
        }
    }
}

/// RMC, recommended minimum data: the only one of the supported sentences with the date.
///
/// `hhmmss.ss,A|V,lat,N|S,lon,E|W,speed(kn),track(°true),ddmmyy,magvar,E|W[,mode][,navstatus]`
package struct NMEARMC: Sendable, Equatable {
    /// UTC time of day, `nil` when the field is empty.
    package var time: NMEATime?
    /// `true` for status `A` (valid), `false` for `V` (warning), `nil` when empty.
    package var isValid: Bool?
    /// Signed degrees (south negative).
    package var latitude: Double?
    /// Signed degrees (west negative).
    package var longitude: Double?
    /// Speed over ground in knots, as transmitted.
    package var speedKnots: Double?
    /// Course over ground, degrees from true north.
    package var course: Double?
    /// UTC date, `nil` when empty.
    package var date: NMEADate?
    /// Magnetic variation in degrees, east positive.
    package var magneticVariation: Double?
    /// NMEA 2.3 mode indicator (`A` autonomous, `D` differential, `E` estimated, `N` not valid, …).
    package var mode: Character?

    /// Speed over ground in m/s.
    package var speed: Double? { speedKnots.map { $0 * NMEAField.metersPerSecondPerKnot } }
}

/// GGA, fix data: quality, satellites, HDOP and altitude.
///
/// `time,lat,N,lon,E,quality,numSats,HDOP,alt(MSL),M,geoidSep,M,dgpsAge,stationID`
package struct NMEAGGA: Sendable, Equatable {
    /// UTC time of day, `nil` when the field is empty.
    package var time: NMEATime?
    /// Signed degrees (south negative).
    package var latitude: Double?
    /// Signed degrees (west negative).
    package var longitude: Double?
    /// 0 no fix, 1 GPS, 2 DGPS, 3 PPS, 4 RTK fixed, 5 RTK float, 6 dead reckoning, 7 manual, 8 simulation.
    package var quality: Int?
    /// Satellites used in the solution.
    package var satellitesUsed: Int?
    /// Horizontal dilution of precision.
    package var hdop: Double?
    /// Altitude above mean sea level (the geoid), metres.
    package var altitudeMSL: Double?
    /// Geoid height above the WGS-84 ellipsoid, metres.
    package var geoidSeparation: Double?
    /// Seconds since the last differential correction.
    package var dgpsAge: Double?
    /// Differential reference station ID.
    package var dgpsStation: String?

    /// Height above the ellipsoid: `altitudeMSL + geoidSeparation`, `nil` unless both are known.
    package var altitudeHAE: Double? {
        guard let altitudeMSL, let geoidSeparation else { return nil }
        return altitudeMSL + geoidSeparation
    }
}

/// GSA, DOP and active satellites. Multi-GNSS receivers send one per system.
///
/// `A|M,mode(1 no fix/2 2D/3 3D),12 PRN slots,PDOP,HDOP,VDOP[,systemID]` (system ID since NMEA 4.1).
package struct NMEAGSA: Sendable, Equatable {
    /// `A` automatic or `M` manual 2D/3D selection.
    package var selection: Character?
    /// 1 no fix, 2 2D, 3 3D.
    package var fixMode: Int?
    /// The non-empty PRN slots.
    package var satellites: [Int]
    /// Position (3D) dilution of precision.
    package var pdop: Double?
    /// Horizontal dilution of precision.
    package var hdop: Double?
    /// Vertical dilution of precision.
    package var vdop: Double?
    /// NMEA 4.1 GNSS system ID: 1 GPS, 2 GLONASS, 3 Galileo, 4 BeiDou, 5 QZSS, 6 NavIC.
    package var systemID: Int?
}

/// GST, pseudorange error statistics (1-σ, metres).
///
/// `time,rmsRange,σmajor,σminor,orientation,σlat,σlon,σalt`
package struct NMEAGST: Sendable, Equatable {
    /// UTC time of day, `nil` when the field is empty.
    package var time: NMEATime?
    /// RMS of the pseudorange residuals.
    package var rms: Double?
    /// σ of the error ellipse's semi-major axis.
    package var sigmaMajor: Double?
    /// σ of the error ellipse's semi-minor axis.
    package var sigmaMinor: Double?
    /// Orientation of the error ellipse's semi-major axis, degrees from true north.
    package var orientation: Double?
    /// σ of the latitude error.
    package var sigmaLatitude: Double?
    /// σ of the longitude error.
    package var sigmaLongitude: Double?
    /// σ of the altitude error.
    package var sigmaAltitude: Double?
}

/// VTG, course and speed over ground.
///
/// `course,T,course,M,speed,N,speed,K[,mode]`; the pre-2.0 form without unit letters
/// (`course,course,knots,km/h`) is accepted too.
package struct NMEAVTG: Sendable, Equatable {
    /// Degrees from true north.
    package var courseTrue: Double?
    /// Degrees from magnetic north.
    package var courseMagnetic: Double?
    /// Speed over ground in knots.
    package var speedKnots: Double?
    /// Speed over ground in km/h.
    package var speedKilometersPerHour: Double?
    /// NMEA 2.3 mode indicator; `N` means not valid.
    package var mode: Character?

    /// Speed over ground in m/s, from the knots field, else from km/h.
    package var speed: Double? {
        if let speedKnots { return speedKnots * NMEAField.metersPerSecondPerKnot }
        return speedKilometersPerHour.map { $0 / 3.6 }
    }
}

/// GNS, multi-GNSS fix data (like GGA, with one mode character per system).
///
/// `time,lat,N,lon,E,modes,numSats,HDOP,alt(MSL),geoidSep,dgpsAge,stationID[,navStatus]`
package struct NMEAGNS: Sendable, Equatable {
    /// UTC time of day, `nil` when the field is empty.
    package var time: NMEATime?
    /// Signed degrees (south negative).
    package var latitude: Double?
    /// Signed degrees (west negative).
    package var longitude: Double?
    /// One character per system (GPS, GLONASS, Galileo, BeiDou, …): `N` no fix, `A` autonomous,
    /// `D` differential, `R`/`F` RTK, `E` estimated, …
    package var modes: String
    /// Satellites used in the solution.
    package var satellitesUsed: Int?
    /// Horizontal dilution of precision.
    package var hdop: Double?
    /// Altitude above mean sea level, metres.
    package var altitudeMSL: Double?
    /// Geoid height above the WGS-84 ellipsoid, metres.
    package var geoidSeparation: Double?

    /// `true` if at least one system has a fix (a mode other than `N`).
    package var hasFix: Bool { modes.contains { $0 != "N" } }

    /// `altitudeMSL + geoidSeparation`, `nil` unless both are known.
    package var altitudeHAE: Double? {
        guard let altitudeMSL, let geoidSeparation else { return nil }
        return altitudeMSL + geoidSeparation
    }
}

/// ZDA, time and date: `hhmmss.ss,dd,mm,yyyy,zoneHours,zoneMinutes`. Dates before 1980 (the
/// start of GPS time) are rejected as invalid.
package struct NMEAZDA: Sendable, Equatable {
    /// UTC time of day, `nil` when the field is empty.
    package var time: NMEATime?
    /// The UTC date, `nil` when the day, month or year field is empty.
    package var date: NMEADate?
    /// Local time zone offset in minutes (informational; times stay UTC).
    package var localZoneMinutes: Int?
}

/// A decoded sentence of one of the supported types.
package enum NMEAMessage: Sendable, Equatable {
    /// Recommended minimum data (with the date).
    case rmc(NMEARMC)
    /// Fix data with altitude.
    case gga(NMEAGGA)
    /// DOPs and active satellites.
    case gsa(NMEAGSA)
    /// Error statistics.
    case gst(NMEAGST)
    /// Course and speed.
    case vtg(NMEAVTG)
    /// Multi-GNSS fix data.
    case gns(NMEAGNS)
    /// Time and date.
    case zda(NMEAZDA)

    /// The UTC time field, for the sentences that carry one (GSA and VTG do not).
    package var time: NMEATime? {
        switch self {
        case .rmc(let m): m.time
        case .gga(let m): m.time
        case .gst(let m): m.time
        case .gns(let m): m.time
        case .zda(let m): m.time
        case .gsa, .vtg: nil
        }
    }

    /// Decodes a sentence. Proprietary sentences and types other than RMC, GGA, GSA, GST, VTG,
    /// GNS and ZDA give ``NMEAParseError/unsupported(type:)``; the talker does not matter.
    package init(_ sentence: NMEASentence) throws(NMEAParseError) {
        let type = sentence.type
        guard sentence.talker != .proprietary else { throw .unsupported(type: "P" + type) }
        func need(_ count: Int) throws(NMEAParseError) {
            guard sentence.fields.count >= count else {
                throw .tooFewFields(type: type, count: sentence.fields.count, needed: count)
            }
        }
        let f = sentence.field
        do {
            switch type {
            case "RMC":
                try need(9)
                let status = try NMEAField.character(f(1), "status", allowed: "AV")
                let variation = try NMEAField.double(f(9), "magnetic variation")
                // SiRF III firmware (gpsd's motorola-t805.log) sends eleven fields: a variation
                // with no direction, then the mode. Eleven fields whose last is a mode letter
                // and no direction are read so; anything else keeps the standard order.
                let modes = "ADEFMNPRSV"
                let sirf = sentence.fields.count == 11 && f(10).count == 1 && modes.contains(f(10)) && !"EW".contains(f(10))
                let variationSign = sirf ? nil : try NMEAField.character(f(10), "magnetic variation direction", allowed: "EW")
                self = .rmc(
                    NMEARMC(
                        time: try NMEAField.time(f(0)),
                        isValid: status.map { $0 == "A" },
                        latitude: try NMEAField.coordinate(f(2), f(3), isLatitude: true),
                        longitude: try NMEAField.coordinate(f(4), f(5), isLatitude: false),
                        speedKnots: try NMEAField.double(f(6), "speed"),
                        course: try NMEAField.double(f(7), "course"),
                        date: try Self.date(f(8)),
                        magneticVariation: variation.map { variationSign == "W" ? -$0 : $0 },
                        mode: try NMEAField.character(f(sirf ? 10 : 11), "mode", allowed: modes)))
            case "GGA":
                try need(9)
                self = .gga(
                    NMEAGGA(
                        time: try NMEAField.time(f(0)),
                        latitude: try NMEAField.coordinate(f(1), f(2), isLatitude: true),
                        longitude: try NMEAField.coordinate(f(3), f(4), isLatitude: false),
                        quality: try NMEAField.int(f(5), "quality"),
                        satellitesUsed: try NMEAField.int(f(6), "satellite count"),
                        hdop: try NMEAField.double(f(7), "HDOP"),
                        altitudeMSL: try NMEAField.double(f(8), "altitude"),
                        geoidSeparation: try NMEAField.double(f(10), "geoid separation"),
                        dgpsAge: try NMEAField.double(f(12), "DGPS age"),
                        dgpsStation: f(13).isEmpty ? nil : f(13)))
            case "GSA":
                try need(17)
                var satellites: [Int] = []
                for slot in 2..<14 {
                    if let prn = try NMEAField.int(f(slot), "satellite PRN") { satellites.append(prn) }
                }
                self = .gsa(
                    NMEAGSA(
                        selection: try NMEAField.character(f(0), "selection mode", allowed: "AM"),
                        fixMode: try NMEAField.int(f(1), "fix mode"),
                        satellites: satellites,
                        pdop: try NMEAField.double(f(14), "PDOP"),
                        hdop: try NMEAField.double(f(15), "HDOP"),
                        vdop: try NMEAField.double(f(16), "VDOP"),
                        systemID: try NMEAField.int(f(17), "system ID")))
            case "GST":
                try need(8)
                self = .gst(
                    NMEAGST(
                        time: try NMEAField.time(f(0)),
                        rms: try NMEAField.double(f(1), "RMS"),
                        sigmaMajor: try NMEAField.double(f(2), "semi-major σ"),
                        sigmaMinor: try NMEAField.double(f(3), "semi-minor σ"),
                        orientation: try NMEAField.double(f(4), "orientation"),
                        sigmaLatitude: try NMEAField.double(f(5), "latitude σ"),
                        sigmaLongitude: try NMEAField.double(f(6), "longitude σ"),
                        sigmaAltitude: try NMEAField.double(f(7), "altitude σ")))
            case "VTG":
                try need(4)
                if sentence.field(1) == "T" || sentence.fields.count >= 8 {
                    try need(8)
                    self = .vtg(
                        NMEAVTG(
                            courseTrue: try NMEAField.double(f(0), "true course"),
                            courseMagnetic: try NMEAField.double(f(2), "magnetic course"),
                            speedKnots: try NMEAField.double(f(4), "speed (knots)"),
                            speedKilometersPerHour: try NMEAField.double(f(6), "speed (km/h)"),
                            mode: try NMEAField.character(f(8), "mode", allowed: "ADEFMNPRSV")))
                } else {
                    self = .vtg(
                        NMEAVTG(
                            courseTrue: try NMEAField.double(f(0), "true course"),
                            courseMagnetic: try NMEAField.double(f(1), "magnetic course"),
                            speedKnots: try NMEAField.double(f(2), "speed (knots)"),
                            speedKilometersPerHour: try NMEAField.double(f(3), "speed (km/h)"),
                            mode: nil))
                }
            case "GNS":
                try need(10)
                let modes = f(5)
                guard modes.allSatisfy({ $0.isASCII && $0.isLetter && $0.isUppercase }) else {
                    throw NMEAField.Invalid(field: "mode indicators")
                }
                self = .gns(
                    NMEAGNS(
                        time: try NMEAField.time(f(0)),
                        latitude: try NMEAField.coordinate(f(1), f(2), isLatitude: true),
                        longitude: try NMEAField.coordinate(f(3), f(4), isLatitude: false),
                        modes: modes,
                        satellitesUsed: try NMEAField.int(f(6), "satellite count"),
                        hdop: try NMEAField.double(f(7), "HDOP"),
                        altitudeMSL: try NMEAField.double(f(8), "altitude"),
                        geoidSeparation: try NMEAField.double(f(9), "geoid separation")))
            case "ZDA":
                try need(4)
                let day = try NMEAField.int(f(1), "day")
                let month = try NMEAField.int(f(2), "month")
                let year = try NMEAField.int(f(3), "year")
                var date: NMEADate? = nil
                if let day, let month, let year {
                    guard let valid = NMEADate(year: year, month: month, day: day), year >= 1980 else {
                        throw NMEAField.Invalid(field: "date")
                    }
                    date = valid
                }
                let zoneHours = try NMEAField.int(f(4), "zone hours")
                let zoneMinutes = try NMEAField.int(f(5), "zone minutes")
                var zone: Int? = nil
                if let zoneHours {
                    let minutes = zoneMinutes ?? 0
                    zone = zoneHours * 60 + (zoneHours < 0 ? -minutes : minutes)
                }
                self = .zda(NMEAZDA(time: try NMEAField.time(f(0)), date: date, localZoneMinutes: zone))
            default:
                throw NMEAParseError.unsupported(type: type)
            }
        } catch let error as NMEAField.Invalid {
            throw .invalidField(type: type, field: error.field)
        } catch let error as NMEAParseError {
            throw error
        } catch {
            throw .invalidField(type: type, field: "unknown")
        }
    }

    private static func date(_ text: String) throws(NMEAField.Invalid) -> NMEADate? {
        if text.isEmpty { return nil }
        guard let date = NMEADate(parsingDDMMYY: text) else { throw NMEAField.Invalid(field: "date") }
        return date
    }
}
