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
        var parts: [StreamedRepresentation] = []
        var unread: [SkippedRepresentation] = []
        do {
            if request.sources.isEmpty, let picture = try Self.pictureOperand(request.operands) {
                parts.append(.whole(picture))
            } else if request.sources.isEmpty {
                parts = try Self.textParts(request)
            } else {
                for source in request.sources {
                    if let path = source.path, path != "-" {
                        // A file that cannot be read costs its type only: the rest is copied (status 1). A large
                        // regular file is sent from where it is, never whole in memory (pictures too: their header
                        // is checked from their first bytes).
                        do {
                            if let file = try CopiedFile.open(path, limit: Self.maximumCopyBytes) {
                                parts.append(.whole(Representation(type: source.type, source: file)))
                            } else {
                                parts.append(.whole(Representation(type: source.type, data: try FileSystem.readFile(path, limit: Self.maximumCopyBytes))))
                            }
                        } catch {
                            unread.append(SkippedRepresentation(source.type, "cannot read \(Self.shown(path)): \(error)"))
                        }
                    } else if let text = request.text {
                        parts.append(.whole(Representation(type: source.type, data: Array(text.utf8))))
                    } else {
                        parts.append(try Self.standardInput(as: source.type, trimmingNewline: request.trimNewline))
                    }
                }
            }
        } catch {
            return fail("cannot read the data to copy: \(error)")
        }
        for part in parts where ConversionTable.standard.family(of: part.type) == .image {
            if case .whole(let representation) = part, let problem = Self.pictureProblem(representation) {
                Output.error("\(programName): warning: \(part.type.logName): \(problem): copied as given; no other picture type is made from it")
            }
        }
        // A type that cannot be kept (its file unreadable, past the limit) costs only itself: the rest is
        // copied, each one left out is named on standard error, and the status is 1.
        let (kept, left) = PasteboardItem.keeping(parts.map { part in
            if case .whole(let representation) = part { return representation }
            return Representation(type: part.type, data: [])
        })
        let skipped = unread + left
        for left in skipped { Output.error("\(programName): not copied: \(left)") }
        guard let item = kept else { return fail("nothing to copy") }
        let streams = Self.keptParts(parts, of: item)
        let board = board(request.pasteboard)
        let progress = ProgressDisplay.start()
        board.progress = progress.map { progress in { progress.update($0, $1) } }
        defer { progress?.finish() }
        do {
            // Input that goes on past what is read first is sent in pieces as it is read; anything else in one request.
            if let streams { try board.setItem(streaming: streams, options: request.options) } else { try board.setItems([item], options: request.options) }
            progress?.finish()
            return skipped.isEmpty ? .success : .failure
        } catch PasteboardError.daemonNotRunning(let why) {
            // Over SSH: no daemon, no display, but the terminal in front of the user can copy text. Not when
            // PASTEBOARD_SOCKET names a forward: that it does not answer is what the user must hear.
            if Environment.value(ForwardedSocket.socketVariable).map({ $0.isEmpty }) ?? true,
               let text = parts.first(where: { $0.type == .utf8PlainText }), terminalTakes(request) {
                guard case .whole(let whole) = text else {
                    return fail("standard input is more than a terminal takes through OSC 52 (\(OSC52.maximumBytes) bytes, "
                                + "\(OSC52.maximumEncodedLength) base64 characters); nothing was copied")
                }
                return copyThroughTerminal(whole.data, pasteboard: request.pasteboard)
            }
            return fail(why)
        } catch {
            return fail("\(error)")
        }
    }

    /// Of `parts`, those `item` kept (`PasteboardItem.keeping`: a type given twice keeps its first), in order,
    /// when one of them is a stream; nil when none is (the item is sent whole).
    static func keptParts(_ parts: [StreamedRepresentation], of item: PasteboardItem) -> [StreamedRepresentation]? {
        guard parts.contains(where: { if case .stream = $0 { true } else { false } }) else { return nil }
        var wanted = Set(item.types)
        return parts.filter { wanted.remove($0.type) != nil }
    }

    static let rtfMagic = Array("{\\rtf".utf8)

    /// What `pb copy` without `-t` copies: the text given, or standard input — RTF (`{\rtf` first) as RTF and the
    /// plain text made from it, anything else as plain text. Standard input that is a large regular file is sent
    /// from it (`CopiedFile`); a pipe that goes on past `PipedInput.wholeUpTo` is sent in pieces as it is read.
    /// Either way RTF is then sent alone (its plain text is made by pasteboardd when asked, from the whole of it).
    static func textParts(_ request: CopyRequest) throws -> [StreamedRepresentation] {
        let detectsRTF = request.detectRichText
        if request.text == nil, let file = try CopiedFile.standardInput(limit: maximumCopyBytes, trimmingNewline: request.trimNewline) {
            let rtf = try detectsRTF && file.read(0..<5) == rtfMagic
            return [.whole(Representation(type: rtf ? .rtf : .utf8PlainText, source: file))]
        }
        var text: [UInt8]
        if let given = request.text {
            text = request.trimNewline ? trimmingOneNewline(Array(given.utf8)) : Array(given.utf8)
        } else {
            switch try PipedInput.start(limit: maximumCopyBytes, trimmingNewline: request.trimNewline) {
            case .whole(let bytes): text = bytes
            case .continuing(let input):
                return [.stream(detectsRTF && input.first(5) == rtfMagic ? .rtf : .utf8PlainText, input)]
            }
        }
        guard detectsRTF && text.starts(with: rtfMagic) else { return [.whole(Representation(type: .utf8PlainText, data: text))] }
        var parts: [StreamedRepresentation] = [.whole(Representation(type: .rtf, data: text))]
        if let plain = RichTextBridge.plainText(fromRTF: text) { parts.append(.whole(Representation(type: .utf8PlainText, data: plain))) }
        return parts
    }

    /// Standard input as `type` (`-t TYPE` without a file): sent from the file when it is a large regular one,
    /// in pieces as it is read when it is a pipe that goes on past `PipedInput.wholeUpTo`, whole otherwise.
    static func standardInput(as type: PasteboardType, trimmingNewline: Bool) throws -> StreamedRepresentation {
        if let file = try CopiedFile.standardInput(limit: maximumCopyBytes, trimmingNewline: trimmingNewline) {
            return .whole(Representation(type: type, source: file))
        }
        switch try PipedInput.start(limit: maximumCopyBytes, trimmingNewline: trimmingNewline) {
        case .whole(let bytes): return .whole(Representation(type: type, data: bytes))
        case .continuing(let input): return .stream(type, input)
        }
    }

    /// How much of a picture sent from its file is read to check its header.
    static let pictureHeaderBytes = CopiedFile.streamedFrom

    /// Why `picture` is no picture pasteboard can read (`PasteboardContent.pictureProblem`), judged from its
    /// header: of a picture sent from its file, only its first `pictureHeaderBytes` are read, and a header that
    /// goes on past them (a TIFF whose first directory is at its end, a JPEG with more metadata than that before
    /// its frame header) is not judged here — pasteboardd still judges the whole picture when it converts it.
    static func pictureProblem(_ picture: Representation) -> String? {
        guard let source = picture.source, source.count > pictureHeaderBytes else { return PasteboardContent.pictureProblem(picture.data) }
        guard let head = try? source.read(0..<pictureHeaderBytes) else { return nil }
        return PasteboardContent.pictureProblem(head, truncatedAt: source.count)
    }

    /// `pb copy shot.png`: a lone operand naming a regular file whose content is a picture (by its magic
    /// bytes, whatever its name) is that picture, under the type its content has; anything else is text. A large
    /// one is sent from the file (its first bytes are all pb reads of it).
    static func pictureOperand(_ operands: [String]) throws -> Representation? {
        guard operands.count == 1, let path = operands.first, (try? FileSystem.status(path).kind) == .regular else { return nil }
        if let file = try CopiedFile.open(path, limit: maximumCopyBytes) {
            return PasteboardType.imageType(of: try file.read(0..<64)).map { Representation(type: $0, source: file) }
        }
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
