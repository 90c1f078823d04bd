import CaptureStorage
import Foundation
import GRDB

/// An OGC GeoPackage (version 1.3): an SQLite file that QGIS, GDAL and ArcGIS open as a set of
/// vector layers. Written through the GRDB the store already uses, so no new dependency.
///
/// What the standard requires and this writes (OGC 12-128r18): `application_id` 'GPKG' and
/// `user_version` 10300; `gpkg_spatial_ref_sys` with its three mandatory rows (EPSG:4326 and
/// the undefined Cartesian and geographic systems); `gpkg_contents`, one row per layer with its
/// extent; `gpkg_geometry_columns`, one row per layer; and each feature table with an integer
/// primary key `fid` and a geometry column `geom` whose blobs are the GeoPackage binary header
/// (magic `GP`, version 0, flags, SRS id, envelope) followed by little-endian WKB.
///
/// The file appears whole or not at all: it is written as a temporary file beside the path
/// (``AtomicFile``, mode 0600) and renamed into place by ``write(to:_:)`` only when `body`
/// returns.
///
/// ```swift
/// try GeoPackage.write(to: "ride.gpkg") { gpkg in
///     let fixes = try gpkg.layer("fixes", .point, columns: [("ts", .integer)])
///     try gpkg.insert(into: fixes, .point(longitude: 13.73, latitude: 51.05), [.integer(1_781_424_000_000)])
/// }
/// ```
package struct GeoPackage {
    /// The geometry type of a layer (WKB type codes 1, 2, 3).
    package enum GeometryType: String, Sendable {
        case point = "POINT", lineString = "LINESTRING", polygon = "POLYGON"
    }

    /// The SQLite type of an attribute column.
    package enum ColumnType: String, Sendable {
        case integer = "INTEGER", real = "DOUBLE", text = "TEXT"
        /// ISO 8601 UTC text (`2026-06-14T08:00:00.000Z`), which readers show as a date and time.
        case dateTime = "DATETIME"
    }

    /// An attribute value.
    package enum Value: Sendable, Equatable {
        case integer(Int64), real(Double), text(String), null

        var database: DatabaseValue {
            switch self {
            case .integer(let value): value.databaseValue
            case .real(let value): value.isFinite ? value.databaseValue : .null
            case .text(let value): value.databaseValue
            case .null: .null
            }
        }
    }

    /// A geometry in WGS 84 degrees (x = longitude, y = latitude).
    package enum Geometry: Sendable, Equatable {
        case point(longitude: Double, latitude: Double)
        /// At least two points.
        case lineString([(longitude: Double, latitude: Double)])
        /// One outer ring, closed (the first point repeated at the end).
        case polygon([(longitude: Double, latitude: Double)])

        package static func == (lhs: Geometry, rhs: Geometry) -> Bool { lhs.blob() == rhs.blob() }
    }

    /// A layer made by ``layer(_:_:columns:)``.
    package struct Layer: Sendable {
        package let name: String
        let insertSQL: String
    }

    /// The EPSG:4326 definition (OGC WKT 1, as the EPSG registry gives it).
    static let wgs84 = """
        GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563,AUTHORITY["EPSG","7030"]],\
        AUTHORITY["EPSG","6326"]],PRIMEM["Greenwich",0,AUTHORITY["EPSG","8901"]],\
        UNIT["degree",0.0174532925199433,AUTHORITY["EPSG","9122"]],AUTHORITY["EPSG","4326"]]
        """
    /// 'GPKG' as a 32-bit integer: the SQLite header's application id of a GeoPackage.
    static let applicationID: Int32 = 0x4750_4B47

    private let db: Database
    private var extents: [String: (minX: Double, minY: Double, maxX: Double, maxY: Double)] = [:]

    private init(_ db: Database) { self.db = db }

    /// Writes a GeoPackage at `path` with `body`: on success the file is in place, on any
    /// failure nothing is left there (an existing file is untouched).
    package static func write(to path: String, _ body: (inout GeoPackage) throws -> Void) throws(ExportError) {
        let file: AtomicFile
        do {
            file = try AtomicFile(path: path)
        } catch {
            throw ExportError(error)
        }
        do {
            var configuration = Configuration()
            configuration.label = "geopackage"
            let queue = try DatabaseQueue(path: file.temporaryPath, configuration: configuration)
            try queue.writeWithoutTransaction { db in
                // A temporary file that is renamed only when complete needs no journal; the
                // rename after AtomicFile's fsync is the commit.
                try db.execute(sql: "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF")
                try db.execute(sql: "PRAGMA application_id = \(applicationID); PRAGMA user_version = 10300")
                try db.inTransaction {
                    var gpkg = GeoPackage(db)
                    try gpkg.createCoreTables()
                    try body(&gpkg)
                    try gpkg.recordExtents()
                    return .commit
                }
            }
            try queue.close()
            try file.commit()
        } catch {
            file.discard()
            throw ExportError(error)
        }
    }

    private func createCoreTables() throws {
        try db.execute(
            sql: """
                CREATE TABLE gpkg_spatial_ref_sys (
                    srs_name TEXT NOT NULL, srs_id INTEGER NOT NULL PRIMARY KEY, organization TEXT NOT NULL,
                    organization_coordsys_id INTEGER NOT NULL, definition TEXT NOT NULL, description TEXT);
                CREATE TABLE gpkg_contents (
                    table_name TEXT NOT NULL PRIMARY KEY, data_type TEXT NOT NULL, identifier TEXT UNIQUE,
                    description TEXT DEFAULT '',
                    last_change DATETIME NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
                    min_x DOUBLE, min_y DOUBLE, max_x DOUBLE, max_y DOUBLE, srs_id INTEGER,
                    CONSTRAINT fk_gc_r_srs_id FOREIGN KEY (srs_id) REFERENCES gpkg_spatial_ref_sys(srs_id));
                CREATE TABLE gpkg_geometry_columns (
                    table_name TEXT NOT NULL, column_name TEXT NOT NULL, geometry_type_name TEXT NOT NULL,
                    srs_id INTEGER NOT NULL, z TINYINT NOT NULL, m TINYINT NOT NULL,
                    CONSTRAINT pk_geom_cols PRIMARY KEY (table_name, column_name),
                    CONSTRAINT uk_gc_table_name UNIQUE (table_name),
                    CONSTRAINT fk_gc_tn FOREIGN KEY (table_name) REFERENCES gpkg_contents(table_name),
                    CONSTRAINT fk_gc_srs FOREIGN KEY (srs_id) REFERENCES gpkg_spatial_ref_sys (srs_id));
                """)
        try db.execute(
            sql: """
                INSERT INTO gpkg_spatial_ref_sys VALUES
                    ('Undefined cartesian SRS', -1, 'NONE', -1, 'undefined', 'undefined cartesian coordinate reference system'),
                    ('Undefined geographic SRS', 0, 'NONE', 0, 'undefined', 'undefined geographic coordinate reference system'),
                    ('WGS 84 geodetic', 4326, 'EPSG', 4326, ?, 'longitude/latitude coordinates in decimal degrees on the WGS 84 spheroid')
                """, arguments: [Self.wgs84])
    }

    /// Adds a feature layer: a table `name` with `fid`, `geom` and `columns`, registered in
    /// `gpkg_contents` and `gpkg_geometry_columns` (EPSG:4326, no z, no m).
    package mutating func layer(
        _ name: String, _ type: GeometryType, columns: [(name: String, type: ColumnType)], description: String = ""
    ) throws -> Layer {
        let definitions = columns.map { "\"\($0.name)\" \($0.type.rawValue)" }
        try db.execute(
            sql: """
                CREATE TABLE "\(name)" (fid INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, geom \(type.rawValue)\
                \(definitions.isEmpty ? "" : ", " + definitions.joined(separator: ", ")))
                """)
        try db.execute(
            sql: "INSERT INTO gpkg_contents (table_name, data_type, identifier, description, srs_id) VALUES (?, 'features', ?, ?, 4326)",
            arguments: [name, name, description])
        try db.execute(
            sql: "INSERT INTO gpkg_geometry_columns VALUES (?, 'geom', ?, 4326, 0, 0)", arguments: [name, type.rawValue])
        let names = (["geom"] + columns.map(\.name)).map { "\"\($0)\"" }.joined(separator: ", ")
        let marks = Array(repeating: "?", count: columns.count + 1).joined(separator: ", ")
        return Layer(name: name, insertSQL: "INSERT INTO \"\(name)\" (\(names)) VALUES (\(marks))")
    }

    /// Adds one feature: its geometry (`nil`: none) and its attribute values in the layer's
    /// column order.
    package mutating func insert(into layer: Layer, _ geometry: Geometry?, _ values: [Value]) throws {
        let statement = try db.cachedStatement(sql: layer.insertSQL)
        var arguments = StatementArguments()
        if let geometry {
            _ = arguments.append(contentsOf: [Data(geometry.blob())])
            let box = geometry.envelope
            if let old = extents[layer.name] {
                extents[layer.name] = (min(old.minX, box.minX), min(old.minY, box.minY), max(old.maxX, box.maxX), max(old.maxY, box.maxY))
            } else {
                extents[layer.name] = box
            }
        } else {
            _ = arguments.append(contentsOf: [DatabaseValue.null])
        }
        _ = arguments.append(contentsOf: StatementArguments(values.map(\.database)))
        try statement.execute(arguments: arguments)
    }

    /// The layers' extents into `gpkg_contents`, as readers use them for a first view.
    private func recordExtents() throws {
        for (name, box) in extents {
            try db.execute(
                sql: "UPDATE gpkg_contents SET min_x = ?, min_y = ?, max_x = ?, max_y = ? WHERE table_name = ?",
                arguments: [box.minX, box.minY, box.maxX, box.maxY, name])
        }
    }
}

