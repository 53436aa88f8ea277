// SPDX-License-Identifier: Apache-2.0
import PasteboardCore

/// Parses argv into a `Command`: a pure function from strings to a value or a `UsageError`.
///
/// `pb` takes a verb (`copy`, `paste`, `types`, `count`, `clear`, `convert`, `help`); `pbcopy` and
/// `pbpaste` (chosen by the name the program was invoked as) take macOS's flags.
public enum CommandLineParser {
    /// Parses `arguments` (without argv[0]) for the program named `programName` (argv[0]'s last component).
    public static func parse(_ arguments: [String], programName: String) throws(UsageError) -> Command {
        switch programName {
        case "pbcopy": return try parsePBCopy(arguments)
        case "pbpaste": return try parsePBPaste(arguments)
        default: return try parsePB(arguments)
        }
    }

    // MARK: - pb

    static func parsePB(_ arguments: [String]) throws(UsageError) -> Command {
        guard let verb = arguments.first else { return .help(nil) }
        let rest = Array(arguments.dropFirst())
        switch verb {
        case "-h", "--help": return .help(nil)
        case "--version", "-V": return .version
        case "help":
            if rest == ["-h"] || rest == ["--help"] { return .help("help") }
            guard rest.count <= 1 else { throw UsageError("help takes at most one command name", command: "help") }
            if let topic = rest.first, !Usage.commands.contains(topic) {
                throw UsageError("no such command: \(topic)", command: nil)
            }
            return .help(rest.first)
        case "copy": return try parseCopy(rest)
        case "paste": return try parsePaste(rest)
        case "types": return try parseTypes(rest)
        case "count": return try parseSimple(rest, verb: "count").map(Command.count) ?? .help("count")
        case "clear": return try parseSimple(rest, verb: "clear").map(Command.clear) ?? .help("clear")
        case "convert": return try parseConvert(rest)
        case "pasteboard", "pasteboards": return try parsePasteboards(rest)
        case "display", "displays": return try parseDisplays(rest)
        case "peer", "peers": return try parsePeer(rest)
        case "watch": return try parseWatch(rest)
        case "history": return try parseHistory(rest)
        case "pause", "resume":
            if rest == ["-h"] || rest == ["--help"] { return .help(verb) }
            guard rest.isEmpty else { throw UsageError("\(verb) takes no arguments", command: verb) }
            return .pause(verb == "pause")
        case "ssh":
            // Everything else is ssh's own: options, host, command.
            if rest == ["-h"] || rest == ["--help"] { return .help("ssh") }
            if rest.first == "--peer" {
                let arguments = Array(rest.dropFirst())
                guard SSHForward.split(arguments) != nil else {
                    throw UsageError("ssh --peer needs a host (and any of ssh's options before it)", command: "ssh")
                }
                return .sshPeer(arguments)
            }
            guard !rest.isEmpty else { throw UsageError("ssh needs a host (and any of ssh's options before it)", command: "ssh") }
            return .ssh(rest)
        case SSHMaster.cleanupVerb:
            guard let (master, parent) = SSHMaster.cleanup(from: rest) else {
                throw UsageError("\(verb) is pb ssh's own step, run by it with what it made (try 'pb help ssh')", command: nil)
            }
            return .sshCleanup(master, parent: parent)
        case "status":
            if rest == ["-h"] || rest == ["--help"] { return .help("status") }
            guard rest.isEmpty else { throw UsageError("status takes no arguments", command: "status") }
            return .status
        default: throw UsageError("unknown command '\(verb)' (try 'pb --help')", command: nil)
        }
    }

    private static let helpOption = ArgumentScanner.Option(short: "h", long: "help")
    private static let selectionOptions: [ArgumentScanner.Option] = [
        .init(short: "p", long: "primary"),
        .init(short: "b", long: "clipboard"),
        .init(short: "P", long: "pasteboard", aliases: ["-selection", "-sel"], takesValue: true),
    ]

    /// Applies a selection option to `name`; false if `token` is not one.
    private static func applySelection(_ name: String, _ value: String?, to pasteboard: inout PasteboardName,
                                       command: String) throws(UsageError) -> Bool {
        switch name {
        case "primary": pasteboard = .primary
        case "clipboard": pasteboard = .general
        case "pasteboard":
            guard let value, let named = PasteboardName.named(value) else {
                throw UsageError("invalid pasteboard name '\(value ?? "")': it must be 1 to 255 bytes without control characters", command: command)
            }
            pasteboard = named
        default: return false
        }
        return true
    }

