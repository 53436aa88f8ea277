import CLISupport
import ControlProtocol
import Pasteboard
import PasteboardCore
import Selection
import XTypes
import SystemSupport
import XClient

/// Carries out one parsed command and returns the exit status; errors are one line on standard error.
struct Runner {
    let programName: String

    func run(_ command: Command) -> ExitCode {
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
        case .status: return daemonStatus()
        case .pasteboards(let request): return pasteboards(request)
        case .watch(let request): return watch(request)
        case .history(let request): return history(request)
        case .pause(let pausing): return pause(pausing)
        case .convert(let request): return convert(request)
        }
    }

    func fail(_ message: String, _ status: ExitCode = .failure) -> ExitCode {
        Output.error("\(programName): \(message)")
        return status
    }

    func status(for error: SelectionReadError, pasteboard: PasteboardName) -> ExitCode {
        switch error {
        case .empty: return fail("\(pasteboard) is empty", .empty)
        case .refused: return fail("\(pasteboard) does not offer that type", .typeNotOffered)
        case .timedOut: return fail("the owner of \(pasteboard) did not answer in time", .timedOut)
        default: return fail("\(error)")
        }
    }

    /// Writes pasted bytes to standard output, without one trailing newline if asked.
    func write(_ bytes: [UInt8], trimmingNewline: Bool) -> ExitCode {
        do { try Output.write(trimmingNewline ? trimmingOneNewline(bytes) : bytes) } catch {
            return fail("cannot write standard output: \(error)")
        }
        return .success
    }

    func connect() -> XConnection? {
        do { return try XConnection() } catch {
            Output.error("\(programName): \(error)")
            return nil
        }
    }

    // MARK: - Reading the selection directly

    func paste(_ request: PasteRequest) -> ExitCode {
        if let index = request.item { return pasteItem(request, index: index) }
        let wanted: [PasteboardType] = request.types.isEmpty ? [.utf8PlainText] : request.types
        // Each wanted type, then the targets that carry the same data, in order; text is asked as
        // UTF8_STRING first, as xclip and xsel do.
        var candidates: [PasteboardType] = []
        for type in wanted {
            // "text" (the default) asks UTF8_STRING first, as xclip and xsel do; a named type is asked as named.
            let family = type == .utf8PlainText ? [PasteboardType.utf8String] + type.equivalents : type.equivalents
            for candidate in family where !candidates.contains(candidate) { candidates.append(candidate) }
        }
        // Content pasteboardd holds comes straight from it, streamed: the same bytes without the X transfer.
        var output = StreamingOutput(trimmingNewline: request.trimNewline)
        switch DaemonClient.pasteHeld(pasteboard: request.pasteboard.rawValue, types: candidates.map(\.rawValue),
                                      environment: Environment.all, timeoutMilliseconds: request.timeoutMilliseconds,
                                      begin: { _, _ in }, sink: { output.write($0) }) {
        case .pasted:
            return output.finish() ? .success : fail("cannot write standard output: \(output.error ?? "")")
        case .stopped:
            return fail("cannot write standard output: \(output.error ?? "")")
        case .failed(let error):
            return fail("the paste from pasteboardd broke off: \(error)")
        case .notHeld:
            break
        }
        guard let x = connect() else { return .failure }
        let reader = SelectionReader(x: x)
        let selection = x.intern(request.pasteboard.rawValue)
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
                return write(bytes, trimmingNewline: request.trimNewline)
            } catch .refused {
                lastError = .refused
                continue
            } catch {
                return status(for: error, pasteboard: request.pasteboard)
            }
        }
        return status(for: lastError, pasteboard: request.pasteboard)
    }

    func types(_ request: TypesRequest) -> ExitCode {
        if request.items { return itemTypes(request) }
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

    func count(_ name: PasteboardName) -> ExitCode {
        guard let x = connect() else { return .failure }
        let property = x.intern("_PASTEBOARD_CHANGE_COUNT_" + name.rawValue)
        let read = x.getProperty(x.root, property, delete: false, maximumBytes: 8)
        guard let value = read.value, value.type == x.atoms.cardinal, let count = value.atoms.first else {
            return fail("no changeCount is published for \(name): is pasteboardd running on this display?")
        }
        Output.line(String(count.rawValue))
        return .success
    }
}

// MARK: - Through the daemon

extension Runner {
    /// The largest copy pb reads, matching the daemon's request cap.
    static let maximumCopyBytes = 300 << 20

    func copy(_ request: CopyRequest) -> ExitCode {
        var representations: [(type: String, data: [UInt8])] = []
        do {
            if request.sources.isEmpty {
                var text = try request.text.map { Array($0.utf8) } ?? FileDescriptor.standardInput.readToEnd(limit: Self.maximumCopyBytes)
                if request.trimNewline { text = trimmingOneNewline(text) }
                if request.detectRichText && text.starts(with: Array("{\\rtf".utf8)) {
                    representations.append((PasteboardType.rtf.rawValue, text))
                    if let plain = RichTextBridge.plainText(fromRTF: text) {
                        representations.append((PasteboardType.utf8PlainText.rawValue, plain))
                    }
                } else {
                    representations.append((PasteboardType.utf8PlainText.rawValue, text))
                }
            } else {
                for source in request.sources {
                    var data: [UInt8]
                    if let path = source.path, path != "-" {
                        data = try FileSystem.readFile(path, limit: Self.maximumCopyBytes)
                    } else if let text = request.text {
                        data = Array(text.utf8)
                    } else {
                        data = try FileDescriptor.standardInput.readToEnd(limit: Self.maximumCopyBytes)
                        if request.trimNewline { data = trimmingOneNewline(data) }
                    }
                    representations.append((source.type.rawValue, data))
                }
            }
        } catch {
            return fail("cannot read the data to copy: \(error)")
        }
        do {
            let item = try ControlProtocol.PasteboardItem(representations)
            let client = try DaemonClient(environment: Environment.all)
            _ = try client.send(.setItems(pasteboard: request.pasteboard.rawValue, items: [item],
                                          options: copyOptions(request)),
                                timeoutMilliseconds: 30_000)
            return .success
        } catch let error as DaemonClientError {
            return fail("\(error)")
        } catch {
            return fail("\(error)")
        }
    }

    func daemonStatus() -> ExitCode {
        do {
            let client = try DaemonClient(environment: Environment.all)
            guard case .status(let pairs) = try client.send(.status) else { return fail("unexpected answer to status") }
            Output.line(pairs.map { "\($0.key): \($0.value)" }.joined(separator: "\n"))
            return .success
        } catch {
            return fail("\(error)")
        }
    }

    func copyOptions(_ request: CopyRequest) -> CopyOptions {
        var options: CopyOptions = []
        if request.sensitive { options.insert(.sensitive) }
        if request.pasteOnce { options.insert(.pasteOnce) }
        return options
    }

    func clear(_ name: PasteboardName) -> ExitCode {
        do {
            let client = try DaemonClient(environment: Environment.all)
            _ = try client.send(.clear(pasteboard: name.rawValue))
            return .success
        } catch {
            return fail("\(error)")
        }
    }
}
