import ControlProtocol
import PasteboardCore
import Selection
import XTypes
import SystemSupport
import XClient

/// pasteboardd: one poll loop over the X connection, the control socket and its clients, and a
/// signalfd; timers for timeouts. Idle means blocked in poll with no timeout: zero wakeups.
public final class Daemon {
    private let options: DaemonOptions
    private let environment: [String: String]
    private let log: Logger
    private let clock = SystemClock()
    private var x: XConnection!
    private var service: SelectionService!
    private var server: ControlServer!
    private var signals: SignalDescriptor!
    private var notifier: SystemdNotifier
    private var stopping = false
    /// When the next WATCHDOG=1 is due (half of systemd's WatchdogSec), if systemd asked for them.
    private var watchdogDue: MonotonicInstant?
    private var persistedCounts: [PasteboardName: UInt64] = [:]
    private var configuration: DaemonConfiguration
    private var manager: ClipboardManager!
    private var persistentNames: Set<PasteboardName> = []
    private var stateDirectory: String?

    public init(options: DaemonOptions, environment: [String: String], configuration: DaemonConfiguration = DaemonConfiguration()) {
        self.options = options
        self.environment = environment
        self.configuration = configuration
        log = Logger(environment: environment, verbose: options.verbose)
        notifier = SystemdNotifier(environment: environment)
    }

    /// Runs until SIGTERM/SIGINT (status 0) or until the X connection is lost or start-up fails
    /// (non-zero, so that systemd restarts it).
    public func run() -> Int32 {
        do {
            signals = try SignalDescriptor(signals: [.terminate, .interrupt, .hangup])
            try? Signals.ignore(.pipe)
        } catch {
            log.error("\(error)")
            return 1
        }
        guard let connection = connectWithBackOff() else { return stopping ? 0 : 1 }
        x = connection
        guard x.xfixesEventBase != nil else {
            log.error("the X server lacks the XFixes extension, which pasteboardd needs to watch owners")
            return 1
        }
        service = SelectionService(x: x, clock: clock, transferTimeout: .milliseconds(configuration.transferTimeoutMs), log: log)
        let directories = XDGDirectories(environment: environment)
        do {
            stateDirectory = try directories.createState()
            service.countStore = CountStore(directory: stateDirectory)
        } catch {
            log.warning("cannot use the state directory, counts are kept in memory: \(error)")
        }
        if let stateDirectory { removeUnfinishedSaves(in: stateDirectory) }
        persistedCounts = service.countStore.load()
        service.watch(.general, persistedCount: persistedCounts[.general] ?? 0)
        service.watch(.primary, persistedCount: persistedCounts[.primary] ?? 0)
        persistentNames = loadPersistentNames()
        for name in persistentNames.sorted(by: { $0.rawValue < $1.rawValue }) {
            service.watch(name, persistedCount: persistedCounts[name] ?? 0)
        }
        service.retiredCounts = persistedCounts.filter { name, _ in service.count(of: name) == nil }
        service.onChange = { [weak self] name, count, state, types in self?.broadcast(name, count, state, types) }
        manager = ClipboardManager(service: service, clock: clock, log: log, configuration: configuration,
                                   stateDirectory: stateDirectory)
        service.manager = manager
        manager.persistent = persistentNames
        manager.start()
        do {
            _ = try directories.createRuntime()
            server = try ControlServer(path: directories.controlSocket, userID: ProcessIdentity.userID, log: log,
                                       maximumFrameLength: options.maximumRequestBytes,
                                       maximumClients: controlClientCap())
        } catch {
            log.error("cannot listen on \(directories.controlSocket): \(error)")
            return 1
        }
        x.flush()
        log.info("serving CLIPBOARD and PRIMARY on \(options.display ?? environment["DISPLAY"] ?? "the default display"), control socket \(directories.controlSocket)")
        try? notifier.ready(status: "serving CLIPBOARD and PRIMARY on \(options.display ?? environment["DISPLAY"] ?? "")")
        watchdogDue = notifier.watchdogInterval.map { clock.now() + $0 / 2 }

        let status = loop()

        try? notifier.stopping()
        service.releaseAll()
        service.saveCountsExactly()
        manager?.finishWrites()
        server.close()
        log.info(status == 0 ? "stopped" : "exiting with status \(status)")
        return status
    }

