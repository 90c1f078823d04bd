/// Small repairs of the command line before ArgumentParser sees it, so that common slips get a
/// helpful answer instead of a misleading one (beside ``Spelling``, which names the command meant).
public enum CommandLineRepair {
    /// Options every command takes that people also type before the subcommand
    /// (`capture --data-dir X list`), with whether they take a value.
    public static let global: [String: Bool] = ["--data-dir": true, "--json": false, "--log-level": true, "-v": false, "-vv": false]

    /// `arguments` (without the program name) with global options that stand before the
    /// subcommand moved to just after it; unchanged when no known subcommand follows them.
    public static func hoistingGlobalOptions(_ arguments: [String], subcommands: Set<String>) -> [String] {
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

    /// ArgumentParser's `message` for a parse of `arguments`, or, when it says a required option
    /// is missing (`Missing expected argument '--format <format>'`) and one typed is a slip of it
    /// (`--fromat`), which the parser would report only once the required one is there, that
    /// slip: `Unknown option '--fromat'. Did you mean '--format'?`.
    public static func namingSlip(_ message: String, in arguments: [String]) -> String {
        let prefix = "Missing expected argument '"
        guard message.hasPrefix(prefix + "--") else { return message }
        let meant = String(message.dropFirst(prefix.count).prefix { $0 != " " && $0 != "'" })
        for argument in arguments.prefix(while: { $0 != "--" }) where argument.hasPrefix("--") {
            let typed = String(argument.prefix { $0 != "=" })
            if typed != meant, Spelling.closest(to: typed, among: [meant]) != nil { return "Unknown option '\(typed)'. Did you mean '\(meant)'?" }
        }
        return message
    }

    /// The first argument when it is meant as a subcommand but is none: a word that does not
    /// start with `-` and is not one of `subcommands` (nor `help`).
    public static func unknownSubcommand(_ arguments: [String], subcommands: Set<String>) -> String? {
        guard let first = arguments.first, !first.hasPrefix("-"), first != "help", !subcommands.contains(first)
        else { return nil }
        return first
    }
}