    private static func resolveType(_ name: String, command: String) throws(UsageError) -> PasteboardType {
        guard let type = PasteboardType.named(name) else {
            throw UsageError("invalid type '\(name)': a type is a MIME type, an X atom name or an alias (text, html, rtf, rtfd, png)", command: command)
        }
        return type
    }

    static func parseCopy(_ arguments: [String]) throws(UsageError) -> Command {
        let scanner = ArgumentScanner(options: selectionOptions + [
            helpOption,
            .init(short: "t", long: "type", takesValue: true),
            .init(short: nil, long: "sensitive"),
            .init(short: "n", long: "trim-newline"),
            .init(short: "o", long: "paste-once"),
            .init(short: nil, long: "expire", takesValue: true),
            .init(short: nil, long: "local-only"),
            .init(short: nil, long: "files"),
            .init(short: nil, long: "cut"),
            .init(short: nil, long: "osc52"),
        ], command: "copy")
        var request = CopyRequest()
        var operands: [String] = []
        var files = false
        for token in try scanner.scan(arguments) {
            switch token {
            case .operand(let text): operands.append(text)
            case .option(let name, let value):
                if try applySelection(name, value, to: &request.pasteboard, command: "copy") { continue }
                switch name {
                case "help": return .help("copy")
                case "sensitive": request.sensitive = true
                case "paste-once": request.pasteOnce = true
                case "expire": request.expiresAfterMilliseconds = try expiry(value ?? "")
                case "local-only": request.localOnly = true
                case "trim-newline": request.trimNewline = true
                case "files": files = true
                case "cut": files = true; request.cut = true
                case "osc52": request.osc52 = true
                case "type":
                    let (typeName, path) = splitTypeAndFile(value ?? "")
                    if path == "" { throw UsageError("-t \(typeName)= names no file", command: "copy") }
                    request.sources.append((try resolveType(typeName, command: "copy"), path))
                default: break
                }
            }
        }
        if request.osc52 {
            // The terminal takes text for CLIPBOARD or PRIMARY, and nothing more.
            guard !files, request.sources.isEmpty else { throw UsageError("--osc52 copies text only: no --files or -t", command: "copy") }
            guard request.pasteboard == .general || request.pasteboard == .primary else {
                throw UsageError("--osc52 copies to CLIPBOARD or PRIMARY only", command: "copy")
            }
            guard !request.sensitive, !request.pasteOnce, request.expiresAfterMilliseconds == nil else {
                throw UsageError("--osc52 cannot keep a copy out of history, serve it once or make it expire: the terminal copies", command: "copy")
            }
            guard !request.localOnly else {
                throw UsageError("--osc52 sends the text to the terminal, which may be on another machine: not --local-only", command: "copy")
            }
        }
        if files {
            guard request.sources.isEmpty else { throw UsageError("--files offers the file types itself; it takes no -t", command: "copy") }
            guard !request.trimNewline else { throw UsageError("--files reads no standard input to trim", command: "copy") }
            guard !operands.isEmpty else { throw UsageError("--files needs the paths of the files to copy", command: "copy") }
            guard operands.count <= FileList.maximumFiles else {
                throw UsageError("\(operands.count) files is more than the \(FileList.maximumFiles) one copy may hold", command: "copy")
            }
            request.files = operands
            return .copy(request)
        }
        if !operands.isEmpty {
            request.text = operands.joined(separator: " ")
            request.operands = operands
        }
        let fromStandardInput = request.sources.filter { $0.path == nil || $0.path == "-" }.count
        if fromStandardInput > 1 {
            throw UsageError("only one type can be read from standard input; give the others as -t TYPE=FILE", command: "copy")
        }
        if request.text != nil && fromStandardInput > 0 && !request.sources.isEmpty {
            if request.sources.count > 1 || request.sources[0].path != nil {
                throw UsageError("text operands and -t TYPE without a file both want to be the text", command: "copy")
            }
        }
        var seen: Set<PasteboardType> = []
        for source in request.sources where !seen.insert(source.type).inserted {
            throw UsageError("type \(source.type) given twice", command: "copy")
        }
        return .copy(request)
    }

