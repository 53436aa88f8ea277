// SPDX-License-Identifier: Apache-2.0
import ControlProtocol
import PasteboardCore
import SystemSupport
import XTypes

/// The daemon's logic without its loop: the selection service, the clipboard manager, the persistent
/// state and one handler per control request kind. `Daemon` feeds it X events, control requests, finished
/// conversions and the time; a test does the same with a fake X server and a manual clock.
public final class DaemonEngine {
    /// Where a request came from and how to answer it.
    public struct Client {
        public var id: UInt64
        /// Answers the request (once) or pushes a `changed` event.
        public var send: (ControlResponse) -> Void
        /// Sets which pasteboards the client watches (nil: none; empty: all).
        public var setWatched: (Set<String>?) -> Void
        /// Closes the connection once the answer is written.
        public var closeAfterAnswer: () -> Void
        /// A client of the remote socket: it has no display of its own, and withheld content is never served
        /// to it (`RemoteAccess`).
        public var isRemote: Bool

        public init(id: UInt64, send: @escaping (ControlResponse) -> Void, setWatched: @escaping (Set<String>?) -> Void = { _ in },
                    closeAfterAnswer: @escaping () -> Void = {}, isRemote: Bool = false) {
            self.id = id
            self.send = send
            self.setWatched = setWatched
            self.closeAfterAnswer = closeAfterAnswer
            self.isRemote = isRemote
        }
    }

    let service: SelectionService
    let manager: ClipboardManager
    private let x: any XDisplay
    private let log: Logger
    private let display: String
    private let stateDirectory: String?
    private var persistedCounts: [PasteboardName: UInt64] = [:]
    private var persistentNames: Set<PasteboardName> = []
    private(set) var configuration: DaemonConfiguration
    /// Tells the watching clients about a change (set by the loop, which knows its clients).
    public var broadcast: ((ControlResponse, String) -> Void)?
    /// The clients connected and watching, for `status` (set by the loop).
    public var clientCounts: () -> (clients: Int, watchers: Int) = { (0, 0) }
    /// Answers being written to clients' sockets (large pastes), counted in `status`'s transfers (set by the loop).
    public var socketTransfers: () -> Int = { 0 }

    /// - Parameters:
    ///   - display: the display the daemon serves, for `read` requests naming one.
    ///   - stateDirectory: where counts, kept content and history live (nil: in memory only).
    public init(x: any XDisplay, clock: any MonotonicClock, configuration: DaemonConfiguration, display: String,
                stateDirectory: String?, log: Logger, table: ConversionTable = .standard) throws {
        self.x = x
        self.log = log
        self.display = display
        self.configuration = configuration
        self.stateDirectory = stateDirectory
        service = try SelectionService(x: x, clock: clock, transferTimeout: .milliseconds(configuration.transferTimeoutMs),
                                       conversionTimeout: .milliseconds(configuration.conversionTimeoutMs),
                                       table: table, log: log)
        service.boards.countStore = CountStore(directory: stateDirectory)
        service.server.conversions.imageLimits = configuration.imageLimits
        manager = ClipboardManager(service: service, clock: clock, log: log, configuration: configuration,
                                   stateDirectory: stateDirectory)
        service.manager = manager
        service.onChange = { [weak self] name, count, state, types, image in
            self?.broadcast?(.changed(pasteboard: name.rawValue, count: count, types: types.map(\.rawValue), state: state.rawValue,
                                      image: image),
                             name.rawValue)
        }
    }

    /// Watches CLIPBOARD, PRIMARY and the persistent pasteboards with their saved counts, restores kept
    /// content and becomes the clipboard manager unless another one is.
    public func start() {
        if let stateDirectory { removeUnfinishedSaves(in: stateDirectory) }
        persistedCounts = service.boards.countStore.load()
        persistentNames = loadPersistentNames()
        service.boards.retiredCounts = persistedCounts
        for name in [PasteboardName.general, .primary] + persistentNames.sorted(by: { $0.rawValue < $1.rawValue }) {
            service.boards.watch(name, persistedCount: persistedCounts[name] ?? 0)
        }
        manager.persistent = persistentNames
        manager.start()
        x.flush()
    }

