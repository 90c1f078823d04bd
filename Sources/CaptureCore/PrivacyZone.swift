/// A circle on the ground whose fixes never leave the device: fixes inside it, and the motion
/// samples of the stretches of time spent inside it, are left out of every transfer file and
/// export (the local store keeps everything). Configured as `privacy.zones` in the config file.
///
/// ```swift
/// let home = PrivacyZone(latitude: 51.0504, longitude: 13.7373, radius: 200)!
/// home.contains(latitude: 51.0505, longitude: 13.7374)   // true
/// ```
public struct PrivacyZone: Sendable, Hashable, Codable {
    /// The centre's latitude in degrees (−90…90).
    public let latitude: Double
    /// The centre's longitude in degrees (−180…180).
    public let longitude: Double
    /// The radius in metres (above 0, at most 100 km).
    public let radius: Double

    /// Creates a zone, or nil if a coordinate or the radius is out of range or not finite.
    public init?(latitude: Double, longitude: Double, radius: Double) {
        guard (-90...90).contains(latitude), (-180...180).contains(longitude), radius > 0, radius <= 100_000 else {
            return nil
        }
        self.latitude = latitude
        self.longitude = longitude
        self.radius = radius
    }

    /// Whether a point lies inside the zone or on its edge (geodesic distance on WGS 84).
    public func contains(latitude: Double, longitude: Double) -> Bool {
        Geodesy.distance(from: (self.latitude, self.longitude), to: (latitude, longitude)) <= radius
    }

    /// What a valid zone is, for error messages.
    public static let expected = "latitude −90…90, longitude −180…180 and radius in metres above 0, at most 100000"
}