    /// The longest `--expire`: 7 days (the control protocol's own limit).
    public static let maximumExpirySeconds = 7 * 24 * 3600

    /// `--expire SECONDS`: a number of seconds, fractions allowed, more than 0 and at most 7 days, in
    /// milliseconds (a fraction of one rounds up).
    static func expiry(_ text: String) throws(UsageError) -> UInt64 {
        guard let seconds = Double(text), seconds > 0, seconds <= Double(maximumExpirySeconds),
              text.allSatisfy({ $0.isNumber || $0 == "." }) else {
            throw UsageError("--expire takes a number of seconds from more than 0 to \(maximumExpirySeconds) (7 days), not '\(text)'",
                             command: "copy")
        }
        return max(1, UInt64((seconds * 1000).rounded(.up)))
    }

    /// Splits `TYPE=FILE` at the first `=` that is not a MIME parameter's (`;charset=utf-8`), so that
    /// file names may contain `=`. An empty file name after `=` is returned as "" (an error for the caller).
    static func splitTypeAndFile(_ value: String) -> (String, String?) {
        var searchFrom = value.startIndex
        while let equals = value[searchFrom...].firstIndex(of: "=") {
            let left = value[..<equals]
            if let semicolon = left.lastIndex(of: ";"), !left[semicolon...].contains("=") {
                searchFrom = value.index(after: equals)   // a parameter's own `=`
                continue
            }
            return (String(left), String(value[value.index(after: equals)...]))
        }
        return (value, nil)
    }

    static func parsePaste(_ arguments: [String]) throws(UsageError) -> Command {
        let scanner = ArgumentScanner(options: selectionOptions + [
            helpOption,
            .init(short: "t", long: "type", takesValue: true),
            .init(short: "n", long: "trim-newline"),
            .init(short: "l", long: "list-types"),
            .init(short: nil, long: "timeout", takesValue: true),
            .init(short: "i", long: "item", takesValue: true),
            .init(short: nil, long: "files"),
            .init(short: nil, long: "force"),
        ], command: "paste")
        var request = PasteRequest()
        var listTypes = false
        var operands: [String] = []
        for token in try scanner.scan(arguments) {
            switch token {
            case .operand(let operand): operands.append(operand)
            case .option(let name, let value):
                if try applySelection(name, value, to: &request.pasteboard, command: "paste") { continue }
                switch name {
                case "help": return .help("paste")
                case "trim-newline": request.trimNewline = true
                case "list-types": listTypes = true
                case "type": request.types.append(try resolveType(value ?? "", command: "paste"))
                case "timeout": request.timeoutMilliseconds = try milliseconds(value, command: "paste")
                case "item":
                    guard let value, let index = Int(value), index >= 0 else {
                        throw UsageError("--item takes an item number from 0", command: "paste")
                    }
                    request.item = index
                case "files": request.files = true
                case "force": request.force = true
                default: break
                }
            }
        }
        if request.files {
            guard request.types.isEmpty, request.item == nil, !listTypes else {
                throw UsageError("--files pastes files; it takes no -t, --item or -l", command: "paste")
            }
            guard operands.count <= 1 else { throw UsageError("--files takes one directory to paste into", command: "paste") }
            request.filesDirectory = operands.first
        } else {
            if let operand = operands.first { throw UsageError("unexpected argument '\(operand)'", command: "paste") }
            if request.force { throw UsageError("--force is for --files", command: "paste") }
        }
        if listTypes {
            var types = TypesRequest()
            types.pasteboard = request.pasteboard
            types.timeoutMilliseconds = request.timeoutMilliseconds
            return .types(types)
        }
        return .paste(request)
    }

    static func parseTypes(_ arguments: [String]) throws(UsageError) -> Command {
        let scanner = ArgumentScanner(options: selectionOptions + [
            helpOption, .init(short: nil, long: "timeout", takesValue: true), .init(short: nil, long: "items"),
        ], command: "types")
        var request = TypesRequest()
        for token in try scanner.scan(arguments) {
            switch token {
            case .operand(let operand): throw UsageError("unexpected argument '\(operand)'", command: "types")
            case .option(let name, let value):
                if try applySelection(name, value, to: &request.pasteboard, command: "types") { continue }
                if name == "help" { return .help("types") }
                if name == "timeout" { request.timeoutMilliseconds = try milliseconds(value, command: "types") }
                if name == "items" { request.items = true }
            }
        }
        return .types(request)
    }

