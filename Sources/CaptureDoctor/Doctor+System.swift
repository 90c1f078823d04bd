package import CaptureConfig
import CaptureSensors

// `capture doctor --system`: the board itself, as the field reports say boards fail — power
// that browns out, swap and a journal wearing the SD card, a card mounted for a desktop, a
// clock that starts years off, a card near the end of its life.
extension Doctor {
    /// The board's checks, read under ``sysfsRoot`` for the data directory of `device`.
    package func system(_ device: DeviceConfiguration) -> DoctorReport {
        let board = BoardState(
            root: sysfsRoot, dataDirectory: device.dataDirectory.value, synchronized: sysfsRoot == "/" && HostClock.isSynchronized())
        return DoctorReport(checks: system(board))
    }

    /// One check per part of `board`.
    func system(_ board: BoardState) -> [DoctorCheck] {
        [power(board), swap(board), journal(board), medium(board), clock(board), card(board)]
    }

    private func power(_ board: BoardState) -> DoctorCheck {
        let power = board.power
        let flags = power.throttled.map { "get_throttled 0x" + String($0, radix: 16) } ?? "hwmon in0_lcrit_alarm"
        if power.underVoltageNow { return .fail("power", "under-voltage now (\(flags))", advise(.steadyPower)) }
        guard power.throttled != nil else {
            return .pass("power", power.reports ? "no under-voltage now (hwmon)" : "the board reports no power state")
        }
        if power.underVoltageSinceBoot { return .warn("power", "under-voltage since boot (\(flags))", advise(.steadyPower)) }
        if power.throttledSinceBoot {
            return .warn("power", "throttled or capped since boot, by heat (\(flags))", advise(.steadyPower))
        }
        return .pass("power", "no under-voltage or throttling since boot (\(flags))")
    }

    private func swap(_ board: BoardState) -> DoctorCheck {
        board.swapOnCard.isEmpty
            ? .pass("swap", "no swap on the SD card")
            : .warn("swap", "swap on the SD card (\(board.swapOnCard.joined(separator: ", "))) wears it", advise(.keepSwapOffCard))
    }

    private func journal(_ board: BoardState) -> DoctorCheck {
        board.uncappedJournalOnCard
            ? .warn("journal", "journald keeps its journal on the SD card with no SystemMaxUse= cap", advise(.capJournal))
            : .pass("journal", "journald's journal is not on the SD card, or capped")
    }

    private func medium(_ board: BoardState) -> DoctorCheck {
        guard let mount = board.dataOnCard else { return .pass("data medium", "the data directory is not on an SD card") }
        var missing: [String] = []
        if !mount.options.contains("noatime") { missing.append("noatime") }
        if !mount.options.contains(where: { $0.hasPrefix("commit=") }) { missing.append("commit=") }
        let on = "the data directory is on the SD card (\(mount.mountPoint), \(mount.options.joined(separator: ",")))"
        return missing.isEmpty
            ? .pass("data medium", on)
            : .warn("data medium", on + " without " + missing.joined(separator: " and "), advise(.mountForCard(mount.mountPoint)))
    }

    private func clock(_ board: BoardState) -> DoctorCheck {
        if board.clockSynchronized { return .pass("clock", "synchronised") }
        if board.hasRTC { return .pass("clock", "not synchronised now; the board's RTC keeps the time across boots") }
        return .warn("clock", "not synchronised and the board has no RTC: after a boot it may be far off", advise(.synchronizeClock))
    }

    private func card(_ board: BoardState) -> DoctorCheck {
        guard board.cardLifeTime != nil || board.cardPreEOL != nil else { return .pass("card", "the card does not report its wear") }
        // Estimates in steps of 10 % of the card's life used; 11 (0x0B): beyond it.
        let estimates = (board.cardLifeTime ?? []).filter { $0 > 0 }
        let used = zip(["A", "B"], estimates).map { type, n in
            n >= 11 ? "type \(type) beyond its life" : "type \(type) \((n - 1) * 10)–\(n * 10) % used"
        }
        let eol = board.cardPreEOL.map { ["", "normal", "warning", "urgent"][min(max($0, 0), 3)] }
        let detail = (used + (eol.map { ["reserved blocks: \($0)"] } ?? [])).joined(separator: ", ")
        let worst = estimates.max() ?? 0
        if worst >= 11 || board.cardPreEOL == 3 { return .fail("card", "worn out: " + detail, advise(.replaceCard)) }
        if worst >= 9 || board.cardPreEOL == 2 { return .warn("card", "near the end of its life: " + detail, advise(.replaceCard)) }
        return .pass("card", detail)
    }
}
