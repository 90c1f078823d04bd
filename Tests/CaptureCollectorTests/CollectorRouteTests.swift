import CaptureCore
import CaptureTransfer
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Testing

@testable import CaptureCollector

/// Where a collector under test keeps its uploads.
enum StorageKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// Files in a temporary data directory (``CollectorStorage``), as the collector runs.
    case files
    /// In memory (``MemoryCollectorStorage``).
    case memory

    var testDescription: String { rawValue }
}

/// A collector in a temporary data directory (removed with the value), or with its storage in
/// memory, its routes called in-process (no port, no process) through HummingbirdTesting's
/// router framework.
final class CollectorUnderTest: Sendable {
    static let token = "route-test-token"
    let directory: String
    let collector: Collector
    /// The storage, when in memory.
    let memory: MemoryCollectorStorage?

    init(
        payloadLimit: Int64? = nil, sessionExpiry: Duration? = nil, storage: StorageKind = .files,
        logger: Logger = Logger(label: "collector-route-tests")
    ) async throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("collector-routes-\(UUID().uuidString)").path
        var configuration = Collector.Configuration(dataDirectory: directory, token: Self.token)
        if let payloadLimit { configuration.payloadLimit = payloadLimit }
        if let sessionExpiry { configuration.sessionExpiry = sessionExpiry }
        switch storage {
        case .files:
            memory = nil
            collector = try await Collector(configuration, logger: logger)
        case .memory:
            let memory = MemoryCollectorStorage()
            self.memory = memory
            collector = try await Collector(configuration, storage: memory, logger: logger)
        }
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    /// Runs `body` against the collector's routes.
    func test(_ body: @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        try await collector.application(host: "127.0.0.1", port: 0) { _ in }.test(.router, body)
    }

    /// The lines of `ranges.log` (what the storage in memory logged).
    var ranges: [String] {
        if let memory { return memory.ranges }
        return ((try? String(contentsOfFile: directory + "/ranges.log", encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// The names in `measurements/` (stored uploads and their metadata).
    var stored: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory + "/measurements")) ?? []).sorted()
    }
}

/// A measurement's §2.3 metadata, every value a string.
func metadata(measurement: Int64 = 7, locationCount: Int = 5, _ changes: [String: String?] = [:]) -> [String: String] {
    var fields = [
        "deviceId": "0b3c2d9e-1111-4a4a-8888-aaaaaaaaaaaa", "measurementId": String(measurement), "deviceType": "x86_64",
        "osVersion": "Linux 6.1", "appVersion": "0.1.0", "length": "12.5", "locationCount": String(locationCount),
        "startLocLat": "51.05", "startLocLon": "13.7", "startLocTS": "1700000000000", "endLocLat": "51.06",
        "endLocLon": "13.71", "endLocTS": "1700000100000", "modality": "BICYCLE", "formatVersion": "3", "logCount": "0",
        "imageCount": "0", "videoCount": "0", "filesSize": "0",
    ]
    for (name, value) in changes { fields[name] = value }
    return fields
}

extension HTTPField.Name {
    static let uploadLength = Self("x-upload-content-length")!
}

/// Requests as the uploader sends them.
extension TestClientProtocol {
    func preRequest(
        total: Int64 = 10, fields: [String: String] = metadata(), token: String? = CollectorUnderTest.token,
        contentType: String = CollectorProtocol.jsonContentType, body: [UInt8]? = nil
    ) async throws -> TestResponse {
        var headers: HTTPFields = [.contentType: contentType, .uploadLength: String(total)]
        if let token { headers[.authorization] = "Bearer \(token)" }
        let json = try body ?? Array(JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys]))
        return try await execute(uri: "/measurements", method: .post, headers: headers, body: ByteBuffer(bytes: json))
    }

    /// The path of the session a pre-request answered with.
    func openSession(total: Int64 = 10, fields: [String: String] = metadata()) async throws -> String {
        let response = try await preRequest(total: total, fields: fields)
        try #require(response.status == .ok)
        return try path(of: #require(response.headers[.location]))
    }

    func put(
        _ path: String, range: String?, body: [UInt8], fields: [String: String] = metadata(),
        token: String = CollectorUnderTest.token, contentType: String = CollectorProtocol.binaryContentType
    ) async throws -> TestResponse {
        var headers: HTTPFields = [.contentType: contentType, .authorization: "Bearer \(token)"]
        if let range { headers[.contentRange] = range }
        for (name, value) in fields { headers[HTTPField.Name(name)!] = value }
        if body.isEmpty { headers[.contentLength] = "0" }
        return try await execute(uri: path, method: .put, headers: headers, body: body.isEmpty ? nil : ByteBuffer(bytes: body))
    }

    func status(_ path: String, total: Int64 = 10, fields: [String: String] = metadata()) async throws -> TestResponse {
        try await put(path, range: "bytes */\(total)", body: [], fields: fields)
    }
}