    /// A clean stop: releases the selections, saves the exact counts, finishes the disk writes.
    public func stop() {
        service.releaseAll()
        service.boards.saveCountsExactly()
        manager.finishWrites()
    }

    // MARK: - What the loop feeds in

    public func handle(_ event: XEventValue) { service.handle(event) }
    public func handle(errors: [XProtocolError]) { service.handle(errors: errors) }
    /// Readable when conversions finished: call `conversionsFinished()`.
    public var conversionsDescriptor: FileDescriptor { service.server.conversions.readyDescriptor }
    public func conversionsFinished() { service.server.conversionsFinished() }

    public var nextDeadline: MonotonicInstant? {
        [service.nextDeadline, manager.nextDeadline].compactMap { $0 }.min()
    }

    public func expire(now: MonotonicInstant) {
        service.expire(now: now)
        manager.expire(now: now)
    }

    /// SIGHUP's new configuration.
    public func reconfigure(_ configuration: DaemonConfiguration) {
        self.configuration = configuration
        manager.configuration = configuration
        service.server.conversions.imageLimits = configuration.imageLimits
    }

    // MARK: - Control requests: one handler per kind

    /// Answers `request` from `client` (at once, or when the X server or a conversion is done).
    public func handle(_ request: ControlRequest, from client: Client) {
        switch request {
        case .hello(let version, _): hello(version: version, client)
        case .setItems(let pasteboard, let items, let options):
            write(pasteboard, items: items, options: options, expiresAfter: nil, appending: false, client)
        case .setExpiringItems(let pasteboard, let items, let options, let milliseconds):
            write(pasteboard, items: items, options: options, expiresAfter: .milliseconds(Int64(milliseconds)), appending: false, client)
        case .addItems(let pasteboard, let items): write(pasteboard, items: items, options: [], expiresAfter: nil, appending: true, client)
        case .items(let pasteboard): items(pasteboard, client)
        case .read(let pasteboard, let types, let display): read(pasteboard, types: types, display: display, client)
        case .targets(let pasteboard): targets(pasteboard, client)
        case .watch(let pasteboards): watch(pasteboards, client)
        case .pasteboards: listPasteboards(client)
        case .createPasteboard(let name, let persistent): createPasteboard(name, persistent: persistent, client)
        case .removePasteboard(let name): removePasteboard(name, client)
        case .clear(let pasteboard): clear(pasteboard, client)
        case .changeCount(let pasteboard): changeCount(pasteboard, client)
        case .status: status(client)
        case .history(let limit): history(limit: limit, client)
        case .historyItem(let index): historyItem(index, client)
        case .historyCopy(let index): historyCopy(index, client)
        case .historyDelete(let index): historyDelete(index, client)
        case .historyClear: historyClear(client)
        case .pause: setPaused(true, client)
        case .resume: setPaused(false, client)
        }
    }

    private func hello(version: UInt8, _ client: Client) {
        guard version == ControlProtocolVersion.current else {
            client.closeAfterAnswer()   // docs/protocol.md: answered, then closed
            client.send(.error(code: .badRequest, message: "protocol version \(version) is not supported (this daemon speaks \(ControlProtocolVersion.current))"))
            return
        }
        client.send(.hello(version: ControlProtocolVersion.current, daemonPID: UInt32(ProcessIdentity.processID),
                           daemonVersion: PasteboardVersion.string))
    }

