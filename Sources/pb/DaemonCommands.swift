import CLISupport
import ControlProtocol
import Pasteboard
import PasteboardCore
import Selection
import XTypes
import SystemSupport

/// Commands answered by pasteboardd: items, named pasteboards, watching.
extension Runner {
    func daemon() throws(DaemonClientError) -> DaemonClient {
        try DaemonClient(environment: Environment.all)
    }

    /// The items pasteboardd holds for `name`.
    func heldItems(_ name: PasteboardName) throws(DaemonClientError) -> [ControlProtocol.PasteboardItem] {
        guard case .items(let items) = try daemon().send(.items(pasteboard: name.rawValue)) else {
            throw .protocolFailure("unexpected answer to items")
        }
        return items
    }

    func pasteItem(_ request: PasteRequest, index: Int) -> ExitCode {
        let items: [ControlProtocol.PasteboardItem]
        do { items = try heldItems(request.pasteboard) } catch {
            return fail("\(error)", { if case .daemon(.notFound, _) = error { return .empty }; return .failure }())
        }
        guard items.indices.contains(index) else {
            return fail("\(request.pasteboard) has \(items.count) item\(items.count == 1 ? "" : "s"); there is no item \(index)", .typeNotOffered)
        }
        let item = items[index]
        let wanted: [PasteboardType] = request.types.isEmpty ? [.utf8PlainText] : request.types
        for type in wanted {
            for candidate in type.equivalents {
                guard var bytes = item.data(forType: candidate.rawValue) else { continue }
                if candidate == .string && type.isText { bytes = Latin1.decode(bytes) }
                if request.trimNewline { bytes = trimmingOneNewline(bytes) }
                do { try Output.write(bytes) } catch { return fail("cannot write standard output: \(error)") }
                return .success
            }
        }
        return fail("item \(index) of \(request.pasteboard) does not have that type", .typeNotOffered)
    }

    func itemTypes(_ request: TypesRequest) -> ExitCode {
        do {
            let items = try heldItems(request.pasteboard)
            var lines: [String] = []
            for (index, item) in items.enumerated() {
                lines.append("item \(index)")
                lines += item.representations.map { "  \($0.type)\t\($0.data.count) bytes" }
            }
            Output.line(lines.joined(separator: "\n"))
            return .success
        } catch {
            if case .daemon(.notFound, _) = error { return fail("\(error)", .empty) }
            return fail("\(error)")
        }
    }

    func pasteboards(_ request: PasteboardsRequest) -> ExitCode {
        do {
            let client = try daemon()
            switch request {
            case .list:
                guard case .pasteboards(let all) = try client.send(.pasteboards) else { return fail("unexpected answer") }
                for board in all {
                    var flags: [String] = []
                    if board.persistent { flags.append("persistent") }
                    flags.append(board.owned ? "held by pasteboardd" : "not held")
                    Output.line("\(board.name)\tcount \(board.changeCount)\t\(flags.joined(separator: ", "))")
                }
            case .create(let name, let persistent):
                _ = try client.send(.createPasteboard(name: name.rawValue, persistent: persistent))
            case .remove(let name):
                _ = try client.send(.removePasteboard(name: name.rawValue))
            }
            return .success
        } catch {
            if case .daemon(.notFound, _) = error { return fail("\(error)", .empty) }
            return fail("\(error)")
        }
    }

    /// Prints a record per change, or runs a command per change, until interrupted.
    func watch(_ request: WatchRequest) -> ExitCode {
        do {
            let client = try daemon()
            _ = try client.send(.watch(pasteboards: request.pasteboards.map(\.rawValue)))
            while true {
                guard case .changed(let board, let count, let types, let state) = try client.receive(deadline: nil) else { continue }
                if request.command.isEmpty {
                    try Output.write(Array(record(request.format, board, count, state, types).utf8))
                } else {
                    try run(request.command, board: board, count: count, state: state, types: types)
                }
            }
        } catch {
            return fail("\(error)")
        }
    }