    /// Opens the display, waiting while the X server is not up yet (as at session start): retries after
    /// 0.25 s, doubling to at most 10 s, answering SIGTERM meanwhile. With no display named at all there
    /// is nothing to wait for: that is an error at once.
    private func connectWithBackOff() -> XConnection? {
        let name = options.display ?? environment["DISPLAY"]
        guard let name, !name.isEmpty else {
            log.error("no X display: DISPLAY is not set (for the user service: systemctl --user import-environment DISPLAY)")
            return nil
        }
        var delay: Duration = .milliseconds(250)
        var attempts = 0
        while true {
            if let connection = try? XConnection(displayName: name) { return connection }
            attempts += 1
            if attempts == 1 || attempts % 10 == 0 {
                log.warning("cannot open X display \(name) yet; retrying (attempt \(attempts))")
            }
            try? notifier.status("waiting for X display \(name)")
            let deadline = clock.now() + delay
            // Wait on the signalfd, not a sleep, so SIGTERM still stops us at once.
            while clock.now() < deadline {
                _ = try? Poller.wait([PollRequest(signals.fileDescriptor, .readable)],
                                     timeoutMilliseconds: clock.now().millisecondsUntil(deadline))
                handleSignals()
                if stopping { return nil }
            }
            delay = min(delay * 2, .seconds(10))
        }
    }

    /// The most X events handled before the loop looks at its other descriptors again.
    static let eventsPerTurn = 64

    private func loop() -> Int32 {
        let xDescriptor = FileDescriptor(rawValue: x.fileDescriptor)
        while !stopping {
            // Xlib may already hold events read during round trips. At most a batch per turn, so that a
            // flood of X requests (100 busy requestors) cannot starve the control socket and signals.
            var handled = 0
            while handled < Self.eventsPerTurn, x.pendingEvents() > 0 {
                service.handle(x.nextEvent())
                handled += 1
            }
            service.handle(errors: x.takeErrors())
            serveWaitingRequests()
            x.flush()
            if x.isConnectionLost {
                log.error("lost the connection to the X server")
                return 1
            }
            let now = clock.now()
            service.expireTransfers(now: now)
            manager.expire(now: now)
            server.expireIdle(now: now)
            if let due = watchdogDue, due <= now {
                try? notifier.watchdog()
                watchdogDue = notifier.watchdogInterval.map { now + $0 / 2 }
            }
            let deadline = [service.nextDeadline, server.nextDeadline, manager.nextDeadline, watchdogDue].compactMap { $0 }.min()
            // XPending also sends what timers queued (a takeover). With X events still waiting, or clients
            // answered with requests waiting behind the answer, look at the sockets without blocking and
            // come back to them at once.
            let xBusy = x.pendingEvents() > 0 || server.hasAnsweredClients

            let clientPolls = server.pollRequests(now: clock.now())
            let requests = [PollRequest(xDescriptor, .readable), PollRequest(signals.fileDescriptor, .readable)]
                + clientPolls.map(\.0)
            let ready: [PollEvents]
            do {
                ready = try Poller.wait(requests, timeoutMilliseconds: xBusy ? 0 : deadline.map { clock.now().millisecondsUntil($0) })
            } catch {
                log.error("poll failed: \(error)")
                return 1
            }
            if !ready[1].isEmpty { handleSignals() }
            for (index, (_, client)) in clientPolls.enumerated() where !ready[index + 2].isEmpty {
                let events = ready[index + 2]
                guard let client else { server.acceptPending(now: clock.now()); continue }
                if events.contains(.writable) { server.flush(client) }
                if events.contains(.readable) || events.contains(.hangup) || events.contains(.error) {
                    server.receive(from: client, now: clock.now())
                }
                // Requests already received wait while an answer is pending; the writable event resumes them.
                while let request = server.nextRequest(from: client) { dispatch(request, from: client) }
            }
        }
        return 0
    }

    /// Serves requests that clients sent while an earlier one was being answered, now that it is.
    private func serveWaitingRequests() {
        for client in server.takeAnsweredClients() {
            while let request = server.nextRequest(from: client) { dispatch(request, from: client) }
        }
    }