    /// Sets (or, `appending`, adds to) the content of a pasteboard, watching it first if it is new, and
    /// answers with the new count. Adding to a pasteboard another application owns starts from its items as
    /// pasteboardd holds them: none yet, so the added items become the content. Content that `expiresAfter`
    /// is cleared then, unless the pasteboard changed meanwhile (`SelectionService.own`).
    private func write(_ raw: String, items: [PasteboardItem], options: CopyOptions, expiresAfter: Duration?, appending: Bool,
                       _ client: Client) {
        guard let name = watchedName(raw, client) else { return }
        var content = PasteboardContent(items: items, isSensitive: options.contains(.sensitive), isTransient: expiresAfter != nil,
                                        isLocalOnly: options.contains(.localOnly))
        // Tell other clipboard managers (Klipper, CopyQ) to keep it out of their history too: KDE's hint for
        // secrets, nspasteboard.org's transient marker for content that expires.
        if content.isSensitive { mark(&content, PasteboardType(SnapshotPolicy.passwordManagerHint), Array("secret".utf8)) }
        if content.isTransient { mark(&content, PasteboardType(SnapshotPolicy.transientMarker), []) }
        if appending, let current = service.content(of: name) {
            var joined = current
            joined.items += content.items
            content = joined
        }
        guard content.items.count <= PasteboardLimits.maximumItems else {
            client.send(.error(code: .tooLarge, message: "a pasteboard holds at most \(PasteboardLimits.maximumItems) items"))
            return
        }
        service.own(name, content: content, pasteOnce: options.contains(.pasteOnce), expiresAfter: expiresAfter) {
            client.send(Self.response($0, name))
        }
    }

    /// Adds a marker target to the content's first item, unless some item offers it already (or the item is full).
    private func mark(_ content: inout PasteboardContent, _ marker: PasteboardType, _ value: [UInt8]) {
        guard !content.items.isEmpty, !content.types.contains(marker),
              let marked = try? PasteboardItem(content.items[0].representations + [Representation(type: marker, data: value)]) else { return }
        content.items[0] = marked
    }

    private func items(_ raw: String, _ client: Client) {
        guard let name = validName(raw, client) else { return }
        guard let content = service.content(of: name) else {
            client.send(.error(code: .notFound, message: "\(name) is not held by pasteboardd (another application owns it, or nobody)"))
            return
        }
        if refusedRemotely(content, name, client) { return }
        client.send(.items(content.items))
    }

    private func read(_ raw: String, types: [String], display: String, _ client: Client) {
        guard let name = validName(raw, client) else { return }
        // A remote client has no display of its own: it is answered from what the daemon holds.
        guard client.isRemote || DisplayName.sameServer(display, self.display) else {
            client.send(.error(code: .notFound, message: "pasteboardd serves another X display"))
            return
        }
        if let content = service.content(of: name), refusedRemotely(content, name, client) { return }
        service.server.read(name, types: types) { outcome in
            switch outcome {
            case .value(let type, let bytes):
                if let item = try? PasteboardItem([Representation(type: PasteboardType(type), data: bytes)]) {
                    client.send(.items([item]))
                } else {
                    client.send(.error(code: .internal, message: "the type \(type) cannot be sent"))
                }
            case .notHeld:
                client.send(.error(code: .notFound, message: "\(name) is not held by pasteboardd (another application owns it, or nobody)"))
            case .notOffered(let why): client.send(.error(code: .typeNotOffered, message: why))
            case .conversionFailed(let why): client.send(.error(code: .conversionFailed, message: why))
            case .timedOut(let why): client.send(.error(code: .timedOut, message: why))
            }
        }
    }

    /// The TARGETS list of a pasteboard the daemon holds, as an X requestor would get it.
    private func targets(_ raw: String, _ client: Client) {
        guard let name = validName(raw, client) else { return }
        guard let served = service.boards.board(named: name)?.served else {
            client.send(.error(code: .notFound, message: "\(name) is not held by pasteboardd (another application owns it, or nobody)"))
            return
        }
        if refusedRemotely(served.content, name, client) { return }
        client.send(.targets(service.executor.responder.targetsList(offered: served.listed).compactMap { x.name(of: $0) }))
    }

    private func watch(_ pasteboards: [String], _ client: Client) {
        var names: Set<String> = []
        for raw in pasteboards {
            // Watching a pasteboard asks the daemon to follow it: a new name is watched from now on.
            guard let name = watchedName(raw, client) else { return }
            names.insert(name.rawValue)
        }
        client.setWatched(names)
        client.send(.ok)
    }

    private func listPasteboards(_ client: Client) {
        client.send(.pasteboards(service.boards.all.map {
            PasteboardInfo(name: $0.name.rawValue, changeCount: $0.counter.count,
                           persistent: persistentNames.contains($0.name), owned: $0.served != nil)
        }))
    }

