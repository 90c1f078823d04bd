package import CaptureCore

/// Why a line from gpsd is not a usable report.
package enum GPSDParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not JSON at all (gpsd also echoes NMEA when `"nmea":true` is watched; those lines start with `$`).
    case notJSON
    /// Valid JSON but not an object.
    case notAnObject
    /// An object without a string `class`.
    case missingClass
    /// A known field with a value of the wrong type (e.g. `"lat":"north"`), or a latitude or
    /// longitude out of range (`"lon":-188.4`).
    case invalidField(className: String, field: String)

    package var description: String {
        switch self {
        case .notJSON: "not a JSON line"
        case .notAnObject: "JSON line is not an object"
        case .missingClass: "JSON object has no \"class\""
        case .invalidField(let className, let field): "\(className): field \"\(field)\" has the wrong type or is out of range"
        }
    }
}

/// `VERSION`, sent on connect. Check ``protocolMajor`` is 3.
package struct GPSDVersion: Sendable, Equatable {
    /// gpsd release, e.g. `3.22`.
    package var release: String?
    /// Source revision of the daemon.
    package var revision: String?
    /// JSON protocol major version; this parser expects 3.
    package var protocolMajor: Int?
    /// JSON protocol minor version.
    package var protocolMinor: Int?
}

/// A receiver as gpsd describes it (`DEVICE`, or an element of `DEVICES`).
package struct GPSDDevice: Sendable, Equatable {
    /// Device path, e.g. `/dev/ttyACM0`.
    package var path: String?
    /// The driver gpsd chose, e.g. `NMEA0183`, `u-blox`.
    package var driver: String?
    /// Firmware or model details, when the driver found them.
    package var subtype: String?
    /// When the device was activated (ISO 8601); `nil` if not given or deactivated.
    package var activated: String?
    /// `true` for `"activated":0`: the device went away.
    package var isDeactivated: Bool
    /// Serial speed, bits per second.
    package var bitsPerSecond: Int?
}

/// `WATCH`: the watch policy gpsd confirms.
package struct GPSDWatch: Sendable, Equatable {
    /// Whether watching is on.
    package var enable: Bool?
    /// Whether JSON reports are sent.
    package var json: Bool?
    /// Whether the receiver's NMEA is echoed.
    package var nmea: Bool?
    /// 1 raw NMEA lines, 2 verbatim binary.
    package var raw: Int?
    /// Whether AIS/RTCM values are scaled.
    package var scaled: Bool?
    /// Whether AIS type 24 halves are reported separately.
    package var split24: Bool?
    /// Whether PPS reports are sent.
    package var pps: Bool?
    /// The device the report or policy is about.
    package var device: String?
}

/// `TPV`: time, position, velocity. Every field may be absent; gpsd omits what it does not know.
///
/// Several TPVs are often sent for one epoch (same ``time``) as the receiver's sentences arrive;
/// ``GPSDTPVMerger`` combines them.
package struct GPSDTPV: Sendable, Equatable {
    /// The device the report or policy is about.
    package var device: String?
    /// 0 unknown, 1 no fix, 2 2D, 3 3D.
    package var mode: Int?
    /// 2 DGPS, 3 RTK fixed, 4 RTK float, 5 dead reckoning, …
    package var status: Int?
    /// The `time` text as sent (ISO 8601), if it was text.
    package var time: String?
    /// ``time`` as Unix milliseconds.
    package var timestamp: Int64?
    /// Degrees.
    package var latitude: Double?
    /// Degrees.
    package var longitude: Double?
    /// Metres above the WGS-84 ellipsoid.
    package var altitudeHAE: Double?
    /// Metres above mean sea level.
    package var altitudeMSL: Double?
    /// Metres, geoid above ellipsoid.
    package var geoidSeparation: Double?
    /// Speed over ground, m/s.
    package var speed: Double?
    /// Course over ground, degrees from true north.
    package var track: Double?
    /// Vertical speed, m/s.
    package var climb: Double?
    /// Estimated errors (gpsd: "guessed to be 95% confidence"): longitude, latitude, horizontal,
    /// vertical in m; speed in m/s; climb m/s; time s.
    package var epx: Double?
    /// Latitude error estimate, m.
    package var epy: Double?
    /// Horizontal position error estimate, m.
    package var eph: Double?
    /// Vertical error estimate, m.
    package var epv: Double?
    /// Speed error estimate, m/s.
    package var eps: Double?
    /// Climb error estimate, m/s.
    package var epc: Double?
    /// Time error estimate, s.
    package var ept: Double?
    /// Magnetic variation, degrees (east positive).
    package var magneticVariation: Double?
    /// GPS−UTC leap seconds, when known.
    package var leapSeconds: Int?

    /// Later values win: every field present in `newer` replaces the one here.
    package func merged(with newer: GPSDTPV) -> GPSDTPV {
        GPSDTPV(
            device: newer.device ?? device, mode: newer.mode ?? mode, status: newer.status ?? status,
            time: newer.time ?? time, timestamp: newer.timestamp ?? timestamp,
            latitude: newer.latitude ?? latitude, longitude: newer.longitude ?? longitude,
            altitudeHAE: newer.altitudeHAE ?? altitudeHAE, altitudeMSL: newer.altitudeMSL ?? altitudeMSL,
            geoidSeparation: newer.geoidSeparation ?? geoidSeparation, speed: newer.speed ?? speed,
            track: newer.track ?? track, climb: newer.climb ?? climb, epx: newer.epx ?? epx, epy: newer.epy ?? epy,
            eph: newer.eph ?? eph, epv: newer.epv ?? epv, eps: newer.eps ?? eps, epc: newer.epc ?? epc,
            ept: newer.ept ?? ept, magneticVariation: newer.magneticVariation ?? magneticVariation,
            leapSeconds: newer.leapSeconds ?? leapSeconds)
    }

    /// The report as a ``Fix``: needs mode ≥ 2, a time, and a latitude in −90…90 and a longitude
    /// in −180…180.
    ///
    /// Altitude is `altHAE`, else `altMSL` (off by the geoid height, which gpsd reports when it
    /// knows it). Horizontal accuracy is `eph`, else the larger of `epx` and `epy`; vertical is
    /// `epv`. These are gpsd's estimates, nominally 95 %, so they are larger than the 1-σ figures
    /// the NMEA path derives from GST.
    package var fix: Fix? {
        guard let mode, mode >= 2, let timestamp, let latitude, let longitude, abs(latitude) <= 90, abs(longitude) <= 180
        else { return nil }
        var horizontal = eph
        if horizontal == nil, epx != nil || epy != nil { horizontal = max(epx ?? 0, epy ?? 0) }
        return Fix(
            timestamp: timestamp, latitude: latitude, longitude: longitude, altitude: altitudeHAE ?? altitudeMSL,
            horizontalAccuracy: horizontal, verticalAccuracy: epv, speed: speed, course: track,
            mode: mode >= 3 ? .threeD : .twoD)
    }
}

