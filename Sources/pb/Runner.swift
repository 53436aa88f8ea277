import CLISupport
import Pasteboard
import PasteboardCore
import Selection
import SystemSupport
import XClient

/// Carries out one parsed command and returns the exit status; errors are one line on standard error.
struct Runner {
    let programName: String

    func run(_ command: Command) -> ExitStatus {
        switch command {
        case .help(let topic):
            Output.line(Usage.text(for: topic ?? (programName == "pb" ? nil : programName)))
            return .success
        case .version:
            Output.line("pb \(PasteboardVersion.string)")
            return .success
        case .paste(let request): return paste(request)
        case .types(let request): return types(request)
        case .count(let name): return count(name)
        case .copy(let request): return copy(request)
        case .clear(let name): return clear(name)
        case .convert(let request): return convert(request)
        }
    }

    func fail(_ message: String, _ status: ExitStatus = .failure) -> ExitStatus {
        Output.error("\(programName): \(message)")
        return status
    }

    func status(for error: SelectionReadError, pasteboard: PasteboardName) -> ExitStatus {
        switch error {
        case .empty: return fail("\(pasteboard) is empty", .empty)
        case .refused: return fail("\(pasteboard) does not offer that type", .typeNotOffered)
        case .timedOut: return fail("the owner of \(pasteboard) did not answer in time", .timedOut)
        default: return fail("\(error)")
        }
    }

    func connect() -> XConnection? {
        do { return try XConnection() } catch {
            Output.error("\(programName): \(error)")
            return nil
        }
    }

    // MARK: - Reading the selection directly

    func paste(_ request: PasteRequest) -> ExitStatus {
        guard let x = connect() else { return .failure }
        let reader = SelectionReader(x: x)
        let selection = x.intern(request.pasteboard.rawValue)
        let wanted: [PasteboardType] = request.types.isEmpty ? [.utf8PlainText] : request.types
        // Each wanted type, then the targets that carry the same data, in order; text is asked as
        // UTF8_STRING first, as xclip and xsel do.
        var candidates: [PasteboardType] = []
        for type in wanted {
            let family = type.isText ? [PasteboardType.utf8String] + type.equivalents : type.equivalents
            for candidate in family where !candidates.contains(candidate) { candidates.append(candidate) }
        }
        var lastError = SelectionReadError.refused
        for candidate in candidates {
            do {
                let value = try reader.read(selection, target: x.intern(candidate.rawValue),
                                            timeoutMilliseconds: request.timeoutMilliseconds)
                var bytes: [UInt8]
                if candidate.isText {
                    guard let text = TextTargets(atoms: x.atoms).utf8(from: value, decodeCompoundText: x.utf8(fromCompoundText:)) else {
                        continue
                    }
                    bytes = text
                } else {
                    guard let raw = value.bytes else { return fail("the owner sent \(candidate) as \(value.format)-bit data") }
                    bytes = raw
                }
                if request.trimNewline { bytes = trimmingOneNewline(bytes) }
                do { try Output.write(bytes) } catch { return fail("cannot write standard output: \(error)") }
                return .success
            } catch .refused {
                lastError = .refused
                continue
            } catch {
                return status(for: error, pasteboard: request.pasteboard)
            }
        }
        return status(for: lastError, pasteboard: request.pasteboard)
    }

    func types(_ request: TypesRequest) -> ExitStatus {
        guard let x = connect() else { return .failure }
        let reader = SelectionReader(x: x)
        do {
            let names = try reader.targets(x.intern(request.pasteboard.rawValue), timeoutMilliseconds: request.timeoutMilliseconds)
            try Output.write(Array(names.map { $0 + "\n" }.joined().utf8))
            return .success
        } catch let error as SelectionReadError {
            return status(for: error, pasteboard: request.pasteboard)
        } catch {
            return fail("cannot write standard output: \(error)")
        }
    }

    func count(_ name: PasteboardName) -> ExitStatus {
        guard let x = connect() else { return .failure }
        let property = x.intern("_PASTEBOARD_CHANGE_COUNT_" + name.rawValue)
        let read = x.getProperty(x.root, property, delete: false, maximumBytes: 8)
        guard let value = read.value, value.type == x.atoms.cardinal, let count = value.atoms.first else {
            return fail("no changeCount is published for \(name): is pasteboardd running on this display?")
        }
        Output.line(String(count.rawValue))
        return .success
    }

    func trimmingOneNewline(_ bytes: [UInt8]) -> [UInt8] {
        if bytes.last == 0x0A {
            return Array(bytes.dropLast(bytes.count >= 2 && bytes[bytes.count - 2] == 0x0D ? 2 : 1))
        }
        return bytes
    }
}