    private func createPasteboard(_ raw: String, persistent: Bool, _ client: Client) {
        guard let name = PasteboardName.named(raw), !name.isStandard else {
            client.send(.error(code: .badRequest, message: "'\(raw)' cannot be created: a name is 1 to \(PasteboardLimits.maximumPasteboardNameLength) bytes without control characters, and CLIPBOARD, PRIMARY and SECONDARY always exist"))
            return
        }
        guard watchedName(raw, client) != nil else { return }
        if persistent { persistentNames.insert(name) } else { persistentNames.remove(name) }
        manager.persistent = persistentNames
        savePersistentNames()
        client.send(.changeCount(pasteboard: name.rawValue, count: service.count(of: name) ?? 0))
    }

    private func removePasteboard(_ raw: String, _ client: Client) {
        guard let name = PasteboardName.named(raw), !name.isStandard else {
            client.send(.error(code: .badRequest, message: "'\(raw)' cannot be removed: CLIPBOARD, PRIMARY and SECONDARY always exist"))
            return
        }
        guard service.count(of: name) != nil else {
            client.send(.error(code: .notFound, message: "no pasteboard named \(name)"))
            return
        }
        let count = service.count(of: name) ?? 0
        service.unwatch(name)
        manager.forget(name)
        persistentNames.remove(name)
        savePersistentNames()
        broadcast?(.changed(pasteboard: name.rawValue, count: count, types: [], state: ChangeState.removed.rawValue, image: nil), name.rawValue)
        client.send(.ok)
    }

    private func clear(_ raw: String, _ client: Client) {
        guard let name = watchedName(raw, client) else { return }
        service.clear(name) { client.send(Self.response($0, name)) }
    }

    /// A pasteboard's count; one not watched has the count it was left at (0 if never seen): looking it up
    /// does not start watching it.
    private func changeCount(_ raw: String, _ client: Client) {
        guard let name = validName(raw, client) else { return }
        let count = service.count(of: name) ?? service.boards.retiredCounts[name] ?? 0
        client.send(.changeCount(pasteboard: name.rawValue, count: count))
    }

    private func status(_ client: Client) {
        let (clients, watchers) = clientCounts()
        var pairs = [StatusPair("version", PasteboardVersion.string),
                     StatusPair("display", display),
                     StatusPair("incr-chunk-bytes", String(service.chunkSize)),
                     StatusPair("transfers", String(service.transfers.count + socketTransfers())),
                     StatusPair("conversions", String(service.server.conversions.pendingCount)),
                     StatusPair("clients", String(clients)),
                     StatusPair("watchers", String(watchers)),
                     StatusPair("recording", manager.paused ? "paused" : "on"),
                     StatusPair("snapshots", String(manager.snapshotsInProgress)),
                     StatusPair("writes", String(manager.writer.pendingCount)),
                     StatusPair("history", String(manager.history.entries.count))]
        for board in service.boards.all {
            pairs.append(StatusPair("count." + board.name.rawValue, String(board.counter.count)))
            pairs.append(StatusPair("owned." + board.name.rawValue, board.served == nil ? "no" : "yes"))
        }
        client.send(.status(pairs: pairs))
    }

    private func history(limit: UInt32, _ client: Client) {
        let entries = manager.history.entries.prefix(Int(limit == 0 ? UInt32.max : limit)).enumerated().map { index, entry in
            HistoryEntry(index: UInt32(index), timestamp: entry.time, pasteboard: entry.pasteboard.rawValue,
                         types: entry.types, size: entry.size, preview: entry.preview)
        }
        client.send(.history(Array(entries)))
    }

    /// History entry `index`'s content, logging what of it could not be read back (never content).
    private func historyContent(_ index: UInt32) -> PasteboardContent? {
        var skipped: [SkippedRepresentation] = []
        let content = manager.history.content(at: Int(index), skipped: &skipped)
        if !skipped.isEmpty { log.info("history entry \(index) is read without \(skipped.count) of its types: \(skipped.summary())") }
        return content
    }

