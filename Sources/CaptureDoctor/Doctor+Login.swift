import CaptureConfig
import CaptureWiring
import CaptureCore
import CaptureStorage
import CaptureUpload

extension Doctor {
    /// The device login (`capture login`): fails when it is gone, warns when it ends within
    /// ``CaptureStorage/LoginLifetime/warnBelow`` (7 days) unless refreshed, and when it is no
    /// offline token; nothing without a device login. Runs after the collector check, whose
    /// token may have refreshed it.
    func login(_ device: DeviceConfiguration, now: Int64) -> [DoctorCheck] {
        guard let settings = try? device.oauth(), settings.clientSecretFile == nil,
            let login = LoginLifetime.report(loginFile: settings.loginPath, now: now)
        else { return [] }
        let ends = TextFormat.time(login.expiresAt)
        switch login.health {
        case .gone:
            return [
                .fail(
                    "login", "the login to \(login.issuer) is gone (\(login.goneReason ?? "expired")); the rides wait",
                    advise(.credentials(.logIn)))
            ]
        case .expiring where !login.offline:
            return [
                .warn(
                    "login", "not an offline token: it ends \(ends) unless refreshed, and with its SSO session",
                    advise(.allowOfflineAccess))
            ]
        case .expiring:
            return [.warn("login", "the offline login ends \(ends) unless refreshed", advise(.refreshLogin))]
        case .alive:
            return [.pass("login", "\(login.offline ? "offline login" : "login") to \(login.issuer); ends \(ends) unless refreshed")]
        }
    }
}
