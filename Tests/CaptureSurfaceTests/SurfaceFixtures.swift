import CaptureRecorder
import CaptureStorage
import CaptureTestSupport
import Foundation
import Testing

/// Stores made from traces in temporary data directories, and GDAL's `ogrinfo` as the
/// independent reader of what capture writes.
enum SurfaceFixtures {
    /// A temporary directory, removed with the returned object.
    static func scratch(_ name: String) throws -> Scratch { try Scratch.make(name) }

    /// A store in `directory` with each trace replayed as one measurement, in order.
    static func store(in directory: Scratch, replaying traces: [String]) throws -> Store {
        let store = try Store(directory: directory.path + "/data")
        for trace in traces { _ = try Replay(path: trace).run(into: store) }
        return store
    }

    /// `scripts/make-ride` with `arguments` into `directory`; the trace's path.
    static func makeRide(_ arguments: [String], in directory: Scratch, name: String) throws -> String {
        let path = directory.path + "/" + name
        let result = try Program.run("/usr/bin/env", ["python3", Repository.root + "/scripts/make-ride"] + arguments + ["--out", path])
        #expect(result.status == 0, "make-ride: \(result.stderr)")
        return path
    }

    /// What `ogrinfo -so -al` says of each layer: its geometry type, feature count and whether
    /// its CRS is EPSG:4326.
    struct Layer: Equatable {
        var geometry: String
        var features: Int
        var wgs84: Bool
    }

    static func ogrLayers(_ path: String) throws -> [String: Layer]? {
        guard let ogrinfo = Program.require("ogrinfo", package: "gdal-bin") else { return nil }
        let result = try Program.run(ogrinfo, ["-ro", "-so", "-al", path])
        #expect(result.status == 0, "ogrinfo: \(result.stderr)")
        #expect(!result.stderr.contains("ERROR"), "ogrinfo: \(result.stderr)")
        var layers: [String: Layer] = [:]
        var name: String?
        for line in result.stdout.split(separator: "\n").map(String.init) {
            if line.hasPrefix("Layer name: ") {
                name = String(line.dropFirst("Layer name: ".count))
                layers[name!] = Layer(geometry: "", features: -1, wgs84: false)
            } else if let current = name, line.hasPrefix("Geometry: ") {
                layers[current]?.geometry = String(line.dropFirst("Geometry: ".count))
            } else if let current = name, line.hasPrefix("Feature Count: ") {
                layers[current]?.features = Int(line.dropFirst("Feature Count: ".count)) ?? -1
            } else if let current = name, line.contains("ID[\"EPSG\",4326]") || line.contains("AUTHORITY[\"EPSG\",\"4326\"]") {
                layers[current]?.wgs84 = true
            }
        }
        return layers
    }

    /// The fields of feature `fid` of `layer` as `ogrinfo` prints them (`name (Type) = value`).
    static func ogrFeature(_ path: String, layer: String, fid: Int) throws -> [String: String] {
        guard let ogrinfo = Program.require("ogrinfo", package: "gdal-bin") else { return [:] }
        let result = try Program.run(ogrinfo, ["-ro", "-q", "-fid", "\(fid)", path, layer])
        #expect(result.status == 0, "ogrinfo: \(result.stderr)")
        var fields: [String: String] = [:]
        for line in result.stdout.split(separator: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard let equals = trimmed.range(of: " = "), let paren = trimmed.range(of: " (") else {
                if trimmed.hasPrefix("LINESTRING") || trimmed.hasPrefix("POINT") || trimmed.hasPrefix("POLYGON") {
                    fields["geometry"] = trimmed
                }
                continue
            }
            fields[String(trimmed[..<paren.lowerBound])] = String(trimmed[equals.upperBound...])
        }
        return fields
    }
}
