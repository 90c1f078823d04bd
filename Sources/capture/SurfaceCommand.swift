import ArgumentParser
import CaptureCore
import CaptureStorage
import CaptureSurface

struct SurfaceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "surface",
        abstract: "Rate the road surface of measurements: vertical vibration per 10 m window, classes 0 (good) to 3 (bad).",
        discussion: """
            For each measurement with an accelerometer: the vertical acceleration (gravity \
            estimated from the signal, so any fixed mount works; the mount's tilt is reported), \
            cut into windows of equal distance along the GNSS track. Per window: samples, mean \
            and M2 (variances merge exactly across windows and rides), mean speed, start and \
            end, and a class from the standard deviation with thresholds per modality \
            (surface.thresholds). Windows slower than --min-speed, in a privacy zone, or a \
            track's remainder are left out and counted. Classes compare rides of one box on \
            one vehicle, not different vehicles or mounts: docs/surface.md says why.

            -o FILE writes .geojson (a line per window; a polygon per cell with --merge), .csv \
            (a row per window or cell) or .gpkg (a GeoPackage with the layers surface_windows, \
            surface_cells, fixes and tracks, for QGIS). --merge merges every window into cells \
            of a fixed 20 m grid.

            EXAMPLES: capture surface 1 -o ride.gpkg
                      capture surface --all --merge -o map.geojson

            \(ExitStatus.help)
            """)
    @OptionGroup var data: DataDirectoryOptions
    @OptionGroup var format: OutputOptions
    @Argument(help: "Measurement ids (see `capture list`).") var ids: [Int64] = []
    @Flag(help: "Every finished measurement with an accelerometer.") var all = false
    @Flag(help: "Merge the windows into cells of a 20 m grid.") var merge = false
    @Option(help: ArgumentHelp("Window length in metres.", valueName: "metres")) var window = SurfaceOptions.defaultWindow
    @Option(help: ArgumentHelp("Slowest mean speed of a window kept, m/s.", valueName: "m/s"))
    var minSpeed = SurfaceOptions.defaultMinimumSpeed
    @Option(name: .shortAndLong, help: ArgumentHelp("The file to write: .geojson, .csv or .gpkg.", valueName: "path"))
    var output: String?

    func validate() throws {
        guard ids.isEmpty != !all else { throw ValidationError("give measurement ids, or --all") }
        guard window >= 1, window <= 1000 else { throw ValidationError("--window must be 1 to 1000 metres") }
        guard minSpeed >= 0 else { throw ValidationError("--min-speed must be 0 or more") }
    }

    func run() throws {
        let device = try data.device()
        guard let store = try data.existingStore() else { throw StoreError.measurementNotFound(ids.first ?? 1) }
        let options = SurfaceOptions(
            window: window, minimumSpeed: minSpeed, thresholds: try device.surfaceThresholds(), privacyZones: device.privacyZones.value)
        let result = try Surface.run(all ? .all : .measurements(ids), merge: merge, in: store, options: options, output: output)
        if format.json { try printJSON(result) } else { print(result.text) }
    }
}
