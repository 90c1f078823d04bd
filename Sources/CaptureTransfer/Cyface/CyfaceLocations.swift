public import CaptureCore

/// Encoding of fixes as the column-oriented `LocationRecords` message (spec §1.2–§1.4).
///
/// Columns: timestamp (Unix ms, `sint64`), latitude and longitude (degrees × 10⁶), accuracy
/// (horizontal, cm; `nil` → 0 like Android) and speed (cm/s; `nil` → 0), all `sint32`, all in delta
/// format with one delta state per column across the whole measurement. Elevations (field 4) are
/// not written, like in every SDK; the decoder reads them if present.
public enum CyfaceLocations {
    /// Encodes `fixes` (in the order given, normally ascending time) as a `LocationRecords` body.
    ///
    /// Memory is proportional to the number of fixes (a few bytes each), which stays small next to
    /// the sensor data even for long measurements.
    ///
    /// - Throws: ``CyfaceError/Kind/valueOutOfRange`` or ``CyfaceError/Kind/notFinite`` when a
    ///   value or a delta cannot be represented; nothing is wrapped.
    public static func encode(_ fixes: some Collection<Fix>) throws(CyfaceError) -> [UInt8] {
        guard !fixes.isEmpty else { return [] }
        var timestamps: [Int64] = []
        var latitudes: [Int32] = []
        var longitudes: [Int32] = []
        var accuracies: [Int32] = []
        var speeds: [Int32] = []
        do {
            timestamps.reserveCapacity(fixes.count)
            latitudes.reserveCapacity(fixes.count)
            longitudes.reserveCapacity(fixes.count)
            accuracies.reserveCapacity(fixes.count)
            speeds.reserveCapacity(fixes.count)
        }
        var previous: (time: Int64, lat: Int64, lon: Int64, acc: Int64, speed: Int64) = (0, 0, 0, 0, 0)
        for (index, fix) in fixes.enumerated() {
            let (dt, overflow) = fix.timestamp.subtractingReportingOverflow(previous.time)
            guard !overflow else {
                throw CyfaceError(.valueOutOfRange, "fix \(index): timestamp delta overflows 64 bits")
            }
            timestamps.append(dt)
            previous.time = fix.timestamp
            latitudes.append(
                try delta(fix.latitude, 1_000_000, &previous.lat, what: "fix \(index) latitude"))
            longitudes.append(
                try delta(fix.longitude, 1_000_000, &previous.lon, what: "fix \(index) longitude"))
            accuracies.append(
                try delta(fix.horizontalAccuracy ?? 0, 100, &previous.acc, what: "fix \(index) accuracy"))
            speeds.append(try delta(fix.speed ?? 0, 100, &previous.speed, what: "fix \(index) speed"))
        }
        var writer = ProtobufWriter(capacity: fixes.count * 16)
        writer.writePackedSInt64(1, timestamps)
        writer.writePackedSInt32(2, latitudes)
        writer.writePackedSInt32(3, longitudes)
        writer.writePackedSInt32(5, accuracies)
        writer.writePackedSInt32(6, speeds)
        return writer.bytes
    }

    private static func delta(_ value: Double, _ factor: Double, _ previous: inout Int64, what: @autoclosure () -> String)
        throws(CyfaceError) -> Int32
    {
        let scaled = try JavaRound.scaledInt32(value, by: factor, what: what())
        let delta = scaled - previous
        guard let narrow = Int32(exactly: delta) else {
            throw CyfaceError(.valueOutOfRange, "\(what()): delta \(scaled) − \(previous) does not fit 32 bits")
        }
        previous = scaled
        return narrow
    }

