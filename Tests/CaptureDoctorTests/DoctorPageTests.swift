import CaptureConfig
import CaptureDoctor
import CaptureWeb
import Foundation
import Glibc
import Hummingbird
import Logging
import Testing

/// `capture doctor` on the page (issue 43, item 4): nothing to say where it was never set up; a
/// free port passes; a port capture serve answers on passes; one another program holds fails;
/// a token file others can read fails with the chmod to run.
@Suite struct DoctorPageTests {
    /// A listening socket on 127.0.0.1 that is not capture serve; its port.
    static func holdPort() throws -> (fd: Int32, port: Int) {
        // Close-on-exec: a process another test spawns meanwhile must not keep it listening.
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && listen(fd, 4) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        try #require(bound)
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    @Test func aPortOfAnotherProgramFailsAFreeOnePasses() throws {
        let box = try DoctorDevice()
        let doctor = Doctor(seconds: 0.1, sysfsRoot: box.root)
        #expect(doctor.page(try box.device("")).isEmpty)
        let held = try Self.holdPort()
        let taken = try #require(doctor.page(try box.device("web: { listen: \"127.0.0.1:\(held.port)\" }")).first)
        close(held.fd)
        #expect(taken.status == .fail && taken.detail.contains("another program holds the port"), "\(taken.detail)")
        #expect(taken.advice?.contains("web.listen") == true)
        let free = try #require(doctor.page(try box.device("web: { listen: \"127.0.0.1:\(held.port)\" }")).first)
        #expect(free.status == .pass, "\(free.detail)")
        #expect(free.detail.contains("is free for capture serve"))
    }

    @Test func aTokenOthersCanReadFails() throws {
        let box = try DoctorDevice()
        let doctor = Doctor(seconds: 0.1, sysfsRoot: box.root)
        let token = box.data + "/web.token"
        _ = try AccessToken.loadOrCreate(at: token)
        var info = stat()
        #expect(stat(token, &info) == 0 && info.st_mode & 0o777 == 0o600)
        chmod(token, 0o644)
        let open = try #require(doctor.page(try box.device("web: { listen: \"127.0.0.1:0\" }")).first)
        #expect(open.status == .fail && open.advice == "chmod 600 \(token)", "\(open)")
    }

    @Test func captureServeAnsweringOnThePortPasses() async throws {
        let box = try DoctorDevice()
        var patient = Doctor(seconds: 0.1, sysfsRoot: box.root)
        // The in-process server answers on Swift's cooperative threads, which the other tests of
        // a parallel run may keep busy for seconds.
        patient.pageTimeout = 20
        let doctor = patient
        let scratch = box.data
        let server = PageServer(
            box: Box(directory: scratch, surface: .init()), token: try AccessToken.loadOrCreate(at: scratch + "/web.token"),
            logger: Logger(label: "doctor-page"))
        try await server.application(host: "127.0.0.1", port: 0) { _ in }.test(.live) { client in
            let port = try #require(client.port)
            let device = try box.device("web: { listen: \"127.0.0.1:\(port)\" }")
            // Off Swift's cooperative threads: the probe blocks on the socket while the server's
            // handler needs one of them (two on two cores) to answer.
            let checks = await withCheckedContinuation { done in DispatchQueue.global().async { done.resume(returning: doctor.page(device)) } }
            let check = try #require(checks.first)
            #expect(check.status == .pass, "\(check.detail)")
            #expect(check.detail == "capture serve answers on 127.0.0.1:\(port)")
        }
    }
}
