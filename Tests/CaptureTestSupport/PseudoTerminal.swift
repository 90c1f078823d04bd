import Foundation
import Glibc

/// A pseudo-terminal pair, for tests that play a serial receiver: they write to ``master``, and
/// the source under test opens ``path``. The slave side stays open until ``closeSlave()`` (or the
/// end), so what is written before the source opens it waits in the terminal's buffer.
package final class PseudoTerminal: @unchecked Sendable {  // writes from any thread; closeSlave from one
    /// The side the test writes to.
    package let master: Int32
    /// The device path the source opens (`/dev/pts/N`).
    package let path: String
    private var slave: Int32

    /// Opens a new pair.
    package init() throws {
        var master: Int32 = -1
        var slave: Int32 = -1
        var name = [CChar](repeating: 0, count: 256)
        guard openpty(&master, &slave, &name, nil, nil) == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        self.master = master
        self.slave = slave
        path = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    deinit {
        close(master)
        closeSlave()
    }

    /// Closes the test's copy of the slave side (the source keeps its own).
    package func closeSlave() {
        if slave >= 0 { close(slave) }
        slave = -1
    }

    /// Writes `bytes` to the master side; the number written, or -1.
    @discardableResult
    package func write(_ bytes: [UInt8]) -> Int {
        bytes.withUnsafeBytes { Glibc.write(master, $0.baseAddress, $0.count) }
    }

    /// Writes `text` as UTF-8.
    @discardableResult
    package func write(_ text: String) -> Int { write(Array(text.utf8)) }
}
