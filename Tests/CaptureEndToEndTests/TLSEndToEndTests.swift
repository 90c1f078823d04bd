import CaptureTestSupport
import Foundation
import Glibc
import Testing

/// HTTPS uploads verify the collector's certificate.
@Suite struct TLSEndToEndTests {
    /// A TLS server on 127.0.0.1 with a self-signed certificate that logs, per connection,
    /// whether the TLS handshake completed. Its first line is the port.
    static let server = """
        import socket, ssl, sys
        directory = sys.argv[1]
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(directory + "/cert.pem", directory + "/key.pem")
        listener = socket.socket()
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        print(listener.getsockname()[1], flush=True)
        while True:
            connection, _ = listener.accept()
            try:
                context.wrap_socket(connection, server_side=True).close()
                print("handshake-ok", flush=True)
            except Exception as error:
                print("handshake-failed", type(error).__name__, flush=True)
        """

    @Test func aCertificateThatDoesNotVerifyIsRefused() throws {
        let cli = CLI()
        let directory = cli.dataDirectory + "-tls"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let openssl = try #require(Program.which("openssl"), "openssl is missing: run scripts/setup")
        let python = try #require(Program.which("python3"), "python3 is missing: run scripts/setup")
        let made = try Program.run(
            openssl,
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", directory + "/key.pem", "-out",
                directory + "/cert.pem", "-days", "1", "-subj", "/CN=127.0.0.1",
            ])
        #expect(made.status == 0, "\(made.stderr)")
        try Self.server.write(toFile: directory + "/server.py", atomically: true, encoding: .utf8)
        let server = try Subprocess([directory + "/server.py", directory], executable: python)
        defer {
            kill(server.pid, SIGKILL)
            server.wait()
        }
        var port: Int?
        for _ in 0..<400 where port == nil {
            port = server.stdout.split(separator: "\n").first.flatMap { Int($0) }
            if port == nil { usleep(25_000) }
        }
        let serverPort = try #require(port, "the TLS server did not start: \(server.stderr)")

        #expect(try cli.run(["replay", cli.fixture("car.trace")]).status == 0)
        let token = directory + "/token"
        _ = FileManager.default.createFile(
            atPath: token, contents: Data("secret\n".utf8), attributes: [.posixPermissions: 0o600])
        let result = try cli.run([
            "upload", "--url", "https://127.0.0.1:\(serverPort)/", "--token-file", token, "--retry-budget", "2",
        ])
        #expect(result.status == 75, "\(result.stderr)")
        let log = server.stdout
        // The client reached the server and aborted the handshake itself: the certificate was
        // checked and refused, so no request (and no token) was ever sent.
        #expect(log.contains("handshake-failed"), "\(log)")
        #expect(!log.contains("handshake-ok"), "\(log)")
        let state = try cli.json(["show", "1"])["upload"] as? [String: Any]
        #expect(state?["status"] as? String != "uploaded")

        // The fleet's heartbeat keeps the collector's rules: refused in the handshake, before its
        // password was sent; exit 69 (no answer it trusts).
        let password = directory + "/push-password"
        _ = FileManager.default.createFile(
            atPath: password, contents: Data("secret\n".utf8), attributes: [.posixPermissions: 0o600])
        let refusedBefore = server.stdout.split(separator: "\n").filter { $0.hasPrefix("handshake-failed") }.count
        let push = try Subprocess(
            [
                "CAPTURE_CONFIG=/dev/null", "CAPTURE_FLEET_PUSH_URL=https://127.0.0.1:\(serverPort)", "CAPTURE_FLEET_USERNAME=box",
                "CAPTURE_FLEET_PASSWORD_FILE=\(password)", CLI.executable, "metrics", "--push", "--data-dir", cli.dataDirectory,
            ], executable: "/usr/bin/env")
        #expect(push.wait() == 69, "\(push.stderr)")
        #expect(
            MediumEndToEndTests.waitFor(5) {
                server.stdout.split(separator: "\n").filter { $0.hasPrefix("handshake-failed") }.count > refusedBefore
            }, "\(server.stdout)")
        #expect(!server.stdout.contains("handshake-ok"), "\(server.stdout)")
    }
}
