/// Small repairs of the command line before ArgumentParser sees it, so that common slips get a
/// helpful answer instead of a misleading one.
enum CommandLineRepair {
    /// Options every command takes that people also type before the subcommand
    /// (`capture --data-dir X list`), with whether they take a value.
    static let global: [String: Bool] = ["--data-dir": true, "--json": false, "--log-level": true, "-v": false, "-vv": false]

    /// `arguments` (without the program name) with global options that stand before the
    /// subcommand moved to just after it; unchanged when no known subcommand follows them.
    static func hoistingGlobalOptions(_ arguments: [String], subcommands: Set<String>) -> [String] {
        var hoisted: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            let name = argument.split(separator: "=", maxSplits: 1).first.map(String.init) ?? argument
            guard let takesValue = global[name] else { break }
            hoisted.append(argument)
            if takesValue, !argument.contains("="), index + 1 < arguments.count {
                hoisted.append(arguments[index + 1])
                index += 1
            }
            index += 1
        }
        guard !hoisted.isEmpty, index < arguments.count, subcommands.contains(arguments[index]) else { return arguments }
        return [arguments[index]] + hoisted + arguments[(index + 1)...]
    }

    /// The first argument when it is meant as a subcommand but is none: a word that does not
    /// start with `-` and is not one of `subcommands` (nor `help`).
    static func unknownSubcommand(_ arguments: [String], subcommands: Set<String>) -> String? {
        guard let first = arguments.first, !first.hasPrefix("-"), first != "help", !subcommands.contains(first)
        else { return nil }
        return first
    }

    /// The subcommand closest to `word` by edit distance, if it is close enough to be a slip
    /// (at most two edits, and fewer than half the word's letters).
    static func suggestion(for word: String, among subcommands: Set<String>) -> String? {
        let scored = subcommands.filter { !$0.hasPrefix("_") }.map { ($0, editDistance(word, $0)) }
        guard let best = scored.min(by: { $0.1 < $1.1 || ($0.1 == $1.1 && $0.0 < $1.0) }) else { return nil }
        return best.1 <= 2 && best.1 * 2 < word.count ? best.0 : nil
    }

    /// Optimal string alignment distance: insertions, deletions, substitutions and swaps of two
    /// neighbouring letters (`stauts` → `status` is one edit).
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
                }
            }
        }
        return table[a.count][b.count]
    }
}
