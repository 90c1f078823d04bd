extension FlushLog {
    /// What a record asks of the store besides its flush (a `CFL3` record), applied in order in
    /// the transaction that takes the record (``Store/applyFlushLog(wait:dropping:)``). With
    /// `ride.detect: auto` a ride's begin and end and a move onto GNSS time are such records, so
    /// that a database another process holds keeps them waiting, durable, as it keeps a
    /// command's events, and a power cut at any point leaves them in or out whole.
    public enum Step: Sendable, Equatable {
        /// Creates the record's measurement under its id (reserved beforehand:
        /// ``Store/reserveMeasurementIDs(keeping:patience:)``) before its flush, which starts it;
        /// with `journal`, also records that attachment (the recorder's log) of it.
        case begin(sources: String, journal: String?)
        /// Counts one more ride of this kind (``Store/countRide(_:)``).
        case countRide(RideCount)
        /// Deletes the measurement (a ride that moved less than `ride.min_distance`); its files
        /// are the recorder's to remove.
        case discard
        /// Moves what the measurement holds on the host clock onto GNSS time
        /// (``Store/applyClockCorrection(_:to:motion:)``).
        case moveToGNSSTime(correction: Int64, motion: Bool)
        /// Records a refined correction (``Store/recordClockCorrection(_:of:)``).
        case recordClockCorrection(Int64)
    }

    /// Appends `steps` to a payload: count (u32), then per step its tag (u8) and fields.
    static func encode(_ steps: [Step], into payload: inout Writer) {
        payload.u32(UInt32(steps.count))
        for step in steps {
            switch step {
            case .begin(let sources, let journal):
                payload.bytes.append(1)
                payload.string(sources)
                payload.string(journal)
            case .countRide(let kind):
                payload.bytes.append(2)
                payload.string(kind.rawValue)
            case .discard:
                payload.bytes.append(3)
            case .moveToGNSSTime(let correction, let motion):
                payload.bytes.append(4)
                payload.i64(correction)
                payload.bytes.append(motion ? 1 : 0)
            case .recordClockCorrection(let correction):
                payload.bytes.append(5)
                payload.i64(correction)
            }
        }
    }

    /// The steps ``encode(_:into:)`` wrote, or `nil` for an unknown one.
    static func decodeSteps(_ reader: inout Reader) -> [Step]? {
        var steps: [Step] = []
        for _ in 0..<reader.count(atLeast: 1) {
            switch reader.u8() {
            case 1:
                guard let sources = reader.string() else { return nil }
                steps.append(.begin(sources: sources, journal: reader.string()))
            case 2:
                guard let name = reader.string(), let kind = RideCount(rawValue: name) else { return nil }
                steps.append(.countRide(kind))
            case 3: steps.append(.discard)
            case 4: steps.append(.moveToGNSSTime(correction: reader.i64(), motion: reader.u8() != 0))
            case 5: steps.append(.recordClockCorrection(reader.i64()))
            default: return nil
            }
        }
        return steps
    }
}
