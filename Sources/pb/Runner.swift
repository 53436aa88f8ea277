// SPDX-License-Identifier: Apache-2.0
import CLISupport
import Pasteboard
import SystemSupport

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
        case .displays(let request): return displays(request)
        case .peer(let request): return peer(request)
        case .pasteboards(let request): return pasteboards(request)
        case .watch(let request): return watch(request)
        case .history(let request): return history(request)
        case .pause(let pausing): return pause(pausing)
        case .convert(let request): return convert(request)
        case .ssh(let arguments): return ssh(arguments)
        case .sshPeer(let arguments): return sshPeer(arguments)
        case .sshCleanup(let master, let parent): return sshCleanup(master, parent: parent)
        }
    }

    func fail(_ message: String, _ status: ExitCode = .failure) -> ExitCode {
        Output.error("\(programName): \(message)")
        return status
    }

    /// The message and exit status for a library error about `pasteboard`.
    func fail(_ error: PasteboardError, pasteboard: PasteboardName) -> ExitCode {
        switch error {
        case .empty: return fail("\(pasteboard) is empty", .empty)
        case .notHeld(let why): return fail(why, .empty)
        case .typeNotPresent(let type): return fail("\(pasteboard) does not offer \(type), nor anything that converts to it", .typeNotOffered)
        case .badReply(let why): return fail(why, .typeNotOffered)
        case .timedOut: return fail("the owner of \(pasteboard) did not answer in time", .timedOut)
        case .conversionFailed(let why): return fail(why, .conversionFailed)
        default: return fail("\(error)")
        }
    }

    /// Writes bytes to standard output, without one trailing newline if asked.
    func write(_ bytes: [UInt8], trimmingNewline: Bool) -> ExitCode {
        do { try Output.write(trimmingNewline ? trimmingOneNewline(bytes) : bytes) } catch {
            return fail("cannot write standard output: \(error)")
        }
        return .success
    }

    func board(_ name: PasteboardName, timeoutMilliseconds: Int = 5000) -> Pasteboard {
        let board = Pasteboard(name: name)
        board.timeoutMilliseconds = timeoutMilliseconds
        return board
    }

    // MARK: - Reading

    /// Pastes the first of the wanted types the pasteboard offers or converts to (text, as UTF-8, by
    /// default), streamed to standard output.
    func paste(_ request: PasteRequest) -> ExitCode {
        if request.files { return pasteFiles(request) }
        if let index = request.item { return pasteItem(request, index: index) }
        let wanted: [PasteboardType] = request.types.isEmpty ? [.utf8String] : request.types
        let board = board(request.pasteboard, timeoutMilliseconds: request.timeoutMilliseconds)
        var output = StreamingOutput(trimmingNewline: request.trimNewline)
        var lastError = PasteboardError.typeNotPresent(wanted[0])
        let progress = ProgressDisplay.start()
        board.progress = progress.map { progress in { progress.update($0, $1) } }
        defer { progress?.finish() }
        for type in wanted {
            do {
                try board.paste(type) { output.write($0) }
                progress?.finish()
                return output.finish() ? .success : fail("cannot write standard output: \(output.error ?? "")")
            } catch .typeNotPresent {
                lastError = .typeNotPresent(type)
                continue
            } catch {
                if let why = output.error { return fail("cannot write standard output: \(why)") }
                return fail(error, pasteboard: request.pasteboard)
            }
        }
        return fail(lastError, pasteboard: request.pasteboard)
    }

    func types(_ request: TypesRequest) -> ExitCode {
        if request.items { return itemTypes(request) }
        do {
            let types = try board(request.pasteboard, timeoutMilliseconds: request.timeoutMilliseconds).targets
            try Output.write(Array(types.map { $0.rawValue + "\n" }.joined().utf8))
            return .success
        } catch let error as PasteboardError {
            return fail(error, pasteboard: request.pasteboard)
        } catch {
            return fail("cannot write standard output: \(error)")
        }
    }

    func count(_ name: PasteboardName) -> ExitCode {
        do {
            Output.line(String(try board(name).publishedChangeCount))
            return .success
        } catch {
            return fail("\(error)")
        }
    }

    // MARK: - Writing

    /// The largest copy pb reads: what one control message may carry (the daemon's own cap, by default).
    static let maximumCopyBytes = PasteboardLimits.maximumCopyBytes

    func copy(_ request: CopyRequest) -> ExitCode {
        if !request.files.isEmpty { return copyFiles(request) }
        if request.osc52 { return copyThroughTerminal(request) }
        var representations: [Representation] = []
        var unread: [SkippedRepresentation] = []
        do {
            if request.sources.isEmpty, let picture = try Self.pictureOperand(request.operands) {
                representations.append(picture)
            } else if request.sources.isEmpty, request.text == nil, let file = try Self.streamedStandardInput(request) {
                representations.append(Representation(type: .utf8PlainText, source: file))
            } else if request.sources.isEmpty {
                var text = try request.text.map { Array($0.utf8) } ?? FileDescriptor.standardInput.readToEnd(limit: Self.maximumCopyBytes)
                if request.trimNewline { text = trimmingOneNewline(text) }
                if request.detectRichText && text.starts(with: Array("{\\rtf".utf8)) {
                    representations.append(Representation(type: .rtf, data: text))
                    if let plain = RichTextBridge.plainText(fromRTF: text) {
                        representations.append(Representation(type: .utf8PlainText, data: plain))
                    }
                } else {
                    representations.append(Representation(type: .utf8PlainText, data: text))
                }
            } else {
                for source in request.sources {
                    var data: [UInt8]
                    // Pictures are read whole (their header is checked below, and the daemon converts them);
                    // other large regular files are sent from where they are, never whole in memory.
                    let streams = ConversionTable.standard.family(of: source.type) != .image
                    if let path = source.path, path != "-" {
                        // A file that cannot be read costs its type only: the rest is copied (status 1).
                        do {
                            if streams, let file = try CopiedFile.open(path, limit: Self.maximumCopyBytes) {
                                representations.append(Representation(type: source.type, source: file))
                                continue
                            }
                            data = try FileSystem.readFile(path, limit: Self.maximumCopyBytes)
                        } catch {
                            unread.append(SkippedRepresentation(source.type, "cannot read \(Self.shown(path)): \(error)"))
                            continue
                        }
                    } else if let text = request.text {
                        data = Array(text.utf8)
                    } else if streams, let file = try CopiedFile.standardInput(limit: Self.maximumCopyBytes, trimmingNewline: request.trimNewline) {
                        representations.append(Representation(type: source.type, source: file))
                        continue
                    } else {
                        data = try FileDescriptor.standardInput.readToEnd(limit: Self.maximumCopyBytes)
                        if request.trimNewline { data = trimmingOneNewline(data) }
                    }
                    representations.append(Representation(type: source.type, data: data))
                }
            }
        } catch {
            return fail("cannot read the data to copy: \(error)")
        }
        // A type that cannot be kept (its file unreadable, past the limit) costs only itself: the rest is
        // copied, each one left out is named on standard error, and the status is 1.
        for representation in representations where ConversionTable.standard.family(of: representation.type) == .image {
            if let problem = PasteboardContent.pictureProblem(representation.data) {
                Output.error("\(programName): warning: \(representation.type.logName): \(problem): copied as given; no other picture type is made from it")
            }
        }
        let (kept, left) = PasteboardItem.keeping(representations)
        let skipped = unread + left
        for left in skipped { Output.error("\(programName): not copied: \(left)") }
        guard let item = kept else { return fail("nothing to copy") }
        let board = board(request.pasteboard)
        let progress = ProgressDisplay.start()
        board.progress = progress.map { progress in { progress.update($0, $1) } }
        defer { progress?.finish() }
        do {
            try board.setItems([item], options: request.options)
            progress?.finish()
            return skipped.isEmpty ? .success : .failure
        } catch PasteboardError.daemonNotRunning(let why) {
            // Over SSH: no daemon, no display, but the terminal in front of the user can copy text. Not when
            // PASTEBOARD_SOCKET names a forward: that it does not answer is what the user must hear.
            if Environment.value(ForwardedSocket.socketVariable).map({ $0.isEmpty }) ?? true,
               let text = representations.first(where: { $0.type == .utf8PlainText })?.data, terminalTakes(request) {
                return copyThroughTerminal(text, pasteboard: request.pasteboard)
            }
            return fail(why)
        } catch {
            return fail("\(error)")
        }
    }

    /// Standard input as a file to send from where it is (`CopiedFile.standardInput`), when it is a large
    /// regular file holding no RTF that `pb copy` would detect (that is read whole, to make its plain text).
    static func streamedStandardInput(_ request: CopyRequest) throws -> CopiedFile? {
        guard let file = try CopiedFile.standardInput(limit: maximumCopyBytes, trimmingNewline: request.trimNewline) else { return nil }
        if request.detectRichText, try file.read(0..<5) == Array("{\\rtf".utf8) { return nil }
        return file
    }

    /// `pb copy shot.png`: a lone operand naming a regular file whose content is a picture (by its magic
    /// bytes, whatever its name) is that picture, under the type its content has; anything else is text.
    static func pictureOperand(_ operands: [String]) throws -> Representation? {
        guard operands.count == 1, let path = operands.first, (try? FileSystem.status(path).kind) == .regular else { return nil }
        let data = try FileSystem.readFile(path, limit: maximumCopyBytes)
        return PasteboardType.imageType(of: data).map { Representation(type: $0, data: data) }
    }

    func clear(_ name: PasteboardName) -> ExitCode {
        do {
            try board(name).clear()
            return .success
        } catch {
            return fail("\(error)")
        }
    }
}

extension CopyRequest {
    /// What the library is asked to do with the copy.
    var options: PasteboardOptions {
        PasteboardOptions(expiresAfter: expiresAfterMilliseconds.map { .milliseconds(Int64($0)) }, localOnly: localOnly,
                          sensitive: sensitive, pasteOnce: pasteOnce)
    }
}
