/// The three-axis motion sensors.
///
/// Raw values are stable: they are stored in the database.
public enum MotionSensor: Int, Sendable, CaseIterable, Codable, Hashable {
    /// Acceleration including gravity, m/s².
    case accelerometer = 1
    /// Angular velocity, rad/s.
    case gyroscope = 2
    /// Magnetic flux density, µT.
    case magnetometer = 3

    /// Short name used in traces, JSON and CSV (`acc`, `gyr`, `mag`).
    public var shortName: String {
        switch self {
        case .accelerometer: "acc"
        case .gyroscope: "gyr"
        case .magnetometer: "mag"
        }
    }

    /// The factor to the integer units the store and the Cyface transfer format keep: m/s² × 1000
    /// (mm/s²), rad/s × 1000 (mrad/s), µT × 100 (10 nT).
    public var transferScale: Double {
        switch self {
        case .accelerometer: 1000
        case .gyroscope: 1000
        case .magnetometer: 100
        }
    }

    /// The SI unit of the sensor's values.
    public var unit: String {
        switch self {
        case .accelerometer: "m/s²"
        case .gyroscope: "rad/s"
        case .magnetometer: "µT"
        }
    }
}

/// One reading of a three-axis motion sensor, in SI units (see ``MotionSensor``).
public struct MotionSample: Sendable, Equatable, Hashable {
    /// Unix time in milliseconds.
    public var timestamp: Int64
    public var x: Double
    public var y: Double
    public var z: Double

    public init(timestamp: Int64, x: Double, y: Double, z: Double) {
        self.timestamp = timestamp
        self.x = x
        self.y = y
        self.z = z
    }
}

/// One GNSS position fix.
///
/// Optional fields are `nil` when the receiver did not report them.
public struct Fix: Sendable, Equatable, Hashable, Codable {
    /// Unix time in milliseconds.
    public var timestamp: Int64
    /// WGS-84 latitude in degrees, −90…90.
    public var latitude: Double
    /// WGS-84 longitude in degrees, −180…180.
    public var longitude: Double
    /// Height above the WGS-84 ellipsoid in metres.
    public var altitude: Double?
    /// Horizontal accuracy in metres.
    public var horizontalAccuracy: Double?
    /// Vertical accuracy in metres.
    public var verticalAccuracy: Double?
    /// Speed over ground in m/s.
    public var speed: Double?
    /// Course over ground in degrees clockwise from true north.
    public var course: Double?
    /// Satellites used in the solution.
    public var satellites: Int?
    /// Horizontal dilution of precision.
    public var hdop: Double?
    /// Vertical dilution of precision.
    public var vdop: Double?
    /// Position (3D) dilution of precision.
    public var pdop: Double?
    /// 2D or 3D (GPX's `<fix>`).
    public var mode: FixMode?

    public init(
        timestamp: Int64, latitude: Double, longitude: Double, altitude: Double? = nil,
        horizontalAccuracy: Double? = nil, verticalAccuracy: Double? = nil, speed: Double? = nil,
        course: Double? = nil, satellites: Int? = nil, hdop: Double? = nil, vdop: Double? = nil,
        pdop: Double? = nil, mode: FixMode? = nil
    ) {
        self.timestamp = timestamp
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
        self.horizontalAccuracy = horizontalAccuracy
        self.verticalAccuracy = verticalAccuracy
        self.speed = speed
        self.course = course
        self.satellites = satellites
        self.hdop = hdop
        self.vdop = vdop
        self.pdop = pdop
        self.mode = mode
    }

    /// The fix with its quality (satellites, DOPs, mode) taken from `other` where it has none.
    public func filling(qualityFrom other: Fix) -> Fix {
        var fix = self
        fix.satellites = satellites ?? other.satellites
        fix.hdop = hdop ?? other.hdop
        fix.vdop = vdop ?? other.vdop
        fix.pdop = pdop ?? other.pdop
        fix.mode = mode ?? other.mode
        return fix
    }

    /// Whether any of the quality fields is present.
    public var hasQuality: Bool { satellites != nil || hdop != nil || vdop != nil || pdop != nil || mode != nil }
}

/// The dimension of a fix, as NMEA GSA, gpsd's TPV `mode` and u-blox's fix type give it.
/// Stored as its raw value (2 or 3); spelled `2d`/`3d` in GPX's `<fix>` and the exports.
public enum FixMode: Int, Sendable, Equatable, Hashable, Codable, CaseIterable {
    case twoD = 2
    case threeD = 3

    /// GPX's spelling: `2d` or `3d`.
    public var spelling: String { self == .twoD ? "2d" : "3d" }

    /// The mode spelled `2d` or `3d` (case-insensitive), else `nil`.
    public init?(spelling: String) {
        switch spelling.lowercased() {
        case "2d": self = .twoD
        case "3d": self = .threeD
        default: return nil
        }
    }
}

/// One barometer reading.
public struct PressureSample: Sendable, Equatable, Hashable, Codable {
    /// Unix time in milliseconds.
    public var timestamp: Int64
    /// Absolute air pressure in hPa.
    public var hectopascals: Double

    public init(timestamp: Int64, hectopascals: Double) {
        self.timestamp = timestamp
        self.hectopascals = hectopascals
    }
}

/// Anything a source delivers: a sensor reading or a fix.
///
/// A fix is kept out of line: with its quality fields it is about 160 bytes, and inline it made
/// every sample that size, copied several times on its way from the parser to the store, though
/// a 100 Hz ride has one fix for every 300 motion samples.
public enum Sample: Sendable, Equatable {
    case motion(MotionSensor, MotionSample)
    indirect case fix(Fix)
    case pressure(PressureSample)

    /// Unix time in milliseconds.
    public var timestamp: Int64 {
        switch self {
        case .motion(_, let sample): sample.timestamp
        case .fix(let fix): fix.timestamp
        case .pressure(let pressure): pressure.timestamp
        }
    }
}