/// One satellite in a `SKY` report.
package struct GPSDSatellite: Sendable, Equatable {
    /// PRN (satellite number as gpsd numbers it).
    package var prn: Int?
    /// Elevation and azimuth, degrees.
    package var elevation: Double?
    /// Azimuth, degrees from true north.
    package var azimuth: Double?
    /// Signal strength, dBHz.
    package var signalStrength: Double?
    /// Used in the solution.
    package var used: Bool?
    /// GNSS system (0 GPS, 1 SBAS, 2 Galileo, 3 BeiDou, 5 QZSS, 6 GLONASS, …).
    package var gnssID: Int?
    /// Satellite number within its system.
    package var svID: Int?
}

/// `SKY`: satellites and DOPs.
package struct GPSDSky: Sendable, Equatable {
    /// The device the report or policy is about.
    package var device: String?
    /// The `time` text as sent (ISO 8601).
    package var time: String?
    /// Satellites visible (`nSat`).
    package var satellitesSeen: Int?
    /// Satellites used in the solution (`uSat`).
    package var satellitesUsed: Int?
    /// Horizontal dilution of precision.
    package var hdop: Double?
    /// Vertical dilution of precision.
    package var vdop: Double?
    /// Position (3D) dilution of precision.
    package var pdop: Double?
    /// Geometric dilution of precision.
    package var gdop: Double?
    /// Time dilution of precision.
    package var tdop: Double?
    /// Longitudinal dilution of precision.
    package var xdop: Double?
    /// Latitudinal dilution of precision.
    package var ydop: Double?
    /// Per-satellite details (empty when not sent).
    package var satellites: [GPSDSatellite]
}

/// `GST`: 1-σ error estimates from the receiver's NMEA GST, metres.
package struct GPSDGST: Sendable, Equatable {
    /// The device the report or policy is about.
    package var device: String?
    /// The `time` text as sent (ISO 8601).
    package var time: String?
    /// ``time`` as Unix milliseconds.
    package var timestamp: Int64?
    /// RMS of the pseudorange residuals.
    package var rms: Double?
    /// Semi-major axis of the error ellipse, m.
    package var major: Double?
    /// Semi-minor axis of the error ellipse, m.
    package var minor: Double?
    /// Degrees from true north.
    package var orientation: Double?
    /// Latitude error, m.
    package var latitude: Double?
    /// Longitude error, m.
    package var longitude: Double?
    /// Altitude error, m.
    package var altitude: Double?
}

