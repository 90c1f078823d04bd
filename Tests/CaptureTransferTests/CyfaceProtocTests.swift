import CaptureCore
import CaptureTestSupport
import CaptureTransfer
import CyfaceSchema
import Foundation
import Testing

/// Cross-checks the serialised bytes with the reference protobuf compiler and the .proto file.
@Suite struct CyfaceProtocTests {
    typealias T = CyfaceTestSupport

    /// Decodes `bytes` (a bare Measurement) with `protoc --decode`; records an issue if protoc is
    /// missing rather than skipping.
    private func protocDecode(_ bytes: [UInt8], type: String = "Measurement") throws -> String? {
        guard let protoc = Program.require("protoc", package: "protobuf-compiler") else { return nil }
        let decoded = try Program.run(
            protoc,
            [
                "--decode=de.cyface.protos.model.\(type)", "--proto_path=\(Repository.root)/protos",
                "de/cyface/protos/model/measurement.proto",
            ],
            input: bytes)
        #expect(decoded.status == 0, "protoc --decode failed: \(decoded.stderr)")
        return decoded.stdout
    }

    @Test func protocDecodesTheAndroidVector() throws {
        let bytes = try TransferFileWriter.serialize(T.androidMeasurement)
        guard let text = try protocDecode(Array(bytes.dropFirst(2))) else { return }
        #expect(text.contains("format_version: 3"))
        #expect(text.contains("location_records {"))
        #expect(text.contains("latitude: 1000000"))
        #expect(text.contains("accelerations_binary {"))
        #expect(text.contains("rotations_binary {"))
        #expect(text.contains("directions_binary {"))
        // 21 + 20 + 10 sample timestamps + 3 location timestamps.
        #expect(text.components(separatedBy: "timestamp: ").count - 1 == 54)
        #expect(text.components(separatedBy: "x: 1000").count - 1 == 2)
        #expect(text.components(separatedBy: "x: 100\n").count - 1 == 1)
    }

    @Test func protocDecodesEventsAndTheMeasurementBytesView() throws {
        let measurement = CyfaceMeasurement(
            fixes: [Fix(timestamp: 1_621_582_427_000, latitude: 51.06459, longitude: 13.699045)],
            samples: [.gyroscope: [MotionSample(timestamp: 10, x: -0.25, y: 0, z: 0.5)]],
            events: [Event(timestamp: 1_652_425_925_164, type: .modalityTypeChange, value: "BICYCLE")])
        let bytes = Array(try TransferFileWriter.serialize(measurement).dropFirst(2))
        guard let text = try protocDecode(bytes) else { return }
        #expect(text.contains("type: MODALITY_TYPE_CHANGE"))
        #expect(text.contains("value: \"BICYCLE\""))
        #expect(text.contains("timestamp: 1652425925164"))
        #expect(text.contains("x: -250"))
        #expect(text.contains("z: 500"))
        #expect(text.contains("longitude: 13699045"))
        guard let view = try protocDecode(bytes, type: "MeasurementBytes") else { return }
        #expect(view.contains("rotations_binary: \""))
    }

    @Test func generatedSwiftTypesParseTheWriterOutput() throws {
        let bytes = try TransferFileWriter.serialize(T.androidMeasurement)
        let message = try De_Cyface_Protos_Model_Measurement(serializedBytes: Array(bytes.dropFirst(2)))
        #expect(message.formatVersion == 3)
        #expect(message.locationRecords.timestamp == [1, 0, 0])
        #expect(message.accelerationsBinary.accelerations.first?.x.count == 21)
        #expect(message.directionsBinary.directions.first?.x.first == 100)
        let again: [UInt8] = try message.serializedBytes()
        #expect(again == Array(bytes.dropFirst(2)))
    }
}