    private func historyItem(_ index: UInt32, _ client: Client) {
        guard let content = historyContent(index) else {
            client.send(.error(code: .notFound, message: "no history entry \(index)"))
            return
        }
        client.send(.items(content.items))
    }

    private func historyCopy(_ index: UInt32, _ client: Client) {
        guard let content = historyContent(index) else {
            client.send(.error(code: .notFound, message: "no history entry \(index)"))
            return
        }
        service.own(.general, content: content) { client.send(Self.response($0, .general)) }
    }

    private func historyDelete(_ index: UInt32, _ client: Client) {
        // Answered once the entry's file is gone from the disk too, as a user deleting it expects.
        guard manager.history.delete(at: Int(index)) else {
            client.send(.error(code: .notFound, message: "no history entry \(index)"))
            return
        }
        manager.finishWrites()
        client.send(.ok)
    }

    private func historyClear(_ client: Client) {
        manager.history.clear()
        manager.finishWrites()
        log.info("history cleared")
        client.send(.ok)
    }

    private func setPaused(_ paused: Bool, _ client: Client) {
        manager.paused = paused
        log.info(paused ? "recording paused" : "recording resumed")
        client.send(.ok)
    }

    // MARK: - Names

    /// A valid pasteboard name from a client, or nil after answering an error. Never starts watching.
    private func validName(_ raw: String, _ client: Client) -> PasteboardName? {
        guard let name = PasteboardName.named(raw) else {
            client.send(.error(code: .badRequest, message: "invalid pasteboard name"))
            return nil
        }
        return name
    }

    /// A valid pasteboard name that the daemon watches — starting to watch it when the request asks the
    /// daemon to act on it (write, clear, watch, create) — or nil after answering an error.
    private func watchedName(_ raw: String, _ client: Client) -> PasteboardName? {
        guard let name = validName(raw, client) else { return nil }
        if service.count(of: name) == nil {
            guard service.boards.count < PasteboardLimits.maximumPasteboards else {
                client.send(.error(code: .tooLarge, message: "too many pasteboards (at most \(PasteboardLimits.maximumPasteboards))"))
                return nil
            }
            service.boards.watch(name, persistedCount: persistedCounts[name] ?? 0)
        }
        return name
    }

    private static func response(_ result: Result<UInt64, OwnershipError>, _ name: PasteboardName) -> ControlResponse {
        switch result {
        case .success(let count): .changeCount(pasteboard: name.rawValue, count: count)
        case .failure(let error): .error(code: .unavailable, message: "\(error)")
        }
    }

    // MARK: - Persistent state

    /// Removes the temporary files of saves that a killed pasteboardd left half-written in the state
    /// directory (counts, clipboard.archive, pasteboards), in `pasteboards.d` and in `history`, before
    /// anything reads or writes there; logs one line when there were any. The saved files themselves
    /// are whole: AtomicFile renames only complete files.
    private func removeUnfinishedSaves(in directory: String) {
        let removed = [directory, directory + "/pasteboards.d", directory + "/history"]
            .reduce(0) { $0 + AtomicFile.removeAbandonedTemporaryFiles(in: $1) }
        if removed > 0 { log.info("removed \(removed) unfinished save(s) left by a pasteboardd that was killed") }
    }

    private var persistentNamesPath: String? { stateDirectory.map { $0 + "/pasteboards" } }

    private func savePersistentNames() {
        guard let path = persistentNamesPath else { return }
        let text = persistentNames.map(\.rawValue).sorted().map { $0 + "\n" }.joined()
        do { try AtomicFile.write(Array(text.utf8), to: path) } catch {
            log.warning("cannot save the list of persistent pasteboards: \(error)")
        }
    }

    private func loadPersistentNames() -> Set<PasteboardName> {
        guard let path = persistentNamesPath, let bytes = try? FileSystem.readFile(path, limit: 1 << 20) else { return [] }
        return Set(String(decoding: bytes, as: UTF8.self).split(separator: "\n").compactMap { PasteboardName.named(String($0)) }
            .filter { !$0.isStandard })
    }
}