let bytes: [UInt8] = Array("0123456789".utf8)

/// The path of a `Location`, trailing slash included (Foundation's `URL.path` drops it).
func path(of location: String) throws -> String {
    let start = try #require(location.range(of: "/measurements/"), "\(location)")
    return String(location[start.lowerBound...])
}

@Suite struct PreRequestRouteTests {
    @Test(arguments: StorageKind.allCases) func opensASessionWithALocationToPutTo(storage: StorageKind) async throws {
        try await CollectorUnderTest(storage: storage).test { client async throws in
            let response = try await client.preRequest()
            #expect(response.status == .ok)
            #expect(response.headers[.contentLength] == "0")
            let location = try #require(response.headers[.location])
            #expect(location.hasPrefix("http://localhost/measurements/("), "\(location)")
            let path = try path(of: location)
            #expect(path.hasPrefix("/measurements/(") && path.hasSuffix(")/"), "\(location)")
            let sid = path.dropFirst("/measurements/(".count).dropLast(2)
            #expect(CollectorProtocol.isSessionID(sid), "\(sid)")
        }
    }

    @Test func refusesAMissingOrWrongToken() async throws {
        try await CollectorUnderTest().test { client async throws in
            #expect(try await client.preRequest(token: nil).status == .unauthorized)
            #expect(try await client.preRequest(token: "wrong").status == .unauthorized)
            #expect(try await client.preRequest(token: CollectorUnderTest.token + "x").status == .unauthorized)
        }
    }

    @Test func wantsJSON() async throws {
        try await CollectorUnderTest().test { client async throws in
            #expect(try await client.preRequest(contentType: "text/plain").status == .unsupportedMediaType)
            // Media-type parameters do not matter.
            #expect(try await client.preRequest(contentType: "application/json").status == .ok)
        }
    }

    @Test func refusesAMissingOrOverlongUploadLengthWith422() async throws {
        try await CollectorUnderTest(payloadLimit: 100).test { client async throws in
            let headers: HTTPFields = [
                .contentType: CollectorProtocol.jsonContentType, .authorization: "Bearer \(CollectorUnderTest.token)",
            ]
            let json = try JSONSerialization.data(withJSONObject: metadata())
            let missing = try await client.execute(uri: "/measurements", method: .post, headers: headers, body: ByteBuffer(bytes: json))
            #expect(missing.status == .unprocessableContent)
            let large = try await client.preRequest(total: 101)
            #expect(large.status == .unprocessableContent)
            #expect(String(buffer: large.body).contains("payload too large"))
            #expect(try await client.preRequest(total: 100).status == .ok)
        }
    }

    @Test func refusesABodyOverOneKibibyteWith413() async throws {
        try await CollectorUnderTest().test { client async throws in
            var fields = metadata()
            fields["padding"] = String(repeating: "p", count: CollectorProtocol.maximumPreRequestBody)
            #expect(try await client.preRequest(fields: fields).status == .contentTooLarge)
        }
    }

    @Test(arguments: StorageKind.allCases) func refusesTooFewLocationsWith412AndBadMetadataWith422(storage: StorageKind) async throws {
        try await CollectorUnderTest(storage: storage).test { client async throws in
            let few = try await client.preRequest(fields: metadata(locationCount: 1))
            #expect(few.status == .preconditionFailed)
            #expect(String(buffer: few.body) == CollectorProtocol.tooFewLocations + "\n")
            #expect(try await client.preRequest(fields: metadata(["deviceId": "nope"])).status == .unprocessableContent)
            #expect(try await client.preRequest(fields: metadata(["appVersion": nil])).status == .unprocessableContent)
            #expect(try await client.preRequest(body: Array("[1,2]".utf8)).status == .unprocessableContent)
        }
    }

