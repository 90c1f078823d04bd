#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Geodesic distances on the WGS-84 ellipsoid.
///
/// Pure functions of their arguments: no I/O, no state. Coordinates are in degrees, distances in
/// metres.
///
/// ```swift
/// let metres = Geodesy.distance(from: (latitude: 51.0504, longitude: 13.7373),
///                               to: (latitude: 51.3397, longitude: 12.3731))
/// ```
public enum Geodesy {
    /// WGS-84 semi-major axis (equatorial radius), metres.
    public static let semiMajorAxis = 6_378_137.0
    /// WGS-84 flattening, `(a − b) / a`.
    public static let flattening = 1 / 298.257_223_563
    /// WGS-84 semi-minor axis (polar radius), metres: `a · (1 − f)`.
    public static let semiMinorAxis = semiMajorAxis * (1 - flattening)

    /// The second eccentricity squared, `(a² − b²) / b²`, which scales `u²` in Vincenty's series.
    static let secondEccentricitySquared =
        (semiMajorAxis * semiMajorAxis - semiMinorAxis * semiMinorAxis)
        / (semiMinorAxis * semiMinorAxis)

    /// Iteration cap for Vincenty's λ iteration. Ordinary pairs converge in fewer than 10 steps; the
    /// pairs that need hundreds are nearly antipodal, and the fallback handles those better.
    static let vincentyIterationLimit = 200
    /// Convergence threshold on λ, radians: 1e-12 rad is about 6 µm on the ground.
    static let vincentyTolerance = 1e-12

    /// The length of the shortest geodesic between two points on the WGS-84 ellipsoid, in metres.
    ///
    /// Uses Vincenty's inverse formula (1975), accurate to about 0.1 mm. Vincenty's iteration fails
    /// to converge for some nearly antipodal pairs (for example 0°, 0° → 0.5°, 179.7°); those are
    /// solved instead by bisection on the starting azimuth (after Karney, 2013) with the same series,
    /// which is accurate to well under a millimetre as well.
    ///
    /// Coincident points give exactly 0. The result is symmetric, never negative, and at most half
    /// a meridian (20 003 931.46 m).
    ///
    /// - Parameters:
    ///   - from: Latitude (−90…90; values outside are clamped) and longitude (any value, taken modulo
    ///     360) in degrees.
    ///   - to: The other point, in the same form.
    /// - Returns: The distance in metres, or NaN if a coordinate is NaN or infinite.
    public static func distance(
        from: (latitude: Double, longitude: Double), to: (latitude: Double, longitude: Double)
    ) -> Double {
        guard from.latitude.isFinite, from.longitude.isFinite, to.latitude.isFinite,
            to.longitude.isFinite
        else { return .nan }
        let p1 = Point(latitude: from.latitude, longitude: from.longitude)
        let p2 = Point(latitude: to.latitude, longitude: to.longitude)
        if p1.latitude == p2.latitude && longitudeDifference(p1, p2) == 0 { return 0 }
        if let metres = vincentyInverse(p1, p2) { return metres }
        return antipodalDistance(p1, p2)
    }

    /// The length of one track: the sum of the geodesic distances between consecutive *clean* fixes.
    ///
    /// Fixes that fail ``LocationCleaning/isClean(_:)`` are skipped, so the distance runs from one
    /// clean fix straight to the next clean one, as Android's `DefaultDistanceCalculation` does. Pass
    /// each track separately: pause gaps lie between tracks and must not be counted.
    ///
    /// - Parameter fixes: The fixes of one track, in time order.
    /// - Returns: Metres; 0 when fewer than two fixes are clean.
    public static func trackDistance(_ fixes: [Fix]) -> Double {
        var distance = TrackDistance()
        for fix in fixes { distance.add(fix) }
        return distance.metres
    }

    /// ``trackDistance(_:)`` fix by fix, for a reader that streams a track's fixes instead of
    /// holding them all (a day has 86,400).
    public struct TrackDistance: Sendable {
        /// The length so far.
        public private(set) var metres = 0.0
        private var previous: (latitude: Double, longitude: Double)?

