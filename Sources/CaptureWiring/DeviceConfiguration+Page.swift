package import CaptureConfig
import CaptureSurface
package import CaptureWeb
package import Logging

extension DeviceConfiguration {
    /// `capture serve`'s page for this configuration: its server over the data directory, where
    /// it listens, and the access token's file and token (made at the first call).
    package func page(logger: Logger) throws -> (server: PageServer, settings: WebSettings, tokenFile: String, token: AccessToken) {
        let settings = try web()
        let directory = dataDirectory.value
        let tokenFile = settings.tokenPath(directory: directory)
        let token = try AccessToken.loadOrCreate(at: tokenFile)
        let box = Box(
            directory: directory, budget: try retention().maxStoreSize,
            surface: SurfaceOptions(thresholds: try surfaceThresholds(), privacyZones: privacyZones.value))
        return (PageServer(box: box, token: token, logger: logger), settings, tokenFile, token)
    }
}