    private func handleSignals() {
        for signal in (try? signals.readPending()) ?? [] {
            switch signal {
            case .terminate, .interrupt:
                log.info("received \(signal), stopping")
                stopping = true
            case .hangup:
                reloadConfiguration()
            default:
                break
            }
        }
    }

    // MARK: - Requests

    private func dispatch(_ request: ControlRequest, from client: ClientID) {
        switch request {
        case .hello(let version, _):
            guard version == ControlProtocolVersion.current else {
                server.closeAfterAnswer(client)   // docs/protocol.md: answered, then closed
                server.send(.error(code: .badRequest, message: "protocol version \(version) is not supported (this daemon speaks \(ControlProtocolVersion.current))"), to: client)
                return
            }
            server.send(.hello(version: ControlProtocolVersion.current, daemonPID: UInt32(ProcessIdentity.processID),
                               daemonVersion: PasteboardVersion.string), to: client)
        case .setItems(let pasteboard, let items, let options):
            guard let name = pasteboardName(pasteboard, for: client) else { return }
            own(name, items: items, sensitive: options.contains(.sensitive), pasteOnce: options.contains(.pasteOnce),
                appending: false, client: client)
        case .addItems(let pasteboard, let items):
            guard let name = pasteboardName(pasteboard, for: client) else { return }
            own(name, items: items, sensitive: false, pasteOnce: false, appending: true, client: client)
        case .items(let pasteboard):
            guard let name = pasteboardName(pasteboard, for: client) else { return }
            guard let content = service.content(of: name) else {
                server.send(.error(code: .notFound, message: "\(name) is not held by pasteboardd (another application owns it, or nobody)"), to: client)
                return
            }
            do {
                server.send(.items(try content.items.map(Self.wireItem)), to: client)
            } catch {
                server.send(.error(code: .internal, message: "\(error)"), to: client)
            }
        case .read(let pasteboard, let types, let display):
            guard let name = pasteboardName(pasteboard, for: client) else { return }
            guard DisplayName.sameServer(display, options.display ?? environment["DISPLAY"] ?? "") else {
                server.send(.error(code: .notFound, message: "pasteboardd serves another X display"), to: client)
                return
            }
            guard let (type, bytes) = service.read(name, types: types) else {
                server.send(.error(code: .notFound, message: service.isOwned(name)
                    ? "\(name) offers none of \(types.joined(separator: ", "))"
                    : "\(name) is not held by pasteboardd (another application owns it, or nobody)"), to: client)
                return
            }
            do {
                server.send(.items([try ControlProtocol.PasteboardItem([(type: type, data: bytes)])]), to: client)
            } catch {
                server.send(.error(code: .internal, message: "\(error)"), to: client)
            }
        case .watch(let pasteboards):
            var names: Set<String> = []
            for raw in pasteboards {
                guard let name = pasteboardName(raw, for: client) else { return }
                names.insert(name.rawValue)
            }
            server.clients[client]?.watched = names
            server.send(.ok, to: client)
        case .pasteboards:
            server.send(.pasteboards(service.boards.values.sorted { $0.name.rawValue < $1.name.rawValue }.map {
                PasteboardInfo(name: $0.name.rawValue, changeCount: $0.counter.count,
                               persistent: persistentNames.contains($0.name), owned: $0.served != nil)
            }), to: client)
        case .createPasteboard(let raw, let persistent):
            guard let name = PasteboardName.named(raw), !name.isStandard else {
                server.send(.error(code: .badRequest, message: "'\(raw)' cannot be created: a name is 1 to 255 bytes without control characters, and CLIPBOARD, PRIMARY and SECONDARY always exist"), to: client)
                return
            }
            guard pasteboardName(raw, for: client) != nil else { return }
            if persistent { persistentNames.insert(name) } else { persistentNames.remove(name) }
            manager.persistent = persistentNames
            savePersistentNames()
            server.send(.changeCount(pasteboard: name.rawValue, count: service.count(of: name) ?? 0), to: client)
        case .removePasteboard(let raw):
            guard let name = PasteboardName.named(raw), !name.isStandard else {
                server.send(.error(code: .badRequest, message: "'\(raw)' cannot be removed: CLIPBOARD, PRIMARY and SECONDARY always exist"), to: client)
                return
            }
            guard service.count(of: name) != nil else {
                server.send(.error(code: .notFound, message: "no pasteboard named \(name)"), to: client)
                return
            }
            service.unwatch(name)
            manager.forget(name)
            persistentNames.remove(name)
            savePersistentNames()
            server.send(.ok, to: client)
        case .clear(let pasteboard):
            guard let name = pasteboardName(pasteboard, for: client) else { return }
            service.clear(name) { [server] result in server?.send(Self.response(result, name), to: client) }
        case .changeCount(let pasteboard):
            guard let name = pasteboardName(pasteboard, for: client) else { return }
            server.send(.changeCount(pasteboard: name.rawValue, count: service.count(of: name) ?? 0), to: client)
        case .status:
            var pairs = [StatusPair("version", PasteboardVersion.string),
                         StatusPair("display", options.display ?? environment["DISPLAY"] ?? ""),
                         StatusPair("incr-chunk-bytes", String(service.chunkSize)),
                         StatusPair("transfers", String(service.transfers.count)),
                         StatusPair("clients", String(server.clients.count)),
                         StatusPair("watchers", String(server.clients.values.filter { $0.watched != nil }.count)),
                         StatusPair("recording", manager.paused ? "paused" : "on"),
                         StatusPair("snapshots", String(manager.snapshotsInProgress)),
                         StatusPair("history", String(manager.history.entries.count))]
            for board in service.boards.values.sorted(by: { $0.name.rawValue < $1.name.rawValue }) {
                pairs.append(StatusPair("count." + board.name.rawValue, String(board.counter.count)))
                pairs.append(StatusPair("owned." + board.name.rawValue, board.served == nil ? "no" : "yes"))
            }
            server.send(.status(pairs: pairs), to: client)
        case .history(let limit):
            let entries = manager.history.entries.prefix(Int(limit == 0 ? UInt32.max : limit)).enumerated().map { index, entry in
                HistoryEntry(index: UInt32(index), timestamp: entry.time, pasteboard: entry.pasteboard.rawValue,
                             types: entry.types, size: entry.size, preview: entry.preview)
            }
            server.send(.history(Array(entries)), to: client)
        case .historyItem(let index):
            guard let content = manager.history.content(at: Int(index)) else {
                server.send(.error(code: .notFound, message: "no history entry \(index)"), to: client)
                return
            }
            do { server.send(.items(try content.items.map(Self.wireItem)), to: client) } catch {
                server.send(.error(code: .internal, message: "\(error)"), to: client)
            }
        case .historyCopy(let index):
            guard let content = manager.history.content(at: Int(index)) else {
                server.send(.error(code: .notFound, message: "no history entry \(index)"), to: client)
                return
            }
            service.own(.general, content: content) { [server] result in
                server?.send(Self.response(result, .general), to: client)
            }
        case .historyDelete(let index):
            // Answered once the entry's file is gone from the disk too, as a user deleting it expects.
            if manager.history.delete(at: Int(index)) { manager.finishWrites(); server.send(.ok, to: client) } else {
                server.send(.error(code: .notFound, message: "no history entry \(index)"), to: client)
            }
        case .historyClear:
            manager.history.clear()
            manager.finishWrites()
            log.info("history cleared")
            server.send(.ok, to: client)
        case .pause:
            manager.paused = true
            log.info("recording paused")
            server.send(.ok, to: client)
        case .resume:
            manager.paused = false
            log.info("recording resumed")
            server.send(.ok, to: client)
        }
    }