        public init() {}

        /// The next fix of the track, in time order; one that is not clean is skipped.
        public mutating func add(_ fix: Fix) {
            guard LocationCleaning.isClean(fix) else { return }
            if let previous { metres += Geodesy.distance(from: previous, to: (fix.latitude, fix.longitude)) }
            previous = (fix.latitude, fix.longitude)
        }
    }

    /// The bounding box of `fixes` (clean or not), or `nil` for none; see ``BoundingBox``.
    public static func boundingBox(_ fixes: [Fix]) -> BoundingBox? {
        BoundingBox(fixes)
    }

    // MARK: - Internals (internal for tests)

    /// A position in radians, latitude clamped to ±π/2.
    struct Point {
        var latitude: Double
        var longitude: Double

        init(latitude degreesLatitude: Double, longitude degreesLongitude: Double) {
            latitude = min(max(degreesLatitude, -90), 90) * .pi / 180
            longitude = degreesLongitude * .pi / 180
        }
    }

    /// `p2.longitude − p1.longitude` reduced to −π…π radians.
    static func longitudeDifference(_ p1: Point, _ p2: Point) -> Double {
        var difference = (p2.longitude - p1.longitude).truncatingRemainder(dividingBy: 2 * .pi)
        if difference > .pi { difference -= 2 * .pi }
        if difference < -.pi { difference += 2 * .pi }
        return difference
    }

    /// Reduced (parametric) latitude β, with `tan β = (1 − f) tan φ`, as (sin β, cos β).
    ///
    /// Computed through `atan2` so that the poles, where `tan φ` is infinite, need no special case.
    static func reducedLatitude(_ latitude: Double) -> (sin: Double, cos: Double) {
        let beta = atan2((1 - flattening) * sin(latitude), cos(latitude))
        return (sin(beta), cos(beta))
    }

    /// Vincenty's series for the geodesic length, `b · A · (σ − Δσ)`.
    ///
    /// - Parameters:
    ///   - cosSquaredAlpha: cos²α₀, α₀ being the azimuth of the geodesic at the equator.
    ///   - sigma: The arc length on the auxiliary sphere, radians.
    ///   - sinSigma, cosSigma: Its sine and cosine.
    ///   - cos2SigmaM: cos 2σₘ, 2σₘ being the sum of the two endpoints' arc lengths from the node.
    static func vincentyLength(
        cosSquaredAlpha: Double, sigma: Double, sinSigma: Double, cosSigma: Double, cos2SigmaM: Double
    ) -> Double {
        let uSquared = cosSquaredAlpha * secondEccentricitySquared
        let a = 1 + uSquared / 16384 * (4096 + uSquared * (-768 + uSquared * (320 - 175 * uSquared)))
        let b = uSquared / 1024 * (256 + uSquared * (-128 + uSquared * (74 - 47 * uSquared)))
        let c2 = cos2SigmaM * cos2SigmaM
        let deltaSigma =
            b * sinSigma
            * (cos2SigmaM + b / 4
                * (cosSigma * (-1 + 2 * c2) - b / 6 * cos2SigmaM * (-3 + 4 * sinSigma * sinSigma)
                    * (-3 + 4 * c2)))
        return semiMinorAxis * a * (sigma - deltaSigma)
    }

    /// Vincenty's coefficient of the λ − L series, `C = f/16 · cos²α · (4 + f · (4 − 3 cos²α))`.
    static func vincentyC(cosSquaredAlpha: Double) -> Double {
        flattening / 16 * cosSquaredAlpha * (4 + flattening * (4 - 3 * cosSquaredAlpha))
    }

