// SPDX-License-Identifier: Apache-2.0
import CLISupport
import Pasteboard
import SystemSupport

/// Commands answered by pasteboardd: items, named pasteboards, watching, history.
extension Runner {
    func daemon() throws(PasteboardError) -> PasteboardDaemon { try PasteboardDaemon() }

    func daemonStatus() -> ExitCode {
        do {
            Output.line(try daemon().status().map { "\($0.name): \($0.value)" }.joined(separator: "\n"))
            return .success
        } catch {
            return fail("\(error)")
        }
    }

    /// Item `index` of the content pasteboardd holds, in the first wanted type it has or converts to.
    func pasteItem(_ request: PasteRequest, index: Int) -> ExitCode {
        let board = board(request.pasteboard, timeoutMilliseconds: request.timeoutMilliseconds)
        let items: [PasteboardItem]
        do { items = try board.heldItems } catch { return fail(error, pasteboard: request.pasteboard) }
        guard items.indices.contains(index) else {
            return fail("\(request.pasteboard) has \(items.count) item\(items.count == 1 ? "" : "s"); there is no item \(index)", .typeNotOffered)
        }
        return write(items[index], wanted: request.types, trimmingNewline: request.trimNewline, using: board,
                     what: "item \(index) of \(request.pasteboard)")
    }

    /// Writes the first of `wanted` (text by default) that `item` has or converts to.
    func write(_ item: PasteboardItem, wanted: [PasteboardType], trimmingNewline: Bool, using board: Pasteboard, what: String) -> ExitCode {
        for type in wanted.isEmpty ? [.utf8String] : wanted {
            do {
                guard let bytes = try board.data(forType: type, in: item) else { continue }
                return write(bytes, trimmingNewline: trimmingNewline)
            } catch {
                return fail(error, pasteboard: board.name)
            }
        }
        return fail("\(what) does not have that type, nor anything that converts to it", .typeNotOffered)
    }

    func itemTypes(_ request: TypesRequest) -> ExitCode {
        do {
            var lines: [String] = []
            for (index, item) in try board(request.pasteboard).heldItems.enumerated() {
                lines.append("item \(index)")
                lines += item.representations.map { "  \($0.type)\t\($0.byteCount) bytes" }
            }
            Output.line(lines.joined(separator: "\n"))
            return .success
        } catch {
            return fail(error, pasteboard: request.pasteboard)
        }
    }

    func displays(_ request: DisplaysRequest) -> ExitCode {
        do {
            switch request {
            case .list:
                for display in try daemon().displays() { Output.line("\(display.name)\t\(display.state)") }
            case .add(let name): try daemon().addDisplay(name)
            case .remove(let name): try daemon().removeDisplay(name)
            }
            return .success
        } catch {
            return fail("\(error)")
        }
    }

    func peer(_ request: PeerRequest) -> ExitCode {
        do {
            switch request {
            case .list:
                for peer in try daemon().peers() { Output.line("\(peer.socket)\t\(peer.state)\t\(peer.lastError)") }
            case .add(let socket): try daemon().addPeer(try Self.absolute(socket))
            case .remove(let socket): try daemon().removePeer(try Self.absolute(socket))
            }
            return .success
        } catch {
            return fail("\(error)")
        }
    }

    /// `path` made absolute against the current directory (the daemon runs elsewhere).
    static func absolute(_ path: String) throws -> String {
        path.hasPrefix("/") ? path : try FileSystem.currentDirectory() + "/" + path
    }

    func pasteboards(_ request: PasteboardsRequest) -> ExitCode {
        do {
            switch request {
            case .list:
                for board in try daemon().pasteboards() {
                    var flags: [String] = []
                    if board.persistent { flags.append("persistent") }
                    flags.append(board.held ? "held by pasteboardd" : "not held")
                    Output.line("\(board.name)\tcount \(board.changeCount)\t\(flags.joined(separator: ", "))")
                }
            case .create(let name, let persistent):
                try daemon().createPasteboard(name, persistent: persistent)
            case .remove(let name):
                try daemon().removePasteboard(name)
            }
            return .success
        } catch .notHeld(let why) {
            return fail(why, .empty)
        } catch {
            return fail("\(error)")
        }
    }

    /// Prints a record per change, or runs a command per change, until interrupted.
    func watch(_ request: WatchRequest) -> ExitCode {
        if request.reads { return watchReads(request) }
        do {
            // `kept` records (another application's copy, read) say more in JSON only; a line or a command per
            // change is one per change.
            let watcher = try PasteboardWatcher(pasteboards: request.pasteboards,
                                                reportsKept: request.format == .json && request.command.isEmpty)
            while true {
                let change = try watcher.next()
                if request.command.isEmpty {
                    try Output.write(Array(record(request.format, change).utf8))
                } else {
                    try run(request.command, change)
                }
            }
        } catch {
            return fail("\(error)")
        }
    }