    func record(_ format: WatchRequest.Format, _ board: String, _ count: UInt64, _ state: String, _ types: [String]) -> String {
        switch format {
        case .text: return "\(board) \(count) \(state) \(types.joined(separator: ","))\n"
        case .nul: return "\(board) \(count) \(state) \(types.joined(separator: ","))\0"
        case .json:
            return "{\"pasteboard\":\(JSON.string(board)),\"changeCount\":\(count),\"state\":\(JSON.string(state)),\"types\":[\(types.map(JSON.string).joined(separator: ","))]}\n"
        }
    }

    /// Runs the watch command with the new text on its standard input and the change in its
    /// environment (CLIPBOARD_STATE as wl-paste sets it: data, nil, clear, sensitive).
    func run(_ command: [String], board: String, count: UInt64, state: String, types: [String]) throws {
        let clipboardState: String
        switch state {
        case "clear": clipboardState = "clear"
        case "empty": clipboardState = "nil"
        case "sensitive": clipboardState = "sensitive"
        default: clipboardState = "data"
        }
        var environment = Environment.all
        environment["CLIPBOARD_STATE"] = clipboardState
        environment["CLIPBOARD_TYPE"] = types.first ?? ""
        environment["PASTEBOARD_NAME"] = board
        environment["PASTEBOARD_CHANGE_COUNT"] = String(count)
        var text: [UInt8] = []
        if clipboardState == "data", let name = PasteboardName.named(board) {
            text = (try? Pasteboard(name: name).data(forType: .utf8PlainText)) ?? nil ?? []
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
}

// MARK: - History and recording

extension Runner {
    func history(_ request: HistoryRequest) -> ExitCode {
        do {
            let client = try daemon()
            switch request {
            case .list(let limit, let json):
                guard case .history(let entries) = try client.send(.history(limit: UInt32(limit))) else { return fail("unexpected answer") }
                for entry in entries {
                    if json {
                        Output.line("{\"index\":\(entry.index),\"time\":\(entry.timestamp),\"pasteboard\":\(JSON.string(entry.pasteboard)),\"size\":\(entry.size),\"types\":[\(entry.types.map(JSON.string).joined(separator: ","))],\"preview\":\(JSON.string(entry.preview))}")
                    } else {
                        Output.line("\(entry.index)\t\(Self.utcTime(entry.timestamp))\t\(entry.size) B\t\(entry.types.joined(separator: ","))\t\(entry.preview)")
                    }
                }
            case .show(let index, let types):
                guard case .items(let items) = try client.send(.historyItem(index: UInt32(index))), let item = items.first else {
                    return fail("history entry \(index) is empty")
                }
                let wanted: [PasteboardType] = types.isEmpty ? [.utf8PlainText] : types
                for type in wanted {
                    for candidate in type.equivalents {
                        if var bytes = items.lazy.compactMap({ $0.data(forType: candidate.rawValue) }).first ?? item.data(forType: candidate.rawValue) {
                            if candidate == .string && type.isText { bytes = Latin1.decode(bytes) }
                            try Output.write(bytes)
                            return .success
                        }
                    }
                }
                return fail("history entry \(index) does not have that type", .typeNotOffered)
            case .copy(let index):
                _ = try client.send(.historyCopy(index: UInt32(index)))
            case .delete(let index):
                _ = try client.send(.historyDelete(index: UInt32(index)))
            case .clear:
                _ = try client.send(.historyClear)
            }
            return .success
        } catch let error as DaemonClientError {
            if case .daemon(.notFound, _) = error { return fail("\(error)", .empty) }
            return fail("\(error)")
        } catch {
            return fail("cannot write standard output: \(error)")
        }
    }

    func pause(_ pausing: Bool) -> ExitCode {
        do {
            _ = try daemon().send(pausing ? .pause : .resume)
            return .success
        } catch {
            return fail("\(error)")
        }
    }

    /// "YYYY-MM-DD HH:MM:SS" in UTC, from seconds since 1970 (civil-from-days, no Foundation).
    static func utcTime(_ seconds: Int64) -> String {
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