    /// The ellipsoidal longitude difference L for an auxiliary-sphere longitude difference ω:
    /// `L = ω − (1 − C) · f · sin α · (σ + C sin σ (cos 2σₘ + C cos σ (−1 + 2 cos² 2σₘ)))`.
    static func ellipsoidalLongitude(
        omega: Double, sinAlpha: Double, cosSquaredAlpha: Double, sigma: Double, sinSigma: Double,
        cosSigma: Double, cos2SigmaM: Double
    ) -> Double {
        let c = vincentyC(cosSquaredAlpha: cosSquaredAlpha)
        return omega - (1 - c) * flattening * sinAlpha
            * (sigma + c * sinSigma
                * (cos2SigmaM + c * cosSigma * (-1 + 2 * cos2SigmaM * cos2SigmaM)))
    }

    /// Vincenty's inverse formula.
    ///
    /// - Returns: Metres, or `nil` if the λ iteration does not converge within
    ///   ``vincentyIterationLimit`` steps or leaves −π…π, which happens only for nearly antipodal
    ///   points (and for the exactly antipodal ones, where the azimuth is undetermined).
    static func vincentyInverse(_ p1: Point, _ p2: Point) -> Double? {
        let bigL = longitudeDifference(p1, p2)
        let (sinU1, cosU1) = reducedLatitude(p1.latitude)
        let (sinU2, cosU2) = reducedLatitude(p2.latitude)

        var lambda = bigL
        for _ in 0..<vincentyIterationLimit {
            let sinLambda = sin(lambda)
            let cosLambda = cos(lambda)
            let t1 = cosU2 * sinLambda
            let t2 = cosU1 * sinU2 - sinU1 * cosU2 * cosLambda
            let sinSigma = (t1 * t1 + t2 * t2).squareRoot()
            let cosSigma = sinU1 * sinU2 + cosU1 * cosU2 * cosLambda
            if sinSigma == 0 {
                // Coincident (σ = 0) or antipodal (σ = π, e.g. pole to pole), where α is undefined.
                return cosSigma > 0 ? 0 : nil
            }
            let sigma = atan2(sinSigma, cosSigma)
            let sinAlpha = cosU1 * cosU2 * sinLambda / sinSigma
            let cosSquaredAlpha = 1 - sinAlpha * sinAlpha
            // On the equator cos²α = 0 and the term is irrelevant (it is multiplied by C = 0).
            let cos2SigmaM =
                cosSquaredAlpha != 0 ? cosSigma - 2 * sinU1 * sinU2 / cosSquaredAlpha : 0
            let c = vincentyC(cosSquaredAlpha: cosSquaredAlpha)
            let next =
                bigL + (1 - c) * flattening * sinAlpha
                * (sigma + c * sinSigma
                    * (cos2SigmaM + c * cosSigma * (-1 + 2 * cos2SigmaM * cos2SigmaM)))
            guard next.isFinite, abs(next) <= .pi else { return nil }
            if abs(next - lambda) < vincentyTolerance {
                return vincentyLength(
                    cosSquaredAlpha: cosSquaredAlpha, sigma: sigma, sinSigma: sinSigma,
                    cosSigma: cosSigma, cos2SigmaM: cos2SigmaM)
            }
            lambda = next
        }
        return nil
    }