    @Test func answers409ForAMeasurementAlreadyStored() async throws {
        let collector = try await CollectorUnderTest()
        try await collector.test { client async throws in
            let path = try await client.openSession()
            #expect(try await client.put(path, range: "bytes 0-9/10", body: bytes).status == .created)
            #expect(try await client.preRequest().status == .conflict)
            // Another measurement of the same device is welcome.
            #expect(try await client.preRequest(fields: metadata(measurement: 8)).status == .ok)
        }
        #expect(collector.stored.count == 2, "\(collector.stored)")  // one .ccyf, one .json
    }
}

@Suite struct PutRouteTests {
    @Test func wholeFileInOnePutIsStoredWithItsMetadata() async throws {
        let collector = try await CollectorUnderTest()
        try await collector.test { client async throws in
            let path = try await client.openSession()
            let response = try await client.put(path, range: "bytes 0-9/10", body: bytes)
            #expect(response.status == .created)
            // Asked again, the collector says it has it all.
            #expect(try await client.status(path).status == .ok)
        }
        let names = collector.stored
        try #require(names.count == 2, "\(names)")
        let data = try #require(FileManager.default.contents(atPath: collector.directory + "/measurements/" + names[0]))
        #expect(Array(data) == bytes)
        let json = try #require(FileManager.default.contents(atPath: collector.directory + "/measurements/" + names[1]))
        let object = try #require(try JSONSerialization.jsonObject(with: json) as? [String: String])
        #expect(object["measurementId"] == "7" && object["locationCount"] == "5" && object["size"] == "10")
        // ranges.log: `<sid> <range> <status>`, one line per PUT.
        #expect(collector.ranges.map { $0.split(separator: " ").dropFirst().joined(separator: " ") } == ["0-9/10 201", "*/10 200"])
    }

    /// The same with the storage in memory: the driver has the bytes and the metadata with its size.
    @Test func wholeFileInOnePutIsStoredWithItsMetadataInMemory() async throws {
        let collector = try await CollectorUnderTest(storage: .memory)
        try await collector.test { client async throws in
            let path = try await client.openSession()
            #expect(try await client.put(path, range: "bytes 0-9/10", body: bytes).status == .created)
            #expect(try await client.status(path).status == .ok)
        }
        let uploads = try #require(collector.memory?.uploads)
        try #require(uploads.count == 1, "\(uploads)")
        let upload = try #require(uploads["0b3c2d9e-1111-4a4a-8888-aaaaaaaaaaaa/7"])
        #expect(upload.bytes == bytes)
        #expect(upload.fields["measurementId"] == "7" && upload.fields["locationCount"] == "5" && upload.fields["size"] == "10")
        #expect(collector.ranges.map { $0.split(separator: " ").dropFirst().joined(separator: " ") } == ["0-9/10 201", "*/10 200"])
        // No file was written.
        #expect(!FileManager.default.fileExists(atPath: collector.directory))
    }

    @Test(arguments: StorageKind.allCases) func chunksAreAcknowledgedWithRangeAndResumedWhereTheCollectorStands(storage: StorageKind) async throws {
        try await CollectorUnderTest(storage: storage).test { client async throws in
            let path = try await client.openSession()
            // Nothing yet: 308 without Range.
            let fresh = try await client.status(path)
            #expect(fresh.status.code == 308)
            #expect(fresh.headers[.range] == nil)
            let first = try await client.put(path, range: "bytes 0-3/10", body: Array(bytes[0...3]))
            #expect(first.status.code == 308)
            #expect(first.headers[.range] == "bytes=0-3")
            #expect(try await client.status(path).headers[.range] == "bytes=0-3")
            // A chunk that does not start where the collector stands is not stored.
            let gap = try await client.put(path, range: "bytes 6-9/10", body: Array(bytes[6...9]))
            #expect(gap.status.code == 308)
            #expect(gap.headers[.range] == "bytes=0-3")
            #expect(try await client.put(path, range: "bytes 4-9/10", body: Array(bytes[4...9])).status == .created)
        }
    }