    /// SIGHUP: reads the configuration again; a bad file keeps the running configuration.
    private func reloadConfiguration() {
        do {
            let reloaded = try DaemonConfiguration.load(environment: environment)
            configuration = reloaded
            manager.configuration = reloaded
            log.info("reloaded the configuration")
        } catch {
            log.error("\(error); keeping the running configuration")
        }
    }

    /// Validates a pasteboard name from a client and starts watching it; answers an error if invalid.
    private func pasteboardName(_ raw: String, for client: ClientID) -> PasteboardName? {
        guard let name = PasteboardName.named(raw) else {
            server.send(.error(code: .badRequest, message: "invalid pasteboard name"), to: client)
            return nil
        }
        if service.count(of: name) == nil {
            guard service.boards.count < 64 else {
                server.send(.error(code: .tooLarge, message: "too many pasteboards"), to: client)
                return nil
            }
            service.watch(name, persistedCount: persistedCounts[name] ?? 0)
        }
        return name
    }

    /// Sets (or, `appending`, adds to) the content of `name` and answers the client with the new count.
    /// Adding to a pasteboard another application owns starts from its items as pasteboardd holds them:
    /// none yet, so the added items become the content.
    private func own(_ name: PasteboardName, items: [ControlProtocol.PasteboardItem], sensitive: Bool, pasteOnce: Bool,
                     appending: Bool, client: ClientID) {
        var content: PasteboardContent
        do {
            content = PasteboardContent(items: try items.map(Self.coreItem), isSensitive: sensitive)
        } catch {
            server.send(.error(code: .badRequest, message: "\(error)"), to: client)
            return
        }
        if sensitive, !content.items.isEmpty, !content.types.contains(PasteboardType("x-kde-passwordManagerHint")) {
            // Tell other clipboard managers (Klipper, CopyQ) to keep it out of their history too.
            try? content.items[0].add(PasteboardType("x-kde-passwordManagerHint"), Array("secret".utf8))
        }
        if appending, let current = service.content(of: name) {
            content = PasteboardContent(items: current.items + content.items, isSensitive: current.isSensitive)
        }
        guard content.items.count <= 1024 else {
            server.send(.error(code: .tooLarge, message: "a pasteboard holds at most 1024 items"), to: client)
            return
        }
        service.own(name, content: content, pasteOnce: pasteOnce) { [server] result in
            server?.send(Self.response(result, name), to: client)
        }
    }