    /// The geodesic distance for pairs where Vincenty's iteration fails: nearly antipodal points.
    ///
    /// Works for every pair, but is slower than ``vincentyInverse(_:_:)`` (about 60 evaluations).
    ///
    /// Instead of iterating on the auxiliary-sphere longitude, which has no unique solution near the
    /// antipode, this solves for the starting azimuth α₁, following Karney, "Algorithms for
    /// geodesics" (J. Geodesy 87, 2013), §4–5. The points are first put in canonical order, which
    /// keeps the distance: east–west and north–south mirroring and swapping the ends give
    /// `β₁ ≤ 0`, `|β₂| ≤ |β₁|` and `0 ≤ L ≤ π`. Then the geodesic leaving point 1 at azimuth
    /// `α₁ ∈ [0, π]` first crosses latitude β₂ northbound at a longitude offset `L(α₁)` that grows
    /// monotonically from 0 to π, so bisection on α₁ always brackets the solution; near the antipode
    /// there may be several geodesics (two for exactly antipodal points on the equator) of equal
    /// length, and bisection finds one of them. `L(α₁)` and the length use Vincenty's own series, so
    /// the fallback has Vincenty's series truncation error: well under 1 mm for the Earth. (Tested: it
    /// agrees with Karney's published 19 989 832.827 61 m for −30°, 0° → 29.9°, 179.8° to 3 µm, and
    /// with Vincenty to about 10 µm wherever Vincenty converges.)
    static func antipodalDistance(_ p1: Point, _ p2: Point) -> Double {
        let f = flattening
        let lambda12 = abs(longitudeDifference(p1, p2))
        var beta1 = atan2((1 - f) * sin(p1.latitude), cos(p1.latitude))
        var beta2 = atan2((1 - f) * sin(p2.latitude), cos(p2.latitude))
        if abs(beta1) < abs(beta2) { swap(&beta1, &beta2) }
        if beta1 > 0 {
            beta1 = -beta1
            beta2 = -beta2
        }
        // On the equator the equator itself is the shortest path until its conjugate point at (1 − f)π.
        if beta1 == 0 && beta2 == 0 && lambda12 <= (1 - f) * .pi {
            return semiMajorAxis * lambda12
        }
        let sinBeta1 = sin(beta1)
        let cosBeta1 = cos(beta1)
        let sinBeta2 = sin(beta2)
        let cosBeta2 = cos(beta2)

        /// Longitude offset L and length s of the geodesic from point 1 at azimuth α₁ to its first
        /// northbound crossing of latitude β₂.
        func solve(azimuth alpha1: Double) -> (longitude: Double, length: Double) {
            let sinAlpha1 = sin(alpha1)
            let cosAlpha1 = cos(alpha1)
            let sinAlpha0 = sinAlpha1 * cosBeta1
            let cosAlpha0 = hypot(cosAlpha1, sinAlpha1 * sinBeta1)
            // Clairaut: sin α₂ cos β₂ = sin α₀. Northbound, so cos α₂ ≥ 0. The radicand is written
            // as a sum of non-negative terms (cos β₂ ≥ cos β₁ in canonical order).
            let cosAlpha2 =
                cosBeta2 > 0
                ? ((cosAlpha1 * cosBeta1) * (cosAlpha1 * cosBeta1)
                    + max(0, (cosBeta2 - cosBeta1) * (cosBeta2 + cosBeta1))).squareRoot() / cosBeta2
                : 1
            let (sinSigma1, cosSigma1) = normalized(sinBeta1, cosAlpha1 * cosBeta1)
            let (sinSigma2, cosSigma2) = normalized(sinBeta2, cosAlpha2 * cosBeta2)
            let (sinOmega1, cosOmega1) = normalized(sinAlpha0 * sinBeta1, cosAlpha1 * cosBeta1)
            let (sinOmega2, cosOmega2) = normalized(sinAlpha0 * sinBeta2, cosAlpha2 * cosBeta2)
            // Differences reduced to 0…π; the clamp removes rounding below 0 at the ends.
            let sinSigma12 = nonNegative(cosSigma1 * sinSigma2 - sinSigma1 * cosSigma2)
            let cosSigma12 = cosSigma1 * cosSigma2 + sinSigma1 * sinSigma2
            let sigma12 = atan2(sinSigma12, cosSigma12)
            let omega12 = atan2(
                nonNegative(cosOmega1 * sinOmega2 - sinOmega1 * cosOmega2),
                cosOmega1 * cosOmega2 + sinOmega1 * sinOmega2)
            let cos2SigmaM = cosSigma1 * cosSigma2 - sinSigma1 * sinSigma2
            let cosSquaredAlpha0 = cosAlpha0 * cosAlpha0
            let longitude = ellipsoidalLongitude(
                omega: omega12, sinAlpha: sinAlpha0, cosSquaredAlpha: cosSquaredAlpha0,
                sigma: sigma12, sinSigma: sinSigma12, cosSigma: cosSigma12, cos2SigmaM: cos2SigmaM)
            let length = vincentyLength(
                cosSquaredAlpha: cosSquaredAlpha0, sigma: sigma12, sinSigma: sinSigma12,
                cosSigma: cosSigma12, cos2SigmaM: cos2SigmaM)
            return (longitude, length)
        }

        // From a pole (cos β₁ is 6e-17 there, not 0) every azimuth is a meridian, and α₁ = 0 heads
        // straight to the other point.
        if cosBeta1 < 1e-15 || lambda12 == 0 { return solve(azimuth: 0).length }
        if lambda12 == .pi { return solve(azimuth: .pi).length }

        var low = 0.0
        var high = Double.pi
        // 2⁻⁶⁰ π ≈ 3e-18 rad, below the resolution of a Double near π; the loop stops earlier
        // once the midpoint can no longer be separated from an end.
        for _ in 0..<100 {
            let middle = (low + high) / 2
            if middle <= low || middle >= high { break }
            if solve(azimuth: middle).longitude < lambda12 { low = middle } else { high = middle }
        }
        return solve(azimuth: (low + high) / 2).length
    }

