package import CaptureConfig
import CaptureWeb
import CaptureWiring
import Foundation
import Glibc

extension Doctor {
    /// The page (`capture serve`): its port is free for it or it answers there, and its token
    /// file is for its user alone. Nothing to say on a box where the page was never set up (no
    /// token file, `web.listen` not configured).
    package func page(_ device: DeviceConfiguration) -> [DoctorCheck] {
        guard let web = try? device.web() else { return [] }
        let tokenFile = web.tokenPath(directory: device.dataDirectory.value)
        var info = stat()
        let hasToken = stat(tokenFile, &info) == 0
        guard hasToken || device.origin(of: .webListen) != .builtIn else { return [] }
        if hasToken, info.st_mode & 0o077 != 0 {
            return [.fail("page", "others can read the page's access token \(tokenFile)", advise(.restrictPageToken(tokenFile)))]
        }
        let address = "\(web.host):\(web.port)"
        switch PagePort.probe(host: web.host, port: web.port, timeout: pageTimeout) {
        case .free: return [.pass("page", "\(address) is free for capture serve")]
        case .servedByCapture: return [.pass("page", "capture serve answers on \(address)")]
        case .taken(let reason): return [.fail("page", "capture serve cannot listen on \(address): \(reason)", advise(.choosePagePort))]
        }
    }
}
