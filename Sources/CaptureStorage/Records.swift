public import CaptureCore

/// One measurement as stored.
public struct MeasurementRecord: Sendable, Equatable, Codable {
    public var id: Int64
    /// One of ``MeasurementState/storedStates``.
    public var status: MeasurementState
    /// The initial modality.
    public var modality: String
    /// Unix ms of LIFECYCLE_START.
    public var startTime: Int64
    /// Unix ms of LIFECYCLE_STOP, `nil` while open.
    public var endTime: Int64?
    public var trackCount: Int
    /// The sources the recorder was started with.
    public var sources: String

    /// The lifecycle state this record stands for.
    public var lifecycleState: Lifecycle.State { status.lifecycleState(tracks: trackCount) ?? .finished(tracks: trackCount) }

    /// Whether the measurement is capturing or paused.
    public var isOpen: Bool { status.isOpen }
}

/// One track of a measurement: from start or a resume to the next pause or stop.
public struct TrackRecord: Sendable, Equatable, Codable {
    public var number: Int
    public var startTime: Int64
    /// `nil` while the track is open.
    public var endTime: Int64?
}

/// How many samples of each kind a measurement (or a track) holds.
public struct SampleCounts: Sendable, Equatable, Codable {
    public var accelerometer: Int = 0
    public var gyroscope: Int = 0
    public var magnetometer: Int = 0
    public var pressure: Int = 0
    public var locations: Int = 0

    public init() {}

    public subscript(sensor: MotionSensor) -> Int {
        get {
            switch sensor {
            case .accelerometer: accelerometer
            case .gyroscope: gyroscope
            case .magnetometer: magnetometer
            }
        }
        set {
            switch sensor {
            case .accelerometer: accelerometer = newValue
            case .gyroscope: gyroscope = newValue
            case .magnetometer: magnetometer = newValue
            }
        }
    }

    public var total: Int { accelerometer + gyroscope + magnetometer + pressure + locations }

    public static func + (left: SampleCounts, right: SampleCounts) -> SampleCounts {
        var sum = left
        for sensor in MotionSensor.allCases { sum[sensor] += right[sensor] }
        sum.pressure += right.pressure
        sum.locations += right.locations
        return sum
    }

    /// What `left` counts beyond `right` (a ride's counts: the recorder's less those at its beginning).
    public static func - (left: SampleCounts, right: SampleCounts) -> SampleCounts {
        var difference = left
        for sensor in MotionSensor.allCases { difference[sensor] -= right[sensor] }
        difference.pressure -= right.pressure
        difference.locations -= right.locations
        return difference
    }
}

/// A stored batch of motion samples (one sensor, one flush).
public struct StoredBatch: Sendable, Equatable {
    public var track: Int
    public var sensor: MotionSensor
    public var firstTime: Int64
    public var lastTime: Int64
    public var count: Int
    /// The encoded batch (a Cyface batch message body).
    public var data: [UInt8]
}
