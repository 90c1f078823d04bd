package import CaptureCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// WGS-84 Earth-centred, Earth-fixed coordinates.
package enum ECEF {
    /// Latitude and longitude (degrees) and height above the ellipsoid (m) of an ECEF point (m).
    ///
    /// Bowring's parametric-latitude iteration: three rounds reach well under a millimetre for
    /// points near the Earth's surface.
    package static func geodetic(x: Double, y: Double, z: Double) -> (latitude: Double, longitude: Double, height: Double) {
        let a = Geodesy.semiMajorAxis
        let b = Geodesy.semiMinorAxis
        let e2 = 1 - (b * b) / (a * a)
        let ep2 = (a * a) / (b * b) - 1
        let p = (x * x + y * y).squareRoot()
        let longitude = atan2(y, x)
        guard p > 1e-9 else {
            return (z >= 0 ? 90 : -90, longitude * 180 / .pi, abs(z) - b)
        }
        var beta = atan2(a * z, b * p)
        var latitude = 0.0
        for _ in 0..<4 {
            let s = sin(beta)
            let c = cos(beta)
            latitude = atan2(z + ep2 * b * s * s * s, p - e2 * a * c * c * c)
            beta = atan2(b * sin(latitude), a * cos(latitude))
        }
        let sinLat = sin(latitude)
        let n = a / (1 - e2 * sinLat * sinLat).squareRoot()
        let height: Double
        if abs(cos(latitude)) > 1e-6 {
            height = p / cos(latitude) - n
        } else {
            height = abs(z) - b
        }
        return (latitude * 180 / .pi, longitude * 180 / .pi, height)
    }

    /// An ECEF velocity rotated into the local north-east-down frame at a position (degrees).
    package static func northEastDown(
        velocity: (x: Double, y: Double, z: Double), latitude: Double, longitude: Double
    ) -> (north: Double, east: Double, down: Double) {
        let phi = latitude * .pi / 180
        let lambda = longitude * .pi / 180
        let (sp, cp, sl, cl) = (sin(phi), cos(phi), sin(lambda), cos(lambda))
        let north = -sp * cl * velocity.x - sp * sl * velocity.y + cp * velocity.z
        let east = -sl * velocity.x + cl * velocity.y
        let down = -cp * cl * velocity.x - cp * sl * velocity.y - sp * velocity.z
        return (north, east, down)
    }
}