    /// Commands that take only a pasteboard: nil means `--help` was asked.
    static func parseSimple(_ arguments: [String], verb: String) throws(UsageError) -> PasteboardName? {
        let scanner = ArgumentScanner(options: selectionOptions + [helpOption], command: verb)
        var pasteboard = PasteboardName.general
        for token in try scanner.scan(arguments) {
            switch token {
            case .operand(let operand): throw UsageError("unexpected argument '\(operand)'", command: verb)
            case .option(let name, let value):
                if try applySelection(name, value, to: &pasteboard, command: verb) { continue }
                if name == "help" { return nil }
            }
        }
        return pasteboard
    }

    static func parseConvert(_ arguments: [String]) throws(UsageError) -> Command {
        let scanner = ArgumentScanner(options: [
            helpOption,
            .init(short: "f", long: "from", takesValue: true),
            .init(short: nil, long: "to", aliases: ["-convert"], takesValue: true),
            .init(short: "o", long: "output", takesValue: true),
            .init(short: "i", long: "info", aliases: ["-info"]),
        ], command: "convert")
        var request = ConvertRequest()
        for token in try scanner.scan(arguments) {
            switch token {
            case .operand(let path):
                guard request.inputPath == nil else { throw UsageError("convert reads one input file", command: "convert") }
                request.inputPath = path
            case .option(let name, let value):
                switch name {
                case "help": return .help("convert")
                case "from": request.from = value
                case "to": request.to = value
                case "output": request.outputPath = value
                case "info": request.info = true
                default: break
                }
            }
        }
        if !request.info && request.to == nil {
            throw UsageError("convert needs --to FORMAT (txt, rtf, html, rtfd, rtfd-dir) or --info", command: "convert")
        }
        return .convert(request)
    }

    static func parsePeer(_ arguments: [String]) throws(UsageError) -> Command {
        guard let action = arguments.first else { return .peer(.list) }
        let operands = Array(arguments.dropFirst())
        if action == "-h" || action == "--help" || operands == ["-h"] || operands == ["--help"] { return .help("peer") }
        func socket() throws(UsageError) -> String {
            guard operands.count == 1, !operands[0].isEmpty else { throw UsageError("peer \(action) takes one SOCKET", command: "peer") }
            guard operands[0].utf8.count <= 4096, !operands[0].utf8.contains(0) else {
                throw UsageError("'\(operands[0].prefix(64))' is not a socket path", command: "peer")
            }
            return operands[0]
        }
        switch action {
        case "list":
            guard operands.isEmpty else { throw UsageError("peer list takes no arguments", command: "peer") }
            return .peer(.list)
        case "add": return .peer(.add(try socket()))
        case "remove": return .peer(.remove(try socket()))
        default: throw UsageError("unknown peer action '\(action)' (list, add, remove)", command: "peer")
        }
    }

    static func parseDisplays(_ arguments: [String]) throws(UsageError) -> Command {
        guard let action = arguments.first else { return .displays(.list) }
        let operands = Array(arguments.dropFirst())
        if action == "-h" || action == "--help" || operands == ["-h"] || operands == ["--help"] { return .help("displays") }
        func display() throws(UsageError) -> String {
            guard operands.count == 1 else { throw UsageError("displays \(action) takes one DISPLAY", command: "displays") }
            guard DisplayName(operands[0]) != nil else {
                // A Wayland seat's name (no colon) is listed too, but served for the daemon's life.
                let seat = action == "remove" && !operands[0].contains(":")
                    ? "; a Wayland seat is served while pasteboardd runs (pasteboardd --no-wayland leaves it out)" : ""
                throw UsageError("'\(operands[0])' is not an X display name (as in $DISPLAY: :1, host:0.0)\(seat)", command: "displays")
            }
            return operands[0]
        }
        switch action {
        case "list":
            guard operands.isEmpty else { throw UsageError("displays list takes no arguments", command: "displays") }
            return .displays(.list)
        case "add": return .displays(.add(try display()))
        case "remove": return .displays(.remove(try display()))
        default: throw UsageError("unknown displays action '\(action)' (list, add, remove)", command: "displays")
        }
    }