    /// Decodes a `LocationRecords` body to fixes.
    ///
    /// Accuracy and speed come back in m and m/s (`0` stays `0`: the format cannot tell it from
    /// "unknown"). Elevations, when present, become `altitude` in metres (note: the format's
    /// elevation is above sea level, `Fix.altitude` above the ellipsoid); `is_null` gives `nil` and
    /// the delta continues from the last non-null value.
    ///
    /// - Throws: ``CyfaceError`` with the offset of the problem in the buffer `body` is a slice of.
    public static func decode(_ body: ArraySlice<UInt8>) throws(CyfaceError) -> [Fix] {
        var reader = ProtobufReader(body, context: "LocationRecords")
        var columns: [[UInt64]] = [[], [], [], [], [], []]
        var elevations: [(value: UInt64, isNull: Bool)] = []
        while !reader.isAtEnd {
            let (field, wireType, tagOffset) = try reader.readTag()
            switch field {
            case 1, 2, 3, 5, 6:
                try reader.readRepeatedVarint(
                    field: field, wireType: wireType, tagOffset: tagOffset, into: &columns[field - 1])
            case 4:
                guard wireType == ProtobufWireType.lengthDelimited.rawValue else {
                    throw reader.wrongWireType(field: 4, wireType: wireType, offset: tagOffset, expected: "2")
                }
                elevations.append(try elevation(try reader.readLengthDelimited(field: 4)))
            default:
                try reader.skipField(field: field, wireType: wireType, tagOffset: tagOffset)
            }
        }
        let count = columns[0].count
        let names = ["timestamp", "latitude", "longitude", "elevation", "accuracy", "speed"]
        for column in [1, 2] where columns[column].count != count {
            throw CyfaceError(
                .malformed, offset: body.startIndex,
                "LocationRecords: \(columns[column].count) \(names[column]) values but \(count) timestamps")
        }
        for column in [4, 5] where !columns[column].isEmpty && columns[column].count != count {
            throw CyfaceError(
                .malformed, offset: body.startIndex,
                "LocationRecords: \(columns[column].count) \(names[column]) values but \(count) timestamps")
        }
        guard elevations.isEmpty || elevations.count == count else {
            throw CyfaceError(
                .malformed, offset: body.startIndex,
                "LocationRecords: \(elevations.count) elevations but \(count) timestamps")
        }
        var fixes: [Fix] = []
        fixes.reserveCapacity(count)
        var time: Int64 = 0
        var sums: [Int64] = [0, 0, 0, 0, 0, 0]
        for i in 0..<count {
            let (t, overflow) = time.addingReportingOverflow(ProtobufWriter.unZigZag(columns[0][i]))
            guard !overflow else {
                throw CyfaceError(.valueOutOfRange, offset: body.startIndex, "LocationRecords: timestamp \(i) overflows 64 bits")
            }
            time = t
            for column in [1, 2, 4, 5] where !columns[column].isEmpty {
                sums[column] = try ProtobufReader.accumulateSInt32(
                    sums[column], columns[column][i], context: "LocationRecords", what: "\(names[column]) \(i)",
                    offset: body.startIndex)
            }
            var altitude: Double?
            if !elevations.isEmpty, !elevations[i].isNull {
                sums[3] = try ProtobufReader.accumulateSInt32(
                    sums[3], elevations[i].value, context: "LocationRecords", what: "elevation \(i)",
                    offset: body.startIndex)
                altitude = Double(sums[3]) / 100
            }
            fixes.append(
                Fix(
                    timestamp: time, latitude: Double(sums[1]) / 1_000_000, longitude: Double(sums[2]) / 1_000_000,
                    altitude: altitude,
                    horizontalAccuracy: columns[4].isEmpty ? nil : Double(sums[4]) / 100,
                    speed: columns[5].isEmpty ? nil : Double(sums[5]) / 100))
        }
        return fixes
    }

    private static func elevation(_ bytes: ArraySlice<UInt8>) throws(CyfaceError) -> (value: UInt64, isNull: Bool) {
        var reader = ProtobufReader(bytes, context: "LocationRecords.Elevation")
        var value: UInt64 = 0
        var isNull = false
        while !reader.isAtEnd {
            let (field, wireType, tagOffset) = try reader.readTag()
            switch (field, wireType) {
            case (1, ProtobufWireType.varint.rawValue): value = try reader.readVarint()
            case (2, ProtobufWireType.varint.rawValue): isNull = try reader.readVarint() != 0
            case (1, _), (2, _):
                throw reader.wrongWireType(field: field, wireType: wireType, offset: tagOffset, expected: "0")
            default: try reader.skipField(field: field, wireType: wireType, tagOffset: tagOffset)
            }
        }
        return (value, isNull)
    }
}
