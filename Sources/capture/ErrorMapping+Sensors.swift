import CaptureSensors

extension SourceError: CLIAdvised {
    var cliMessage: String {
        switch self {
        case .unknownKind(_, let syntaxes):
            "\(description); use " + (syntaxes.count > 1 ? syntaxes.dropLast().joined(separator: ", ") + " or " : "")
                + (syntaxes.last ?? "--source KIND:ARGUMENT")
        case .malformed(let spec, let syntax): "bad source '\(spec)'; use \(syntax)"
        case .badAddress: "\(description); use gpsd:HOST:PORT"
        case .badRate: "\(description); use iio:iio:deviceN@HZ"
        case .nothingFound: "\(description); use --source"
        case .trace, .notADeviceDirectory, .noDevice, .notUseful, .unreadableDevice, .noReceiver: description
        }
    }
}
