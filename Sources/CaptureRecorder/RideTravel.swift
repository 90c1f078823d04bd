package import CaptureCore

/// How far a ride has come along its fixes, across every interruption: what `ride.min_distance`
/// judges and `capture status` shows. A recorder that continues a ride after a power cut starts
/// from the ride's committed fixes (``Recovery/interrupted(store:after:)``), so that the ride's
/// end judges the whole ride, never only the part after the last boot.
///
/// ```swift
/// var travel = RideTravel()
/// for fix in fixes { travel.pass(fix) }
/// travel.metres  // the geodesic way from the first fix to the last, metres
/// ```
package struct RideTravel: Sendable, Equatable {
    /// Metres along the fixes, summed from one to the next (unrounded; no fix is left out).
    package var metres: Double = 0
    /// The last fix passed: the next step starts there.
    package var last: Fix?

    package init(metres: Double = 0, last: Fix? = nil) {
        self.metres = metres
        self.last = last
    }

    /// Adds the way from the last fix to `fix`.
    package mutating func pass(_ fix: Fix) {
        if let last {
            let step = Geodesy.distance(
                from: (latitude: last.latitude, longitude: last.longitude), to: (latitude: fix.latitude, longitude: fix.longitude))
            if step.isFinite { metres += step }
        }
        last = fix
    }

    /// Adds the way along `fixes`, in order.
    package mutating func pass(_ fixes: some Sequence<Fix>) {
        for fix in fixes { pass(fix) }
    }
}
