import CaptureCollector
import CaptureCore
import CaptureTransfer
import CaptureStorage
import CaptureUpload
import Foundation
import Testing

@Suite struct MetadataTests {
    let start = Fix(timestamp: 1_700_000_000_123, latitude: 51.05220494330958, longitude: 13.7, altitude: nil,
        horizontalAccuracy: 5, verticalAccuracy: nil, speed: 3, course: nil)
    let end = Fix(timestamp: 1_700_000_100_000, latitude: 51.06, longitude: 13.71, altitude: nil,
        horizontalAccuracy: 5, verticalAccuracy: nil, speed: 3, course: nil)

    func metadata(count: Int = 42, machine: UploadMetadata.Machine = .init(deviceType: "x86_64", osVersion: "Linux 6.1"))
        -> UploadMetadata
    {
        UploadMetadata(
            deviceID: "0B3C2D9E-1111-4A4A-8888-AAAAAAAAAAAA", measurementID: 7, machine: machine, appVersion: "0.1.0",
            length: 1234.5, locationCount: count, start: start, end: end, modality: "BICYCLE")
    }

    @Test func everyFieldIsAStringInProtocolOrder() throws {
        let m = metadata()
        #expect(m.fields.map(\.name) == CollectorProtocol.metadataFields)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(m.json)) as? [String: Any])
        #expect(object.count == CollectorProtocol.metadataFields.count)
        #expect(object.values.allSatisfy { $0 is String })
        #expect(m["deviceId"] == "0b3c2d9e-1111-4a4a-8888-aaaaaaaaaaaa")
        #expect(m["measurementId"] == "7")
        #expect(m["startLocLat"] == "51.05220494330958")
        #expect(m["startLocTS"] == "1700000000123")
        #expect(m["endLocTS"] == "1700000100000")
        #expect(m["length"] == "1234.5")
        #expect(m["formatVersion"] == "3")
        #expect(m["logCount"] == "0" && m["imageCount"] == "0" && m["videoCount"] == "0" && m["filesSize"] == "0")
        #expect(m.json.count <= CollectorProtocol.maximumPreRequestBody)
    }

    @Test func longMachineNamesAreCutTo30() {
        let m = metadata(machine: .init(deviceType: String(repeating: "d", count: 40), osVersion: "Linux " + String(repeating: "9", count: 40)))
        #expect(m["deviceType"]?.count == 30)
        #expect(m["osVersion"]?.count == 30)
        #expect(UploadMetadata.Machine.current.deviceType.isEmpty == false)
    }

    @Test func theCollectorAcceptsWhatTheUploaderSends() throws {
        let m = metadata()
        let parsed = try CollectorMetadata.parse(json: m.json)
        #expect(parsed.deviceID == "0b3c2d9e-1111-4a4a-8888-aaaaaaaaaaaa")
        #expect(parsed.measurementID == 7)
        let fromHeaders = try CollectorMetadata.parse { m[$0] }
        #expect(fromHeaders == parsed)
    }

    @Test func theCollectorRefusesTooFewLocationsWith412() {
        #expect(throws: CollectorMetadata.Problem.notInterested(CollectorProtocol.tooFewLocations)) {
            try CollectorMetadata.parse(json: metadata(count: 1).json)
        }
    }

    @Test func theCollectorRefusesBadValuesWith422() {
        let m = metadata()
        for (name, value) in [("deviceId", "nope"), ("measurementId", "1.5"), ("startLocTS", "1.5E12"), ("length", "-1"),
            ("deviceType", ""), ("modality", String(repeating: "M", count: 31)), ("formatVersion", "4")]
        {
            #expect(throws: CollectorMetadata.Problem.self) {
                try CollectorMetadata.parse { $0 == name ? value : m[$0] }
            }
            let problem = try? CollectorMetadata.parse { $0 == name ? value : m[$0] }
            #expect(problem == nil)
        }
        do {
            _ = try CollectorMetadata.parse { $0 == "appVersion" ? nil : m[$0] }
            Issue.record("missing appVersion accepted")
        } catch {
            #expect(error.status == 422)
        }
    }

    @Test func storeMetadataSkipsTooFewLocations() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("upload-meta-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try Store(directory: directory, durability: .relaxed)
        var flush = Flush(track: 1, state: .capturing(track: 1), modality: .bicycle)
        flush.events = [Event(timestamp: 1000, type: .lifecycleStart, value: nil),
            Event(timestamp: 1000, type: .modalityTypeChange, value: "BICYCLE")]
        flush.fixes = [start]
        let id = try store.begin(flush, sources: "")
        #expect(try UploadMetadata(store: store, measurement: id, appVersion: "1") == nil)
    }
}

@Suite struct UploadRecordTests {
    @Test func uploadStateIsStoredAndUpdated() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("upload-state-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try Store(directory: directory, durability: .relaxed)
        var flush = Flush(track: 1, state: .capturing(track: 1), modality: .bicycle)
        flush.events = [Event(timestamp: 1000, type: .lifecycleStart, value: nil),
            Event(timestamp: 1000, type: .modalityTypeChange, value: "BICYCLE")]
        let id = try store.begin(flush, sources: "")
        #expect(try store.upload(of: id).status == .pending)
        try store.beginUpload(of: id, sessionURL: nil, totalLength: 100, sha256: "ab")
        try store.beginUpload(of: id, sessionURL: "http://x/(s)/", totalLength: 100, sha256: "ab")
        try store.acknowledgeUpload(of: id, bytes: 40)
        var record = try store.upload(of: id)
        #expect(record.status == .uploading && record.sessionURL == "http://x/(s)/" && record.acknowledged == 40)
        #expect(record.totalLength == 100)
        try store.finishUpload(of: id, status: .uploaded)
        record = try store.upload(of: id)
        #expect(record.status == .uploaded && record.sessionURL == nil && record.acknowledged == 100)
        #expect(record.uploadedAt != nil)
        try store.delete(id)
        #expect(try store.uploads().isEmpty)
    }

    @Test func aHashLearntDuringTheUploadFillsOnlyAMissingOne() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("upload-hash-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try Store(directory: directory, durability: .relaxed)
        var flush = Flush(track: 1, state: .capturing(track: 1), modality: .bicycle)
        flush.events = [Event(timestamp: 1000, type: .lifecycleStart, value: nil)]
        let id = try store.begin(flush, sources: "")
        // Begun without a hash (a file given as it is, hashed beside its upload).
        try store.beginUpload(of: id, sessionURL: "http://x/(s)/", totalLength: 100, sha256: nil)
        #expect(try store.upload(of: id).fileSHA256 == nil)
        // Another length is another file: left alone.
        try store.recordUploadHash(of: id, sha256: "ab", totalLength: 99)
        #expect(try store.upload(of: id).fileSHA256 == nil)
        try store.recordUploadHash(of: id, sha256: "ab", totalLength: 100)
        #expect(try store.upload(of: id).fileSHA256 == "ab")
        // A hash already there stays.
        try store.recordUploadHash(of: id, sha256: "cd", totalLength: 100)
        let record = try store.upload(of: id)
        #expect(record.fileSHA256 == "ab" && record.sessionURL == "http://x/(s)/" && record.status == .uploading)
    }
}