    static func parsePasteboards(_ arguments: [String]) throws(UsageError) -> Command {
        guard let action = arguments.first else { return .pasteboards(.list) }
        let scanner = ArgumentScanner(options: [helpOption, .init(short: nil, long: "persistent")], command: "pasteboard")
        var operands: [String] = []
        var persistent = false
        for token in try scanner.scan(Array(arguments.dropFirst())) {
            switch token {
            case .operand(let operand): operands.append(operand)
            case .option("help", _): return .help("pasteboard")
            case .option(_, _): persistent = true
            }
        }
        func name() throws(UsageError) -> PasteboardName {
            guard operands.count == 1 else { throw UsageError("pasteboard \(action) takes one NAME", command: "pasteboard") }
            guard let name = PasteboardName.named(operands[0]) else {
                throw UsageError("invalid pasteboard name '\(operands[0])': 1 to 255 bytes without control characters", command: "pasteboard")
            }
            guard !name.isStandard else {
                throw UsageError("\(name) always exists: it cannot be created or removed", command: "pasteboard")
            }
            return name
        }
        switch action {
        case "-h", "--help": return .help("pasteboard")
        case "list":
            guard operands.isEmpty else { throw UsageError("pasteboard list takes no arguments", command: "pasteboard") }
            return .pasteboards(.list)
        case "create": return .pasteboards(.create(try name(), persistent: persistent))
        case "remove": return .pasteboards(.remove(try name()))
        default: throw UsageError("unknown pasteboard action '\(action)' (list, create, remove)", command: "pasteboard")
        }
    }

    static func parseHistory(_ arguments: [String]) throws(UsageError) -> Command {
        let action = arguments.first ?? "list"
        let scanner = ArgumentScanner(options: [
            helpOption, .init(short: "t", long: "type", takesValue: true),
            .init(short: nil, long: "limit", takesValue: true), .init(short: "j", long: "json"),
            .init(short: nil, long: "menu", takesValue: true), .init(short: nil, long: "menu-command", takesValue: true),
        ], command: "history")
        var operands: [String] = []
        var types: [PasteboardType] = []
        var limit = 0
        var json = false
        var menu: HistoryMenu.Menu?
        for token in try scanner.scan(Array(arguments.dropFirst(arguments.isEmpty ? 0 : 1))) {
            switch token {
            case .operand(let operand): operands.append(operand)
            case .option("help", _): return .help("history")
            case .option("type", let value): types.append(try resolveType(value ?? "", command: "history"))
            case .option("json", _): json = true
            case .option("menu", let value):
                guard menu == nil else { throw UsageError("give one of --menu and --menu-command", command: "history") }
                switch value {
                case "auto": menu = .auto
                case "rofi": menu = .rofi
                case "dmenu": menu = .dmenu
                case "fzf": menu = .fzf
                default: throw UsageError("--menu takes rofi, dmenu, fzf or auto (or give --menu-command)", command: "history")
                }
            case .option("menu-command", let value):
                guard menu == nil else { throw UsageError("give one of --menu and --menu-command", command: "history") }
                guard let value, !value.allSatisfy({ $0 == " " || $0 == "\t" }) else {
                    throw UsageError("--menu-command takes a command line", command: "history")
                }
                menu = .command(value)
            case .option(_, let value):
                guard let value, let n = Int(value), n > 0 else { throw UsageError("--limit takes a positive number", command: "history") }
                limit = n
            }
        }
        func index() throws(UsageError) -> Int {
            guard operands.count == 1, let n = Int(operands[0]), n >= 0 else {
                throw UsageError("history \(action) takes one entry number (0 is the newest)", command: "history")
            }
            return n
        }
        if menu != nil && action != "pick" {
            throw UsageError("--menu and --menu-command are for history pick", command: "history")
        }
        switch action {
        case "-h", "--help": return .help("history")
        case "pick":
            guard operands.isEmpty else { throw UsageError("history pick takes no entry number: the menu chooses", command: "history") }
            return .history(.pick(menu ?? .auto))
        case "list", "--limit", "--json", "-j":
            if action != "list" { return try parseHistory(["list"] + arguments) }
            guard operands.isEmpty else { throw UsageError("history list takes no entry number", command: "history") }
            return .history(.list(limit: limit, json: json))
        case "show": return .history(.show(try index(), types: types))
        case "copy": return .history(.copy(try index()))
        case "delete": return .history(.delete(try index()))
        case "clear":
            guard operands.isEmpty else { throw UsageError("history clear takes no arguments", command: "history") }
            return .history(.clear)
        default: throw UsageError("unknown history action '\(action)' (list, show, copy, pick, delete, clear)", command: "history")
        }
    }

