package import CaptureCore

extension AccessToken.Failure: KindedError, CustomStringConvertible {
    package var faultKind: FaultKind {
        switch self {
        case .unusable: .io
        case .tooShort: .configuration
        }
    }

    package var description: String {
        switch self {
        case .unusable(let path, let reason): "cannot read or make the page's access token \(path): \(reason)"
        case .tooShort(let path): "\(path) holds no access token (16 characters at least); remove it and a new one is made"
        }
    }
}