    /// Prints a record per read of content pasteboardd serves, until interrupted.
    func watchReads(_ request: WatchRequest) -> ExitCode {
        do {
            let watcher = try PasteboardReadWatcher(pasteboards: request.pasteboards)
            while true {
                try Output.write(Array(Self.record(request.format, try watcher.next()).utf8))
            }
        } catch {
            return fail("\(error)")
        }
    }

    /// One read: pasteboard, type, reader (app, pid), time (UTC, milliseconds), and the refusal if any. Text:
    /// `CLIPBOARD UTF8_STRING xclip 4242 2026-12-01T22:41:07.123Z served` (`-` for what is unknown).
    static func record(_ format: WatchRequest.Format, _ read: PasteboardRead) -> String {
        let time = String(Runner.utcTime(read.time / 1000).map { $0 == " " ? "T" : $0 })
            + "." + String(1000 + read.time % 1000).dropFirst() + "Z"
        switch format {
        case .text, .nul:
            let outcome = read.refusal.map { "refused: " + OneLine.make($0, limit: 200) } ?? "served"
            let app = read.reader.map { String($0.application.map { $0 == " " ? "_" : $0 }) } ?? "-"
            let pid = read.reader?.processID.map(String.init) ?? "-"
            return "\(read.pasteboard) \(read.type) \(app) \(pid) \(time) \(read.via) \(outcome)" + (format == .nul ? "\0" : "\n")
        case .json:
            return "{\"pasteboard\":\(JSON.string(read.pasteboard.rawValue)),\"type\":\(JSON.string(read.type.rawValue)),"
                + "\"reader\":\(JSON.source(read.reader)),\"time\":\(JSON.string(time)),\"via\":\(JSON.string(read.via)),"
                + "\"refused\":\(read.refusal.map(JSON.string) ?? "null")}\n"
        }
    }

    /// One record: pasteboard, count, state, types, and for a picture its type, size and length
    /// (`image/png 3840×2160 1234567 bytes`); in JSON also who copied and the text's patterns.
    func record(_ format: WatchRequest.Format, _ change: PasteboardChange) -> String {
        let types = change.types.map(\.rawValue)
        let picture = change.image.map { " \($0)" } ?? ""
        switch format {
        case .text: return "\(change.pasteboard) \(change.changeCount) \(change.state) \(types.joined(separator: ","))\(picture)\n"
        case .nul: return "\(change.pasteboard) \(change.changeCount) \(change.state) \(types.joined(separator: ","))\(picture)\0"
        case .json:
            let image = change.image.map {
                ",\"image\":{\"type\":\(JSON.string($0.type.rawValue)),\"width\":\($0.width),\"height\":\($0.height),\"bytes\":\($0.byteCount)}"
            } ?? ""
            let patterns = change.patterns.map { "[" + $0.names.map(JSON.string).joined(separator: ",") + "]" } ?? "null"
            return "{\"pasteboard\":\(JSON.string(change.pasteboard.rawValue)),\"changeCount\":\(change.changeCount),\"state\":\(JSON.string(change.state)),\"types\":[\(types.map(JSON.string).joined(separator: ","))]\(image),\"source\":\(JSON.source(change.source)),\"patterns\":\(patterns)}\n"
        }
    }

    /// Runs the watch command with the new text on its standard input and the change in its
    /// environment (CLIPBOARD_STATE as wl-paste sets it: data, nil, clear, sensitive).
    func run(_ command: [String], _ change: PasteboardChange) throws {
        let clipboardState: String
        switch change.state {
        case "clear": clipboardState = "clear"
        case "empty": clipboardState = "nil"
        case "sensitive": clipboardState = "sensitive"
        default: clipboardState = "data"
        }
        var environment = Environment.all
        environment["CLIPBOARD_STATE"] = clipboardState
        environment["CLIPBOARD_TYPE"] = change.types.first?.rawValue ?? ""
        environment["PASTEBOARD_NAME"] = change.pasteboard.rawValue
        environment["PASTEBOARD_CHANGE_COUNT"] = String(change.changeCount)
        environment["PASTEBOARD_SOURCE"] = change.source?.application ?? ""
        environment["PASTEBOARD_PATTERNS"] = change.patterns?.names.joined(separator: ",") ?? ""
        var text: [UInt8] = []
        if clipboardState == "data" {
            text = (try? Pasteboard(name: change.pasteboard).data(forType: .utf8String)) ?? nil ?? []
        }
        let (readEnd, writeEnd) = try FileDescriptor.pipe()
        let pid = try ChildProcess.spawn(argv: command, environment: environment, stdin: readEnd)
        try readEnd.close()
        try? writeEnd.writeAll(text)
        try writeEnd.close()
        _ = try ChildProcess.wait(pid)
    }
}