    private static func wireItem(_ item: PasteboardCore.PasteboardItem) throws -> ControlProtocol.PasteboardItem {
        try ControlProtocol.PasteboardItem(item.representations.map { (type: $0.type.rawValue, data: $0.data) })
    }

    /// Tells every watching client about a change.
    private func broadcast(_ name: PasteboardName, _ count: UInt64, _ state: SelectionService.ChangeState, _ types: [PasteboardType]) {
        for client in server.clients.values {
            guard let watched = client.watched, watched.isEmpty || watched.contains(name.rawValue) else { continue }
            server.send(.changed(pasteboard: name.rawValue, count: count, types: types.map(\.rawValue), state: state.rawValue), to: client.id)
        }
    }

    /// Removes the temporary files of saves that a killed pasteboardd left half-written in the state
    /// directory (counts, clipboard.archive, pasteboards), in `pasteboards.d` and in `history`, before
    /// anything reads or writes there; logs one line when there were any. The saved files themselves
    /// are whole: AtomicFile renames only complete files.
    private func removeUnfinishedSaves(in directory: String) {
        let removed = [directory, directory + "/pasteboards.d", directory + "/history"]
            .reduce(0) { $0 + AtomicFile.removeAbandonedTemporaryFiles(in: $1) }
        if removed > 0 { log.info("removed \(removed) unfinished save(s) left by a pasteboardd that was killed") }
    }

    /// How many control clients may be connected at once: 2048, or fewer when the descriptor limit leaves
    /// less beside 64 kept for the X connection, the listener, signals and the files being saved. The soft
    /// limit is first raised to the hard one (systemd gives services 1024 soft, far more hard; nothing here
    /// uses select(2)), so one stuck client per descriptor cannot starve the daemon of descriptors.
    private func controlClientCap() -> Int {
        let limit = (try? OpenFileLimit.raiseToHardLimit()) ?? nil
        let cap = limit.map { max(1, min(2048, $0 - 64)) } ?? 2048
        if cap < 2048 { log.info("the descriptor limit is \(limit ?? 0): at most \(cap) control clients at once") }
        return cap
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

    private static func coreItem(_ item: ControlProtocol.PasteboardItem) throws -> PasteboardCore.PasteboardItem {
        try PasteboardCore.PasteboardItem(item.representations.map { (PasteboardType($0.type), $0.data) })
    }

    private static func response(_ result: Result<UInt64, OwnershipError>, _ name: PasteboardName) -> ControlResponse {
        switch result {
        case .success(let count): .changeCount(pasteboard: name.rawValue, count: count)
        case .failure(let error): .error(code: .unavailable, message: "\(error)")
        }
    }
}
