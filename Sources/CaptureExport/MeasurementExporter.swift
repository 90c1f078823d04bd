package import CaptureCore
package import CaptureStorage

/// One export format of a stored measurement: GPX, GeoJSON, CSV, the Cyface transfer file.
///
/// A new format is one new file with a type conforming to this protocol (``DocumentExporter``
/// for a format of one document) plus one line in ``ExporterRegistry/standard``. An exporter reads what it needs from the store and writes it
/// through an ``OutputSink``, so a file appears whole (atomically) or not at all.
///
/// ```swift
/// let exporter = ExporterRegistry.standard.exporter(named: "gpx")!
/// try exporter.export(7, from: store, options: ExportOptions(dataDirectory: dir), to: .file("ride.gpx"))
/// ```
package protocol MeasurementExporter: Sendable {
    /// The format's name as `capture export --format` spells it (`gpx`).
    var name: String { get }

    /// What the format holds, a paragraph of `capture export --help` (the CLI lists every
    /// registered format with it, so a new format documents itself there).
    var summary: String { get }

    /// Whether ``ExportOptions/clean`` applies: by default `true`; a format that carries every
    /// fix (the Cyface transfer file) says `false`.
    var filtersFixes: Bool { get }

    /// Writes measurement `id` of `store` to `destination`.
    ///
    /// The measurement is looked up before any output is opened, so an unknown id leaves no file.
    /// One rule for every format: only a finished measurement is exported; an open one (being
    /// recorded, paused or interrupted) is refused with ``ExportError/transfer(_:)``
    /// (``CaptureStorage/TransferError/notFinished(_:)``) and nothing is written, since what it
    /// holds is still moving from the recorder's flush log into the store
    /// (``finishedRecord(_:in:)``).
    ///
    /// - Throws: ``ExportError``; a file destination is then left as it was.
    func export(_ id: Int64, from store: Store, options: ExportOptions, to destination: ExportDestination) throws(ExportError)
}

/// A format that writes one document per measurement (GPX, GeoJSON): its ``export(_:from:options:to:)``
/// looks the measurement up before any output is opened, then has ``write(_:from:options:to:)``
/// write the document into the destination's sink.
package protocol DocumentExporter: MeasurementExporter {
    /// Writes the document of `record` (anything thrown becomes an ``ExportError``).
    func write(_ record: MeasurementRecord, from store: Store, options: ExportOptions, to sink: OutputSink) throws
}

extension MeasurementExporter {
    /// `true`: ``ExportOptions/clean`` applies.
    package var filtersFixes: Bool { true }
}

extension MeasurementExporter {
    /// Measurement `id`, if it is finished: the one check every exporter makes before it opens
    /// any output.
    ///
    /// - Throws: ``ExportError/store(_:)`` for an unknown id, ``ExportError/transfer(_:)``
    ///   (``CaptureStorage/TransferError/notFinished(_:)``) for an open measurement.
    package func finishedRecord(_ id: Int64, in store: Store) throws(ExportError) -> MeasurementRecord {
        let record = try exporting { try store.measurement(id) }
        guard !record.isOpen else { throw .transfer(.notFinished(id)) }
        return record
    }
}

extension DocumentExporter {
    package func export(
        _ id: Int64, from store: Store, options: ExportOptions, to destination: ExportDestination
    ) throws(ExportError) {
        let record = try finishedRecord(id, in: store)
        try OutputSink.writing(to: destination) { try write(record, from: store, options: options, to: $0) }
    }
}

/// How to export: the choices that are not the format itself.
package struct ExportOptions: Sendable, Equatable {
    /// The data directory the store lives in (the Cyface exporter caches transfer files there).
    package var dataDirectory: String
    /// Keep only clean fixes (``LocationCleaning/isClean(_:)``), for formats that ``MeasurementExporter/filtersFixes``.
    package var clean: Bool
    /// CSV to standard output: which table (`nil`: locations). Other formats ignore it.
    package var table: CSVTable?
    /// `privacy.zones`: what they hide (``PrivacyFilter``) is left out of every format.
    package var privacyZones: [PrivacyZone]

    /// Options for a measurement in `dataDirectory`.
    package init(dataDirectory: String, clean: Bool = false, table: CSVTable? = nil, privacyZones: [PrivacyZone] = []) {
        self.dataDirectory = dataDirectory
        self.clean = clean
        self.table = table
        self.privacyZones = privacyZones
    }

    /// What the privacy zones hide of measurement `id`.
    func privacy(of id: Int64, in store: Store) throws -> PrivacyFilter {
        privacyZones.isEmpty ? .none : PrivacyFilter(zones: privacyZones, fixes: try store.fixes(of: id))
    }

    /// The rider's markers of measurement `id` (``Store/markers(of:)``) that `privacy` leaves: none
    /// in a hidden stretch of time or placed inside a zone.
    func markers(of id: Int64, in store: Store, _ privacy: PrivacyFilter) -> [Marker] {
        store.markers(of: id).filter { marker in
            guard !privacy.hides(time: marker.time) else { return false }
            guard let latitude = marker.latitude, let longitude = marker.longitude else { return true }
            return !privacy.hides(Fix(timestamp: marker.time, latitude: latitude, longitude: longitude))
        }
    }

    /// `fixes` without those `privacy` hides, and only the clean ones with ``clean``.
    func kept(_ fixes: [Fix], _ privacy: PrivacyFilter) -> [Fix] {
        fixes.filter { keeps($0, privacy) }
    }

    /// Whether `fix` is exported: `privacy` does not hide it, and it is clean with ``clean``.
    func keeps(_ fix: Fix, _ privacy: PrivacyFilter) -> Bool {
        !privacy.hides(fix) && (!clean || LocationCleaning.isClean(fix))
    }
}

/// Where an export goes.
package enum ExportDestination: Sendable, Equatable {
    /// Standard output.
    case standardOutput
    /// A file written atomically; for a format of several files (CSV), a directory (created if
    /// needed) that receives all of them.
    case file(String)

    /// `nil` or `-` is standard output, anything else a path.
    package init(path: String?) {
        if let path, path != "-" { self = .file(path) } else { self = .standardOutput }
    }

    /// `wrote PATH` once a file was written (as `capture surface -o` says); `nil` for standard
    /// output, which holds the result itself.
    package var writtenLine: String? {
        if case .file(let path) = self { "wrote \(path)" } else { nil }
    }
}