/// Just enough JSON for watch records.
enum JSON {
    static func string(_ value: String) -> String {
        var out = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 { out += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count) + String(scalar.value, radix: 16) } else { out.unicodeScalars.append(scalar) }
            }
        }
        return out + "\""
    }

    /// A source as `{"app":…,"pid":…}` (pid null when unknown), or null.
    static func source(_ source: ContentSource?) -> String {
        guard let source else { return "null" }
        return "{\"app\":\(string(source.application)),\"pid\":\(source.processID.map(String.init) ?? "null")}"
    }
}

// MARK: - History and recording

extension Runner {
    func history(_ request: HistoryRequest) -> ExitCode {
        do {
            let daemon = try daemon()
            switch request {
            case .list(let limit, let json):
                for entry in try daemon.history(limit: limit) {
                    let types = entry.types.map(\.rawValue)
                    if json {
                        Output.line("{\"index\":\(entry.index),\"time\":\(entry.time),\"pasteboard\":\(JSON.string(entry.pasteboard.rawValue)),\"size\":\(entry.size),\"types\":[\(types.map(JSON.string).joined(separator: ","))],\"preview\":\(JSON.string(entry.preview)),\"source\":\(JSON.source(entry.source))}")
                    } else {
                        // The source last but one: the preview stays the last field (it may hold anything but tabs).
                        let source = entry.source?.application ?? "-"
                        Output.line("\(entry.index)\t\(Self.utcTime(entry.time))\t\(entry.size) B\t\(types.joined(separator: ","))\t\(source)\t\(entry.preview)")
                    }
                }
            case .show(let index, let types):
                let items = try daemon.historyItems(index)
                guard let item = items.first else { return fail("history entry \(index) is empty") }
                return write(item, wanted: types, trimmingNewline: false, using: Pasteboard.general, what: "history entry \(index)")
            case .copy(let index):
                try daemon.copyHistoryEntry(index)
            case .delete(let index):
                try daemon.deleteHistoryEntry(index)
            case .clear:
                try daemon.clearHistory()
            case .pick(let menu):
                return try pick(menu, from: daemon)
            }
            return .success
        } catch .notHeld(let why) {
            return fail(why, .empty)
        } catch {
            return fail("\(error)")
        }
    }

    /// `pb history pick`: the entries in a menu program; the one chosen becomes the clipboard again.
    func pick(_ menu: HistoryMenu.Menu, from daemon: PasteboardDaemon) throws(PasteboardError) -> ExitCode {
        let entries = try daemon.history()
        guard !entries.isEmpty else { return fail("the history is empty", .empty) }
        let environment = Environment.all
        let display = environment["DISPLAY"].map { !$0.isEmpty } ?? false
        guard let argv = HistoryMenu.command(
            for: menu, isInstalled: { ChildProcess.executablePath($0, searchPath: environment["PATH"]) != nil },
            hasDisplay: display, hasTerminal: ControllingTerminal.isAvailable)
        else {
            return fail("no menu program: install rofi or dmenu (with a display) or fzf (in a terminal), or give --menu-command")
        }
        let lines = HistoryMenu.lines(entries.map { .init(index: $0.index, time: $0.time, preview: $0.preview, source: $0.source?.application) },
                                      now: WallClock.now)
        let result: FilterResult
        do {
            result = try ChildProcess.run(argv: argv, input: Array(lines.map { $0 + "\n" }.joined().utf8),
                                          outputLimit: HistoryMenu.maximumOutputBytes)
        } catch SystemError.limitExceeded {
            return fail("\(argv[0]) printed more than \(HistoryMenu.maximumOutputBytes) bytes; nothing was copied")
        } catch {
            return fail("cannot run \(argv[0]): \(error)")
        }
        let chosen: Int
        do {
            chosen = try HistoryMenu.choice(output: result.output, lines: lines)
        } catch .nothingChosen {
            let how = result.status == .exited(0) ? "" : " (\(argv[0]) \(result.status))"
            return fail("no entry was chosen\(how); the clipboard is unchanged")
        } catch {
            return fail("\(error); the clipboard is unchanged")
        }
        try daemon.copyHistoryEntry(entries[chosen])
        return .success
    }

    func pause(_ pausing: Bool) -> ExitCode {
        do {
            try daemon().setRecordingPaused(pausing)
            return .success
        } catch {
            return fail("\(error)")
        }
    }

    /// "YYYY-MM-DD HH:MM:SS" in UTC, from seconds since 1970 (civil-from-days, no Foundation).
    static func utcTime(_ seconds: Int64) -> String {
        // Within ±2^40 s (about 35,000 years): a time no clock gives (a hand-made history) prints as a far date,
        // never overflows the sums below.
        let seconds = min(max(seconds, -(1 << 40)), 1 << 40)
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondsOfDay = seconds - days * 86_400
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(year)-\(two(month))-\(two(day)) \(two(secondsOfDay / 3600)):\(two(secondsOfDay % 3600 / 60)):\(two(secondsOfDay % 60))"
    }
}
