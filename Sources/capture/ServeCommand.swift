import ArgumentParser
import CaptureConfig
import CaptureWeb
import CaptureWiring
import Foundation

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the box's page to the rider's phone, and its JSON API to scripts.",
        discussion: """
            The page shows what the box is doing (state and since when, the last fix, the \
            sources, the ride under way, rides waiting and delivered, the login, the store \
            against its budget, the problems a person must fix) and updates itself; its \
            buttons begin or end a ride, set the modality, mark the moment and deliver now. \
            /rides lists the rides, each drawn with its road surface. It talks to the recorder \
            through its control socket and reads the store beside it.

            Only holders of the box's access token see it: the login form sets a cookie; \
            scripts send `Authorization: Bearer TOKEN`. The token is made at the first start, \
            in web.token_file (default <data dir>/web.token, mode 600); --show-token prints \
            it. Wrong tokens are answered 401, and after 5 from one address 429 until it \
            waits (one more try every 12 s).

            API (JSON, as the commands' --json): GET /api/status (capture status), \
            /api/rides (capture list), /api/rides/ID (capture show); POST /api/mark, \
            /api/begin, /api/end, /api/deliver and /api/modality with {"modality":"CAR"}. \
            GET /health needs no token.

            It listens on web.listen (--listen; default 0.0.0.0:8080, every address of the \
            box; port 0 picks a free one) and prints the address once it does. SIGTERM or \
            SIGINT ends it. The package's capture-serve unit runs it; it is off until enabled.

            EXIT CODES: 0 ended by a signal; 64 a bad --listen; 69 the address cannot be \
            listened on; 74 the token file cannot be read or made; 78 a bad configuration \
            (web.listen in the file or $CAPTURE_WEB_LISTEN) or token file.
            """)
    @OptionGroup var data: DataDirectoryOptions
    @Option(help: ArgumentHelp("Where to listen: HOST:PORT, [IPv6]:PORT or :PORT (web.listen).", valueName: "address"))
    var listen: String?
    @Flag(help: "Print the access token (made if there is none yet) and exit.") var showToken = false

    func run() async throws {
        let device = try data.device(listen.map { [.webListen: .init($0, option: "--listen")] } ?? [:])
        let page = try device.page(logger: Log.logger)
        if showToken {
            print(page.token.secret)
            return
        }
        let host = page.settings.host, tokenFile = page.tokenFile
        try await page.server.run(host: host, port: page.settings.port) { port in
            let address = host.contains(":") ? "[\(host)]" : host
            // Unbuffered: a script (or a test) waiting for the port reads it at once.
            FileHandle.standardOutput.write(Data("serving the page on http://\(address):\(port)/ (access token in \(tokenFile))\n".utf8))
        }
    }
}
