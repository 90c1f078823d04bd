package import CaptureCore

/// `web.*`: where `capture serve` listens and the file holding the box's access token.
package struct WebSettings: Sendable, Equatable, Codable {
    /// The address to listen on (`web.listen`'s host; `0.0.0.0`: every address of the box).
    package var host: String
    /// The port (`web.listen`'s port; 0 picks a free one, which `capture serve` prints).
    package var port: Int
    /// The access token's file (`web.token_file`); nil: `<data dir>/web.token`.
    package var tokenFile: String?

    package init(host: String = "0.0.0.0", port: Int = 8080, tokenFile: String? = nil) {
        (self.host, self.port, self.tokenFile) = (host, port, tokenFile)
    }

    /// Reads `web.*` from `settings` (scoped to `web`).
    package init(reading settings: some SettingsReader) throws(SettingsError) {
        let listen = try settings.text("listen") ?? "0.0.0.0:8080"
        guard let (host, port) = Self.address(listen) else { throw settings.invalid("listen", found: listen) }
        self.init(host: host, port: port, tokenFile: try settings.text("token_file"))
    }

    /// `HOST:PORT`, `[IPv6]:PORT` or `:PORT` (every address) as a host and a port from 0 to 65535;
    /// nil for anything else.
    package static func address(_ text: String) -> (host: String, port: Int)? {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
            (0...65535).contains(port)
        else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host.isEmpty { host = "0.0.0.0" }
        guard !host.contains(where: { $0 == " " || $0 == "/" }) else { return nil }
        return (host, port)
    }

    /// The token file for the data directory `directory`.
    package func tokenPath(directory: String) -> String { tokenFile ?? directory + "/web.token" }
}