    static func parseWatch(_ arguments: [String]) throws(UsageError) -> Command {
        // Everything from the first operand on is the command to run, as in `wl-paste --watch cmd args...`.
        var split = 0
        while split < arguments.count, arguments[split].hasPrefix("-"), arguments[split] != "--" {
            let takesValue = ["-P", "--pasteboard", "-selection", "-sel"].contains(arguments[split])
            split += takesValue ? 2 : 1
        }
        let options = Array(arguments[..<min(split, arguments.count)])
        let commandStart = split < arguments.count && arguments[split] == "--" ? split + 1 : split
        let scanner = ArgumentScanner(options: selectionOptions + [
            helpOption, .init(short: "j", long: "json"), .init(short: "0", long: "null"),
            .init(short: "a", long: "all"), .init(short: "r", long: "reads"),
        ], command: "watch")
        var request = WatchRequest()
        for token in try scanner.scan(options) {
            guard case .option(let name, let value) = token else { continue }
            switch name {
            case "help": return .help("watch")
            case "json": request.format = .json
            case "null": request.format = .nul
            case "all": request.pasteboards = []
            case "reads": request.reads = true
            default:
                var board = PasteboardName.general
                if try applySelection(name, value, to: &board, command: "watch") { request.pasteboards.append(board) }
            }
        }
        if commandStart < arguments.count { request.command = Array(arguments[commandStart...]) }
        if request.reads && !request.command.isEmpty {
            throw UsageError("--reads prints a record per read; it runs no command", command: "watch")
        }
        return .watch(request)
    }

    private static func milliseconds(_ value: String?, command: String) throws(UsageError) -> Int {
        guard let value, let ms = Int(value), ms > 0, ms <= 3_600_000 else {
            throw UsageError("--timeout takes milliseconds from 1 to 3600000", command: command)
        }
        return ms
    }

    // MARK: - pbcopy / pbpaste (macOS flags)

    private static func pboard(_ value: String?, command: String) throws(UsageError) -> PasteboardName {
        // macOS's find, font and ruler pasteboards become named selections of those names.
        guard let value, let name = PasteboardName.named(value) else {
            throw UsageError("-pboard takes general, find, font, ruler, primary or a pasteboard name", command: command)
        }
        return name
    }

    static func parsePBCopy(_ arguments: [String]) throws(UsageError) -> Command {
        var request = CopyRequest()
        request.detectRichText = true
        var index = 0
        while index < arguments.count {
            switch arguments[index] {
            case "-help", "--help", "-h": return .help("pbcopy")
            case "-pboard":
                index += 1
                request.pasteboard = try pboard(index < arguments.count ? arguments[index] : nil, command: "pbcopy")
            default: throw UsageError("unknown argument '\(arguments[index])'", command: "pbcopy")
            }
            index += 1
        }
        return .copy(request)
    }

    static func parsePBPaste(_ arguments: [String]) throws(UsageError) -> Command {
        var request = PasteRequest()
        var index = 0
        while index < arguments.count {
            switch arguments[index] {
            case "-help", "--help", "-h": return .help("pbpaste")
            case "-pboard":
                index += 1
                request.pasteboard = try pboard(index < arguments.count ? arguments[index] : nil, command: "pbpaste")
            case "-Prefer":
                index += 1
                let value = index < arguments.count ? arguments[index] : ""
                switch value {
                case "txt", "ps": request.types = [.utf8PlainText]
                case "rtf": request.types = [.rtf, .utf8PlainText]
                case "html": request.types = [.html, .utf8PlainText]
                default: throw UsageError("-Prefer takes txt, rtf or ps", command: "pbpaste")
                }
            default: throw UsageError("unknown argument '\(arguments[index])'", command: "pbpaste")
            }
            index += 1
        }
        return .paste(request)
    }
}