extension GeoPackage.Geometry {
    var points: [(longitude: Double, latitude: Double)] {
        switch self {
        case .point(let longitude, let latitude): [(longitude, latitude)]
        case .lineString(let points), .polygon(let points): points
        }
    }

    var envelope: (minX: Double, minY: Double, maxX: Double, maxY: Double) {
        var box = (minX: Double.infinity, minY: Double.infinity, maxX: -Double.infinity, maxY: -Double.infinity)
        for point in points {
            box = (
                min(box.minX, point.longitude), min(box.minY, point.latitude), max(box.maxX, point.longitude),
                max(box.maxY, point.latitude)
            )
        }
        return box
    }

    /// The GeoPackage binary: header (`GP`, version 0, flags: little endian and, except for a
    /// point, the [minx, maxx, miny, maxy] envelope; SRS id 4326), then little-endian WKB.
    func blob() -> [UInt8] {
        var bytes: [UInt8] = [0x47, 0x50, 0]
        func int32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) } }
        func double(_ value: Double) { withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes.append(contentsOf: $0) } }
        let isPoint = if case .point = self { true } else { false }
        bytes.append(isPoint ? 0b0000_0001 : 0b0000_0011)
        int32(4326)
        if !isPoint {
            let box = envelope
            double(box.minX)
            double(box.maxX)
            double(box.minY)
            double(box.maxY)
        }
        bytes.append(1)  // WKB little endian
        switch self {
        case .point(let longitude, let latitude):
            int32(1)
            double(longitude)
            double(latitude)
        case .lineString(let points):
            int32(2)
            int32(UInt32(points.count))
            for point in points {
                double(point.longitude)
                double(point.latitude)
            }
        case .polygon(let ring):
            int32(3)
            int32(1)
            int32(UInt32(ring.count))
            for point in ring {
                double(point.longitude)
                double(point.latitude)
            }
        }
        return bytes
    }
}