    @Test(arguments: StorageKind.allCases) func restartingFromZeroWithDataThereLosesTheSession(storage: StorageKind) async throws {
        try await CollectorUnderTest(storage: storage).test { client async throws in
            let path = try await client.openSession()
            #expect(try await client.put(path, range: "bytes 0-3/10", body: Array(bytes[0...3])).status.code == 308)
            #expect(try await client.put(path, range: "bytes 0-9/10", body: bytes).status == .notFound)
            #expect(try await client.status(path).status == .notFound)
        }
    }

    @Test(arguments: StorageKind.allCases) func bytesPastZeroWithoutDataAre404(storage: StorageKind) async throws {
        try await CollectorUnderTest(storage: storage).test { client async throws in
            let path = try await client.openSession()
            #expect(try await client.put(path, range: "bytes 4-9/10", body: Array(bytes[4...9])).status == .notFound)
        }
    }

    @Test(arguments: StorageKind.allCases) func unknownMalformedOrExpiredSessionsAre404(storage: StorageKind) async throws {
        try await CollectorUnderTest(sessionExpiry: .milliseconds(50), storage: storage).test { client async throws in
            let unknown = "/measurements/(0123456789abcdefghijklmnopqrstuv)/"
            #expect(try await client.put(unknown, range: "bytes 0-9/10", body: bytes).status == .notFound)
            #expect(try await client.put("/measurements/0123456789abcdefghijklmnopqrstuv/", range: "bytes 0-9/10", body: bytes).status == .notFound)
            #expect(try await client.put("/measurements/(SHOUT)/", range: "bytes 0-9/10", body: bytes).status == .notFound)
            let path = try await client.openSession()
            #expect(try await client.put(String(path.dropLast()), range: "bytes 0-9/10", body: bytes).status == .notFound)
            try await Task.sleep(for: .milliseconds(120))
            #expect(try await client.status(path).status == .notFound)
        }
    }

    @Test(arguments: StorageKind.allCases) func badRequestsAreRefusedWithTheirStatus(storage: StorageKind) async throws {
        try await CollectorUnderTest(storage: storage).test { client async throws in
            let path = try await client.openSession()
            #expect(try await client.put(path, range: "bytes 0-9/10", body: bytes, token: "wrong").status == .unauthorized)
            #expect(
                try await client.put(path, range: "bytes 0-9/10", body: bytes, contentType: "text/plain").status
                    == .unsupportedMediaType)
            // Content-Range missing, malformed, not matching the body or the announced length.
            #expect(try await client.put(path, range: nil, body: bytes).status == .unprocessableContent)
            #expect(try await client.put(path, range: "bytes */*", body: []).status == .unprocessableContent)
            #expect(try await client.put(path, range: "bytes 0-8/10", body: bytes).status == .unprocessableContent)
            #expect(try await client.put(path, range: "bytes 0-9/11", body: bytes).status == .unprocessableContent)
            // An empty PUT must be a status query.
            #expect(try await client.put(path, range: "bytes 0-9/10", body: []).status == .unprocessableContent)
            // Metadata of another measurement, or unparsable metadata.
            let other = metadata(measurement: 8)
            #expect(try await client.put(path, range: "bytes 0-9/10", body: bytes, fields: other).status == .unprocessableContent)
            let bad = metadata(["startLocTS": "1.5E12"])
            #expect(try await client.put(path, range: "bytes 0-9/10", body: bytes, fields: bad).status == .unprocessableContent)
            // None of that cost the session.
            #expect(try await client.put(path, range: "bytes 0-9/10", body: bytes).status == .created)
        }
    }

    @Test(arguments: StorageKind.allCases) func tooFewLocationsOnAPutIs412AndEndsTheSession(storage: StorageKind) async throws {
        try await CollectorUnderTest(storage: storage).test { client async throws in
            let path = try await client.openSession()
            let few = metadata(locationCount: 1)
            #expect(try await client.put(path, range: "bytes 0-9/10", body: bytes, fields: few).status == .preconditionFailed)
            #expect(try await client.status(path).status == .notFound)
        }
    }

    @Test(arguments: StorageKind.allCases) func aPutOverThePayloadLimitIs422AndEndsTheSession(storage: StorageKind) async throws {
        try await CollectorUnderTest(payloadLimit: 10, storage: storage).test { client async throws in
            let path = try await client.openSession()
            let body = bytes + [0x41]
            #expect(try await client.put(path, range: "bytes 0-10/11", body: body).status == .unprocessableContent)
            #expect(try await client.status(path).status == .notFound)
        }
    }
}