/// One line of gpsd's JSON stream, decoded.
package enum GPSDMessage: Sendable, Equatable {
    /// Sent on connect.
    case version(GPSDVersion)
    /// The devices gpsd knows.
    case devices([GPSDDevice])
    /// A device was activated or went away.
    case device(GPSDDevice)
    /// The watch policy in force.
    case watch(GPSDWatch)
    /// Time, position, velocity.
    case tpv(GPSDTPV)
    /// Satellites and DOPs.
    case sky(GPSDSky)
    /// Error statistics.
    case gst(GPSDGST)
    /// `IMU` or `ATT`: a receiver's own accelerometer, gyroscope or magnetometer.
    case motion(GPSDMotionReport)
    /// `ERROR` with its `message`.
    case error(message: String?)
    /// Any other class (PPS, TOFF, POLL, …), not decoded here.
    case other(className: String)

    /// Parses one line (`\r\n` allowed). Everything but `class` is optional; a present field of
    /// the wrong type is an error.
    package init(line: String) throws(GPSDParseError) {
        let trimmed = line.drop { $0 == " " || $0 == "\t" }
        guard trimmed.first == "{" || trimmed.first == "[" else { throw .notJSON }
        guard let value = GPSDJSONValue.parse(String(trimmed)) else { throw .notJSON }
        guard case .object(let fields) = value else { throw .notAnObject }
        guard case .string(let className)? = fields["class"] else { throw .missingClass }
        let o = GPSDObject(fields: fields, className: className)
        switch className {
        case "VERSION":
            self = .version(
                GPSDVersion(
                    release: try o.string("release"), revision: try o.string("rev"),
                    protocolMajor: try o.int("proto_major"), protocolMinor: try o.int("proto_minor")))
        case "DEVICES":
            var devices: [GPSDDevice] = []
            for item in try o.objects("devices") { devices.append(try Self.device(item)) }
            self = .devices(devices)
        case "DEVICE":
            self = .device(try Self.device(o))
        case "WATCH":
            self = .watch(
                GPSDWatch(
                    enable: try o.bool("enable"), json: try o.bool("json"), nmea: try o.bool("nmea"),
                    raw: try o.int("raw"), scaled: try o.bool("scaled"), split24: try o.bool("split24"),
                    pps: try o.bool("pps"), device: try o.string("device")))
        case "TPV":
            let time = try o.time()
            self = .tpv(
                GPSDTPV(
                    device: try o.string("device"), mode: try o.int("mode"), status: try o.int("status"),
                    time: time.text, timestamp: time.unixMilliseconds, latitude: try o.double("lat", in: -90...90),
                    longitude: try o.double("lon", in: -180...180), altitudeHAE: try o.double("altHAE"),
                    altitudeMSL: try o.double("altMSL"), geoidSeparation: try o.double("geoidSep"),
                    speed: try o.double("speed"), track: try o.double("track"), climb: try o.double("climb"),
                    epx: try o.double("epx"), epy: try o.double("epy"), eph: try o.double("eph"),
                    epv: try o.double("epv"), eps: try o.double("eps"), epc: try o.double("epc"),
                    ept: try o.double("ept"), magneticVariation: try o.double("magvar"),
                    leapSeconds: try o.int("leapseconds")))
        case "SKY":
            var satellites: [GPSDSatellite] = []
            for item in try o.objects("satellites") {
                satellites.append(
                    GPSDSatellite(
                        prn: try item.int("PRN"), elevation: try item.double("el"), azimuth: try item.double("az"),
                        signalStrength: try item.double("ss"), used: try item.bool("used"),
                        gnssID: try item.int("gnssid"), svID: try item.int("svid")))
            }
            self = .sky(
                GPSDSky(
                    device: try o.string("device"), time: try o.time().text, satellitesSeen: try o.int("nSat"),
                    satellitesUsed: try o.int("uSat"), hdop: try o.double("hdop"), vdop: try o.double("vdop"),
                    pdop: try o.double("pdop"), gdop: try o.double("gdop"), tdop: try o.double("tdop"),
                    xdop: try o.double("xdop"), ydop: try o.double("ydop"), satellites: satellites))
        case "GST":
            let time = try o.time()
            self = .gst(
                GPSDGST(
                    device: try o.string("device"), time: time.text, timestamp: time.unixMilliseconds,
                    rms: try o.double("rms"), major: try o.double("major"), minor: try o.double("minor"),
                    orientation: try o.double("orient"), latitude: try o.double("lat"),
                    longitude: try o.double("lon"), altitude: try o.double("alt")))
        case "IMU", "ATT":
            self = .motion(try GPSDMotionReport(o))
        case "ERROR":
            self = .error(message: try o.string("message"))
        default:
            self = .other(className: className)
        }
    }

    private static func device(_ o: GPSDObject) throws(GPSDParseError) -> GPSDDevice {
        var activated: String? = nil
        var deactivated = false
        switch o.fields["activated"] {
        case .string(let text): activated = text
        case .number(let value): deactivated = value == 0
        case nil, .null: break
        default: throw .invalidField(className: o.className, field: "activated")
        }
        return GPSDDevice(
            path: try o.string("path"), driver: try o.string("driver"), subtype: try o.string("subtype"),
            activated: activated, isDeactivated: deactivated, bitsPerSecond: try o.int("bps"))
    }
}

/// Requests a client sends to gpsd.
package enum GPSDCommand {
    /// `?WATCH={"enable":true,"json":true}` plus a newline: start streaming JSON reports (for one
    /// device when `device` is given). Device paths are quoted as JSON strings (``JSONString``).
    package static func watch(enable: Bool = true, json: Bool = true, device: String? = nil) -> String {
        var text = "?WATCH={\"enable\":\(enable),\"json\":\(json)"
        if let device { text += ",\"device\":" + JSONString.quoted(device) }
        return text + "}\n"
    }
}