    /// `x` if positive, else +0. Not `max(0, x)`, which keeps −0, and `atan2(−0, −1)` is −π, not π.
    private static func nonNegative(_ x: Double) -> Double {
        x > 0 ? x : 0
    }

    /// `(s, c)` scaled to unit length; `(0, 1)` for the zero vector, whose angle `atan2` takes as 0.
    private static func normalized(_ s: Double, _ c: Double) -> (Double, Double) {
        let length = hypot(s, c)
        return length > 0 ? (s / length, c / length) : (0, 1)
    }
}

/// The smallest latitude–longitude rectangle that contains a set of fixes.
///
/// Plain minimum and maximum in degrees: a set of fixes that crosses the antimeridian (±180°) gets a
/// box spanning almost the whole globe in longitude rather than a narrow one that wraps around.
///
/// ```swift
/// let box = BoundingBox(fixes)  // nil when `fixes` is empty
/// ```
public struct BoundingBox: Sendable, Equatable, Hashable, Codable {
    /// Southern edge, degrees.
    public var minLatitude: Double
    /// Northern edge, degrees.
    public var maxLatitude: Double
    /// Western edge, degrees.
    public var minLongitude: Double
    /// Eastern edge, degrees.
    public var maxLongitude: Double

    /// A box from its edges, in degrees.
    public init(minLatitude: Double, maxLatitude: Double, minLongitude: Double, maxLongitude: Double) {
        self.minLatitude = minLatitude
        self.maxLatitude = maxLatitude
        self.minLongitude = minLongitude
        self.maxLongitude = maxLongitude
    }

    /// The box around all `fixes` (clean or not), or `nil` if there are none.
    public init?(_ fixes: some Sequence<Fix>) {
        var iterator = fixes.makeIterator()
        guard let first = iterator.next() else { return nil }
        self.init(
            minLatitude: first.latitude, maxLatitude: first.latitude,
            minLongitude: first.longitude, maxLongitude: first.longitude)
        while let fix = iterator.next() {
            minLatitude = min(minLatitude, fix.latitude)
            maxLatitude = max(maxLatitude, fix.latitude)
            minLongitude = min(minLongitude, fix.longitude)
            maxLongitude = max(maxLongitude, fix.longitude)
        }
    }

    /// Whether `fix` lies inside the box or on its edge.
    public func contains(_ fix: Fix) -> Bool {
        // Comparisons rather than ranges: a box built with min > max is empty, not a trap.
        minLatitude <= fix.latitude && fix.latitude <= maxLatitude
            && minLongitude <= fix.longitude && fix.longitude <= maxLongitude
    }
}
