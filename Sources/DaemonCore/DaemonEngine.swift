// SPDX-License-Identifier: Apache-2.0
import ControlProtocol
import PasteboardCore
import SystemSupport
import WaylandClient
import XTypes

/// The daemon's logic without its loop: the displays served (`XDisplayEndpoint`s, the first one's selection
/// service and clipboard manager being `service` and `manager`) joined into one pasteboard by the
/// `PasteboardEngine` (`bridge`), the displays asked for and their retries, the persistent state and one handler
/// per control request kind. `Daemon` feeds it each display's X events, control requests, finished conversions
/// and the time; a test does the same with fake X servers and a manual clock.
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
        /// The X display the client said it is on (`onDisplay`), if it did.
        public var display: String?
        /// Remembers the display for the connection's later requests.
        public var setDisplay: (String) -> Void
        /// A client of the remote socket: it has no display of its own, and withheld content is never served
        /// to it (`RemoteAccess`).
        public var isRemote: Bool
        /// The client's process (its peer credentials and `/proc/PID/comm`): the source of what it copies and
        /// the reader of what it reads.
        public var source: ContentSource?
        /// Sets the events a `watchEvents` client is sent.
        public var setEvents: (WatchEvents) -> Void
        /// Takes the connection over from the control server (a peer daemon's, after its handshake): its
        /// descriptor and the bytes that followed the request; nil when it cannot be handed over.
        public var takeConnection: () -> (FileDescriptor, [UInt8])? = { nil }

        public init(id: UInt64, send: @escaping (ControlResponse) -> Void, setWatched: @escaping (Set<String>?) -> Void = { _ in },
                    closeAfterAnswer: @escaping () -> Void = {}, display: String? = nil, setDisplay: @escaping (String) -> Void = { _ in },
                    isRemote: Bool = false, source: ContentSource? = nil, setEvents: @escaping (WatchEvents) -> Void = { _ in },
                    takeConnection: @escaping () -> (FileDescriptor, [UInt8])? = { nil }) {
            self.takeConnection = takeConnection
            self.id = id
            self.source = source
            self.setEvents = setEvents
            self.send = send
            self.setWatched = setWatched
            self.closeAfterAnswer = closeAfterAnswer
            self.display = display
            self.setDisplay = setDisplay
            self.isRemote = isRemote
        }
    }

    /// The displays served, the first one first: it keeps the counts, restores the kept content, and is the
    /// one control clients' writes take first (the engine serves them on the others). With no X display
    /// (`homeInMemory`) the first is an `InMemoryDisplay`'s, which nobody but the daemon sees.
    private(set) var sides: [XDisplayEndpoint] = []
    /// True when the daemon serves no X display of its own at start (Wayland alone): the first side is an
    /// `InMemoryDisplay`'s, the pasteboards' home, listed nowhere; the X displays added later are all removable,
    /// and PRIMARY is one with the seat's primary selection (there is no X display of its own to keep it).
    public let homeInMemory: Bool
    /// The name of the first side when it is in memory (in logs).
    static let inMemoryName = "no X display"
    /// The first display's selection service and manager (what single-display code and tests drive).
    var service: SelectionService { sides[0].service }
    var manager: ClipboardManager { sides[0].manager }
    /// The one pasteboard across the displays and peer daemons.
    let bridge: PasteboardEngine
    /// The peer daemons sharing the pasteboard (`pb peer`), each an endpoint of `bridge`.
    private(set) var peers: Peers!
    private let conversions: Conversions
    private let clock: any MonotonicClock
    private let table: ConversionTable
    private var nextEndpoint: UInt32 = 1
    private var x: any XDisplay { sides[0].x }
    private let log: Logger
    private var display: String { sides[0].name }
    private let stateDirectory: String?
    private var persistedCounts: [PasteboardName: UInt64] = [:]
    private var persistentNames: Set<PasteboardName> = []
    /// The clients providing a pasteboard's content (`setItemProviders`), by client.
    private var providers: [UInt64: ProviderSession] = [:]
    private(set) var configuration: DaemonConfiguration
    /// Tells the watching clients about a change (set by the loop, which knows its clients).
    public var broadcast: ((ControlResponse, String) -> Void)?
    /// The clients connected and watching, for `status` (set by the loop).
    public var clientCounts: () -> (clients: Int, watchers: Int) = { (0, 0) }
    /// Whether any client watches reads (set by the loop): readers are looked up only then.
    public var watchesReads: () -> Bool = { false }
    /// Answers being written to clients' sockets (large pastes) and large requests being read from them (large
    /// copies), counted in `status`'s transfers (set by the loop).
    public var socketTransfers: () -> Int = { 0 }

    /// - Parameters:
    ///   - x: the first X display; nil: none (a Wayland session without `DISPLAY`), the pasteboards are kept on an
    ///     `InMemoryDisplay` and the seat attached with `start(wayland:)` is what they are seen on.
    ///   - display: the display the daemon serves, for `read` requests naming one.
    ///   - stateDirectory: where counts, kept content and history live (nil: in memory only).
    public init(x: (any XDisplay)?, clock: any MonotonicClock, configuration: DaemonConfiguration, display: String,
                stateDirectory: String?, log: Logger, table: ConversionTable = .standard) throws {
        homeInMemory = x == nil
        self.log = log
        self.clock = clock
        self.table = table
        self.configuration = configuration
        self.stateDirectory = stateDirectory
        conversions = try Conversions()
        conversions.imageLimits = configuration.imageLimits
        bridge = PasteboardEngine(clock: clock, log: log)
        entries = x == nil ? [] : [DisplayEntry(name: display, state: .connected)]
        let inMemory = x == nil
        bridge.isShared = { [weak self] name in name != .primary || inMemory || (self?.configuration.sharePrimary ?? false) }
        sides.append(makeSide(x == nil ? Self.inMemoryName : display, x: x ?? InMemoryDisplay()))
        let seen = x == nil ? "Wayland" : display
        peers = Peers(engine: bridge, clock: clock, log: log, name: "pasteboardd \(ProcessIdentity.processID) on \(seen)",
                      stateDirectory: stateDirectory, maximumFrameBytes: configuration.remoteMaxRequestBytes) { [unowned self] in
            defer { nextEndpoint += 1 }
            return EndpointID(nextEndpoint)
        }
        peers.count = { [unowned self] name in service.count(of: name) ?? service.boards.retiredCounts[name] ?? 0 }
    }

    private func makeSide(_ name: String, x: any XDisplay) -> XDisplayEndpoint {
        let side = XDisplayEndpoint(id: EndpointID(nextEndpoint), name: name, x: x, clock: clock, configuration: configuration,
                                    stateDirectory: stateDirectory, conversions: conversions, sharing: sides.first, log: log,
                                    table: table)
        nextEndpoint += 1
        side.engine = bridge
        side.broadcast = { [weak self] in self?.announce($0) }
        side.service.server.watchesReads = { [weak self] in self?.watchesReads() ?? false }
        side.service.server.onRead = { [weak self] notice in
            self?.broadcast?(.read(ReadEvent(pasteboard: notice.name.rawValue, type: notice.type, reader: notice.reader,
                                             time: WallClock.nowMilliseconds, refusal: notice.refusal, via: notice.via.rawValue)),
                             notice.name.rawValue)
        }
        return side
    }

    /// Watches CLIPBOARD, PRIMARY and the persistent pasteboards with their saved counts, serves the Wayland seat
    /// of `wayland` (if given: before the kept content is restored, so that a Wayland client's live copy is
    /// never replaced by it), restores kept content and becomes the clipboard manager unless another one is.
    public func start(wayland: (connection: WaylandConnection, name: String)? = nil) {
        if let stateDirectory { removeUnfinishedSaves(in: stateDirectory) }
        persistedCounts = service.boards.countStore.load()
        persistentNames = loadPersistentNames()
        service.boards.retiredCounts = persistedCounts
        for name in [PasteboardName.general, .primary] + persistentNames.sorted(by: { $0.rawValue < $1.rawValue }) {
            service.boards.watch(name, persistedCount: persistedCounts[name] ?? 0)
        }
        manager.persistent = persistentNames
        bridge.attach(sides[0])
        if let wayland { attachWayland(wayland.connection, name: wayland.name) }
        // A pasteboard another endpoint holds at start (the seat's live copy) is not restored over.
        manager.heldElsewhere = { [weak self] name in self?.bridge.current[name] != nil }
        manager.start()
        x.flush()
        peers.start()
    }

    /// Tells the watchers of a change counted on any endpoint, and ends the lazy providers it replaced.
    private func announce(_ notice: ChangeNotice) {
        endProviders(of: notice.name, replacedBy: notice.count)
        broadcast?(.change(ChangeEvent(pasteboard: notice.name.rawValue, count: notice.count, types: notice.types.map(\.rawValue),
                                       state: notice.state.rawValue, image: notice.image, source: notice.source,
                                       patterns: notice.patterns)),
                   notice.name.rawValue)
    }

    // MARK: - The Wayland seat

    /// The Wayland seat served beside the X displays, if any.
    private(set) var wayland: WaylandSeatEndpoint?
    /// The compositor asked for, its connection lost: when to try again, and the wait after that (0.25 s
    /// doubling to 10 s, as for an X display).
    private var waylandRetry: (name: String, at: MonotonicInstant, delay: Duration)?
    /// Opens a compositor connection (set by the loop); nil: the Wayland seat is not retried.
    public var connectWayland: ((String) throws -> WaylandConnection)?

    /// Serves the seat of `connection`'s compositor too (`name` for the log and `pb status`): its selection is
    /// one with CLIPBOARD (and PRIMARY, when shared). A compositor without data-control is logged and left.
    public func attachWayland(_ connection: WaylandConnection, name: String) {
        guard let protocolBound = connection.dataControl else {
            log.warning("the Wayland compositor at \(name) offers no data-control protocol (GNOME's mutter and weston do not): "
                        + "Wayland applications' copies are not shared; serving the X displays")
            return
        }
        let endpoint = WaylandSeatEndpoint(id: EndpointID(nextEndpoint), name: name, connection: connection, clock: clock, log: log,
                                           policy: configuration.snapshotPolicy, conversions: conversions, table: table,
                                           conversionTimeout: .milliseconds(configuration.conversionTimeoutMs))
        endpoint.isPaused = { [weak self] in self?.manager.paused ?? false }
        endpoint.record = { [weak self] name, content, incoming in self?.manager.record(name, content, incoming: incoming) }
        endpoint.incomingDirectory = manager.incomingDirectory
        nextEndpoint += 1
        endpoint.engine = bridge
        endpoint.broadcast = { [weak self] in self?.announce($0) }
        // One pasteboard, one count: the seat's first copy continues the counts kept (persisted, or reached already).
        for board in service.boards.all { endpoint.adopt(count: board.counter.count, for: board.name) }
        wayland = endpoint
        bridge.attach(endpoint)
        linkRelays()
        endpoint.start()
        log.info("serving the Wayland seat of \(name) (\(protocolBound)) as one pasteboard"
                 + (homeInMemory ? " (no X display: the seat alone)" : " with the X displays"))
    }

    /// Finds the compositor's own bridge on the X displays served (its XWayland display), once the seat and the
    /// display are both there: that display and the seat then leave to the bridge what it carries itself.
    private func linkRelays() {
        guard let wayland, wayland.relayDisplay == nil, let compositor = wayland.compositorProcessID else { return }
        for side in sides where !homeInMemory {
            guard let relay = XWaylandRelay.find(on: side.x, compositor: compositor) else { continue }
            side.attach(relay)
            wayland.relayDisplay = .init(id: side.id, xHasFocus: { [weak relay] in relay?.xHasFocus ?? false },
                                         awaitsToken: { [weak side, weak bridge] name in
                guard let side else { return false }
                return side.awaitsToken(name) || bridge?.holdsOffer(of: name, from: side.id) == true
            }, kept: { [weak side] name, serial in side?.keptContent(of: name, serial: serial) })
            side.onKeptWhole = { [weak wayland] name, content in wayland?.relayKept(name, content) }
            log.info("\(side.name) is \(wayland.name)'s XWayland display: its compositor's own clipboard bridge is left to carry "
                     + "what it carries (an X copy while an X window has the focus, the seat's selection on X)")
            return
        }
    }

    /// Forgets the compositor's bridge once its seat is no longer served.
    private func unlinkRelays() {
        for side in sides where side.relay != nil {
            side.detachRelay()
            side.onKeptWhole = nil
        }
    }

    /// What the loop polls for the Wayland seat, appended to `requests` (the loop keeps its array from turn to turn).
    func appendWaylandPollRequests(to requests: inout [PollRequest]) { wayland?.appendPollRequests(to: &requests) }

    /// Hands the Wayland seat what `poll` reported for `appendWaylandPollRequests`'s requests; a compositor gone is let go (the X
    /// displays are served on; what the seat offered is withdrawn elsewhere).
    public func handleWayland(_ ready: ArraySlice<PollEvents>, for requests: ArraySlice<PollRequest>) {
        guard let endpoint = wayland else { return }
        do { try endpoint.handle(ready, for: requests) } catch {
            bridge.detach(endpoint.id)
            wayland = nil
            unlinkRelays()
            if homeInMemory {
                // On Wayland alone the compositor is what the daemon cannot run without, as the first X display is.
                log.error("lost the Wayland compositor \(endpoint.name) (\(error)), the only display served")
                lostOnlySeat = true
                return
            }
            log.warning("lost the Wayland compositor \(endpoint.name) (\(error)): serving the X displays, and trying it again")
            waylandRetry = (endpoint.name, clock.now() + .milliseconds(250), .milliseconds(250))
        }
    }

    /// True once the seat of a daemon serving Wayland alone (`homeInMemory`) was lost: the daemon exits with status
    /// 1, as when it loses its first X display, and its service manager starts it again.
    public private(set) var lostOnlySeat = false

    /// How the Wayland seat asked for stands, for `pb displays`: nil when none is served (none was asked for, or
    /// it offers no data-control).
    var waylandState: (name: String, state: DisplayState)? {
        if let wayland { return (wayland.name, .connected) }
        if let retry = waylandRetry { return (retry.name, .disconnected) }
        return nil
    }

    /// Tries the lost compositor again when it is due; a compositor back on its socket is served as at start.
    private func retryWayland(now: MonotonicInstant) {
        guard let retry = waylandRetry, retry.at <= now, let connect = connectWayland else { return }
        do {
            let connection = try connect(retry.name)
            waylandRetry = nil
            log.info("the Wayland compositor \(retry.name) is back")
            attachWayland(connection, name: retry.name)
        } catch {
            let delay = min(retry.delay * 2, .seconds(10))
            waylandRetry = (retry.name, now + delay, delay)
        }
    }

    /// Serves another X display too (`--display` given again, `pb displays add`): its pasteboards continue
    /// the first display's counts, and it is served what the others hold now.
    @discardableResult
    func addDisplay(_ name: String, x: any XDisplay) -> XDisplayEndpoint {
        let side = makeSide(name, x: x)
        sides.append(side)
        if !entries.contains(where: { $0.name == name }) { entries.append(DisplayEntry(name: name, state: .connected)) }
        for board in service.boards.all { side.adopt(count: board.counter.count, for: board.name) }
        // A count published on this display by an earlier run may be ahead: every display takes the larger.
        for board in side.service.boards.all { for other in sides { other.adopt(count: board.counter.count, for: board.name) } }
        side.manager.persistent = persistentNames
        linkRelays()
        bridge.attach(side)
        side.manager.start()
        x.flush()
        return side
    }

    /// Stops serving a display (not the first): releases what the daemon owns there (unless its server is
    /// gone). What it was the origin of and kept stays pasteable on the others.
    func removeDisplay(_ side: XDisplayEndpoint) {
        guard let index = sides.firstIndex(where: { $0 === side }), index > 0 else { return }
        side.stopReading()
        bridge.detach(side.id)
        if wayland?.relayDisplay?.id == side.id { wayland?.relayDisplay = nil }
        if !side.x.isConnectionLost {
            side.service.releaseAll()
            side.manager.releaseManagerSelection()
        }
        sides.remove(at: index)
    }

    // MARK: - The displays asked for

    /// How a display the daemon was asked to serve stands, for `pb displays`.
    public enum DisplayState: String, Sendable {
        case connected, connecting, disconnected
    }

    private struct DisplayEntry {
        var name: String
        var state: DisplayState
        var retryAt: MonotonicInstant?
        var delay: Duration = DaemonEngine.firstRetryDelay
        var attempts = 0
    }

    static let firstRetryDelay: Duration = .milliseconds(250)
    static let longestRetryDelay: Duration = .seconds(10)

    /// The displays asked for, in order; the first is `sides[0]`'s.
    private var entries: [DisplayEntry]
    /// Opens another display by name for `pb displays add`, `--display` given again and retries after a loss
    /// (set by the loop; tests give fake servers): nil when it cannot be opened now, and why.
    public var connect: ((String) -> Result<any XDisplay, StartFailure>)?

    /// The displays asked for and how each stands, in order.
    public var displayStates: [(name: String, state: DisplayState)] { entries.map { ($0.name, $0.state) } }

    /// Serves `name` too: connected at once when it can be opened, else retried with backoff (0.25 s doubling
    /// to 10 s) while it stays listed. False when it is listed already.
    @discardableResult
    public func serveDisplay(_ name: String) -> Bool {
        guard !entries.contains(where: { DisplayName.sameServer($0.name, name) }) else { return false }
        entries.append(DisplayEntry(name: name, state: .connecting))
        attempt(entries.count - 1, now: clock.now())
        return true
    }

    /// Stops serving `name` and forgets it; false when it is not listed or is the first display.
    @discardableResult
    public func forgetDisplay(_ name: String) -> Bool {
        guard let index = entries.firstIndex(where: { DisplayName.sameServer($0.name, name) }), index > 0 || homeInMemory else { return false }
        if let side = side(named: entries[index].name) { removeDisplay(side) }
        entries.remove(at: index)
        return true
    }

    private func attempt(_ index: Int, now: MonotonicInstant) {
        var entry = entries[index]
        entry.attempts += 1
        entry.retryAt = nil
        switch connect?(entry.name) ?? .failure(StartFailure("no way to open displays")) {
        case .success(let x):
            addDisplay(entry.name, x: x)
            log.info("serving X display \(entry.name) too" + (entry.attempts > 1 ? " (after \(entry.attempts) attempts)" : ""))
            entry.state = .connected
            entry.attempts = 0
            entry.delay = Self.firstRetryDelay
        case .failure(let failure):
            if entry.attempts == 1 || entry.attempts % 10 == 0 {
                log.warning("\(failure.reason) (attempt \(entry.attempts)); retrying")
            }
            entry.retryAt = now + entry.delay
            entry.delay = min(entry.delay * 2, Self.longestRetryDelay)
        }
        entries[index] = entry
    }

    /// Drops the displays (not the first) whose X server went away, keeping what they were the origin of
    /// and kept; each is retried with backoff and listed `disconnected` meanwhile. True when the first
    /// display's connection is lost (the daemon exits: its service manager restarts it) — never for an
    /// `InMemoryDisplay`.
    public func dropLostDisplays() -> Bool {
        for side in sides.dropFirst() where side.x.isConnectionLost {
            log.warning("lost the connection to X display \(side.name); the other displays are still served, and it is retried")
            removeDisplay(side)
            if let index = entries.firstIndex(where: { $0.name == side.name }) {
                entries[index].state = .disconnected
                entries[index].retryAt = clock.now() + Self.firstRetryDelay
                entries[index].delay = Self.firstRetryDelay * 2
            }
        }
        return sides[0].x.isConnectionLost
    }

    /// A clean stop: releases the selections, saves the exact counts, finishes the disk writes.
    public func stop() {
        peers.stop()
        for side in sides { side.service.releaseAll() }
        service.boards.saveCountsExactly()
        manager.finishWrites()
    }

    // MARK: - What the loop feeds in

    /// The first display's events and errors (each display's are its endpoint's to handle: `sides`).
    public func handle(_ event: XEventValue) { sides[0].handle(event) }
    public func handle(errors: [XProtocolError]) { sides[0].handle(errors: errors) }
    /// Readable when the writer finished a file the managers wait for: call `writesFinished()` (nil when the
    /// writer has no pipe: `expire` looks instead).
    public var writesDescriptor: FileDescriptor? { manager.writer.noticeDescriptor }
    /// Hands the writer's notices to every display's manager (each adopts the files it asked for).
    public func writesFinished() {
        let notices = manager.writer.takeNotices()
        guard !notices.isEmpty else { return }
        for side in sides { side.manager.adoptWrittenFiles(notices) }
    }

    /// Readable when conversions finished: call `conversionsFinished()`.
    public var conversionsDescriptor: FileDescriptor { conversions.readyDescriptor }
    public func conversionsFinished() {
        guard conversions.takeFinished() else { return }
        for side in sides { side.service.server.retryParked() }
        wayland?.retryPending()
        // The worker threads' malloc arenas keep a large conversion's peak (a 4K picture: tens of MiB) unless
        // asked to give it back; once no conversion is left, they are.
        if conversions.pendingCount == 0 { MemoryRelease.trim() }
    }

    public var nextDeadline: MonotonicInstant? {
        var earliest = Earliest()
        for side in sides { earliest.add(side.nextDeadline) }
        for provider in providers.values { earliest.add(provider.nextDeadline) }
        earliest.add(wayland?.nextDeadline)
        if connectWayland != nil { earliest.add(waylandRetry?.at) }
        earliest.add(bridge.nextDeadline)
        earliest.add(peers.nextDeadline)
        for entry in entries { earliest.add(entry.retryAt) }
        return earliest.value
    }

    public func expire(now: MonotonicInstant) {
        // Each turn of the loop comes here: what is empty is not sorted (an array made and freed per turn).
        if !providers.isEmpty {
            for session in providers.values.sorted(by: { $0.client < $1.client }) { session.expire(now: now) }
        }
        bridge.expire(now: now)
        peers.expire(now: now)
        for side in sides { side.expire(now: now) }
        wayland?.expire(now: now)
        retryWayland(now: now)
        for index in entries.indices where entries[index].retryAt.map({ $0 <= now }) == true { attempt(index, now: now) }
    }

    /// SIGHUP's new configuration.
    public func reconfigure(_ configuration: DaemonConfiguration) {
        self.configuration = configuration
        conversions.imageLimits = configuration.imageLimits
        for side in sides { side.configuration = configuration }
        wayland?.policy = configuration.snapshotPolicy
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
        case .watchEvents(let pasteboards, let events):
            client.setEvents(events)
            watch(pasteboards, client)
        case .sourcedHistory(let limit): history(limit: limit, sourced: true, client)
        case .pasteboards: listPasteboards(client)
        case .createPasteboard(let name, let persistent): createPasteboard(name, persistent: persistent, client)
        case .removePasteboard(let name): removePasteboard(name, client)
        case .clear(let pasteboard): clear(pasteboard, client)
        case .changeCount(let pasteboard): changeCount(pasteboard, client)
        case .status: status(client)
        case .history(let limit): history(limit: limit, sourced: false, client)
        case .historyItem(let index): historyItem(index, client)
        case .historyCopy(let index): historyCopy(index, client)
        case .historyDelete(let index): historyDelete(index, client)
        case .historyClear: historyClear(client)
        case .pause: setPaused(true, client)
        case .resume: setPaused(false, client)
        case .displays:
            // The X displays, then the Wayland seat (a name without a colon: no X display's name is one).
            let listed = displayStates + (waylandState.map { [$0] } ?? [])
            client.send(.status(pairs: listed.map { StatusPair($0.name, $0.state.rawValue) }))
        case .addDisplay(let name): addDisplay(name, client)
        case .removeDisplay(let name): removeDisplay(name, client)
        case .onDisplay(let name):
            client.setDisplay(name)
            client.send(.ok)
        case .setItemProviders(let pasteboard, let types, let options): provide(pasteboard, types: types, options: options, client)
        case .provided(let request, let data): providerAnswered(request, .data(data), client)
        case .provideFailed(let request, let reason):
            providerAnswered(request, .failed("the application that copied it could not provide it: \(reason)"), client)
        case .peer(let version, let daemon, let name, let maximum): peer(version: version, daemon: daemon, name: name, maximum: maximum, client)
        case .peers: client.send(.peers(peers.list))
        case .addPeer(let socket, let persistent):
            if let refusal = peers.add(socket, persistent: persistent) { return client.send(.error(code: .badRequest, message: refusal.reason)) }
            log.info("sharing the pasteboard with the peer at \(socket)" + (persistent ? "" : " until it is removed"))
            client.send(.ok)
        case .beginCopy, .copyChunk, .commitCopy:
            // The control server gathers a copy in pieces and hands out its commit as `setItems`.
            client.send(.error(code: .internal, message: "a copy in pieces reached the engine"))
        case .removePeer(let socket):
            guard peers.remove(socket) else { return client.send(.error(code: .notFound, message: "\(socket) is not a peer")) }
            log.info("no longer sharing the pasteboard with the peer at \(socket)")
            client.send(.ok)
        }
    }

    /// A peer daemon's handshake (remote socket only): admitted, the connection is handed to `peers`, which
    /// welcomes it; refused, it is answered with why and closed.
    private func peer(version: UInt8, daemon: UInt64, name: String, maximum: UInt64, _ client: Client) {
        guard client.isRemote else {
            client.closeAfterAnswer()
            return client.send(.error(code: .denied, message: "peering is done through the remote socket (remote.sock), not the control socket"))
        }
        switch peers.admit(version: version, daemon: daemon, name: name, maximumFrameBytes: maximum) {
        case .failure(let refusal):
            log.limited(.info, key: "peer-refused", "refused a peer's handshake: \(refusal.reason)")
            client.closeAfterAnswer()
            client.send(.error(code: refusal.redundant ? .unavailable : .badRequest, message: refusal.reason))
        case .success(let identity):
            guard let (fd, received) = client.takeConnection() else {
                client.closeAfterAnswer()
                return client.send(.error(code: .internal, message: "the connection cannot be handed over"))
            }
            peers.accept(identity, fd: fd, received: received)
        }
    }

    /// The display whose `name` a request of `client` acts on: the first display's for a pasteboard that is
    /// one across them (the engine serves it on the others) and for a client that names no display; the client's
    /// own for a pasteboard of each display (PRIMARY, not shared) when it is served; nil, `client` answered
    /// `notFound`, when it is not: that display's PRIMARY is its own, which the daemon neither holds nor sets.
    private func side(for name: PasteboardName, _ client: Client) -> XDisplayEndpoint? {
        guard !bridge.isShared(name), let display = client.display, !display.isEmpty else { return sides[0] }
        if let own = side(named: display) { return own }
        client.send(Self.notServed(display, name))
        return nil
    }

    /// Why a request of a pasteboard of each display, from a client of `display`, is not answered.
    private static func notServed(_ display: String, _ name: PasteboardName) -> ControlResponse {
        .error(code: .notFound, message: "pasteboardd does not serve \(display), and \(name) is each display's own: "
               + "add it with 'pb displays add \(display)'")
    }

    /// Where a read of `client`, of display `display` (empty: none), is answered. A client with no display of its own
    /// — remote, or local with no `DISPLAY` (a script run by cron, or over ssh to this machine) — is answered from
    /// the first display's side, where every shared pasteboard is served (the in-memory home when the daemon serves
    /// Wayland alone, which serves the seat's copies too), and from the application that owns a pasteboard there
    /// through the daemon (`foreignView`). A client of a display served reads there (what another application
    /// owns, it reads on X itself); a client of another display is that display's: nil, it reads its own X server.
    private func readingSide(_ client: Client, display: String) -> (side: XDisplayEndpoint, ownDisplay: Bool)? {
        if client.isRemote || display.isEmpty { return (sides[0], false) }
        return side(named: display).map { ($0, true) }
    }

    /// The display served that `display` names (another name of the same server counts); never the in-memory
    /// home, which no name names.
    private func side(named display: String) -> XDisplayEndpoint? {
        sides.dropFirst(homeInMemory ? 1 : 0).first { DisplayName.sameServer(display, $0.name) }
    }

    private func addDisplay(_ name: String, _ client: Client) {
        guard DisplayName(name) != nil else {
            return client.send(.error(code: .badRequest, message: "'\(name)' is not an X display name (as in $DISPLAY: :1, host:0.0)"))
        }
        guard serveDisplay(name) else { return client.send(.error(code: .badRequest, message: "\(name) is served already")) }
        client.send(.ok)
    }

    private func removeDisplay(_ name: String, _ client: Client) {
        if !homeInMemory, let first = displayStates.first, DisplayName.sameServer(first.name, name) {
            return client.send(.error(code: .badRequest, message: "\(name) is the first display pasteboardd serves; it cannot be removed (stop pasteboardd instead)"))
        }
        guard forgetDisplay(name) else { return client.send(.error(code: .notFound, message: "\(name) is not served")) }
        log.info("no longer serving X display \(name)")
        client.send(.ok)
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
        content.source = client.source
        guard let service = side(for: name, client)?.service else { return }
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

    // MARK: - Lazy providers

    /// Serves content whose types `client` provides when first asked (`ProviderSession`): one change now, the
    /// bytes fetched over the client's connection on request and kept for the change. Never recorded in
    /// history nor written to the disk (it exists only while asked for); what the client provided stays served
    /// after it goes away, and a pasteboard it provided nothing of is cleared then.
    private func provide(_ raw: String, types: [[String]], options: CopyOptions, _ client: Client) {
        guard let name = watchedName(raw, client) else { return }
        if let problem = ProviderSession.problem(with: types) { return client.send(.error(code: .badRequest, message: problem)) }
        guard providers[client.id] == nil else {
            return client.send(.error(code: .badRequest, message: "this connection already provides a pasteboard's content; open another"))
        }
        let session = ProviderSession(client: client.id, pasteboard: name, items: types.map { $0.map { PasteboardType($0) } },
                                      timeout: bridge.fetchTimeout, clock: clock, send: client.send)
        var content = PasteboardContent(items: [], isSensitive: options.contains(.sensitive), isTransient: true,
                                        isLocalOnly: options.contains(.localOnly))
        content.source = client.source
        if content.isSensitive { mark(&content, PasteboardType(SnapshotPolicy.passwordManagerHint), Array("secret".utf8)) }
        let remote = ServedContent.RemoteTypes(types: session.types) { [weak session, name] type, completion in
            guard let session else { return completion(.failed("the application that copied \(name) is gone")) }
            session.fetch(type, completion: completion)
        }
        guard let side = side(for: name, client) else { return }
        providers[client.id] = session
        let ownership = SelectionService.Ownership(content: content, remote: remote, pasteOnce: options.contains(.pasteOnce))
        side.service.own(name, ownership) { [weak self] result in
            if case .success(let count) = result { session.count = count } else { self?.providers[client.id] = nil }
            client.send(Self.response(result, name))
        }
    }

    private func providerAnswered(_ request: UInt64, _ result: FetchResult, _ client: Client) {
        guard let session = providers[client.id], session.answer(request, result) else {
            return client.send(.error(code: .notFound, message: "no provide request \(request) waits on this connection (answered, timed out, or never asked)"))
        }
        client.send(.ok)
    }

    /// A change of `name` to `count` ends the sessions that provided an earlier change of it: their requests
    /// are refused and their connections closed (the clients' providers are done).
    private func endProviders(of name: PasteboardName, replacedBy count: UInt64) {
        for (id, session) in providers.sorted(by: { $0.key < $1.key }) where session.pasteboard == name {
            guard let provided = session.count, provided != count else { continue }
            providers[id] = nil
            session.end("\(name) changed")
            closeClient?(id)
        }
    }

    /// Closes a client's connection (set by the loop).
    public var closeClient: ((UInt64) -> Void)?

    /// The loop closed client `id`'s connection. A provider's content keeps what it provided; the types it
    /// never provided are withdrawn (not provided first: an application closing should not compute every type
    /// nobody asked for, and one that died cannot) — silently, the same change — and a pasteboard it provided
    /// nothing of is cleared (a change: there is nothing left to paste).
    public func clientClosed(_ id: UInt64) {
        guard let session = providers.removeValue(forKey: id) else { return }
        let name = session.pasteboard
        session.end("the application that copied \(name) is gone")
        guard let count = session.count else { return }
        // The side serving the provider's content: it owns the pasteboard at that change, with bytes on request, for
        // no other endpoint (the others serve it as the engine's offer and follow what this side does).
        for side in sides where side.service.count(of: name) == count && side.service.content(of: name) == nil && side.mirrors[name] == nil {
            guard let served = side.service.boards.board(named: name)?.served else { continue }
            if let kept = session.providedContent(of: served.content) {
                log.info("the application providing \(name) went away: serving the \(kept.types.count) types it provided")
                side.service.own(name, SelectionService.Ownership(content: kept, silent: true)) { _ in }
            } else {
                log.info("the application providing \(name) went away having provided nothing: clearing it")
                side.service.clear(name) { _ in }
            }
        }
    }

    /// Adds a marker target to the content's first item (an item of its own when there is none: a lazy
    /// provider's content), unless some item offers it already (or the item is full).
    private func mark(_ content: inout PasteboardContent, _ marker: PasteboardType, _ value: [UInt8]) {
        guard !content.types.contains(marker),
              let marked = try? PasteboardItem((content.items.first?.representations ?? []) + [Representation(type: marker, data: value)])
        else { return }
        if content.items.isEmpty { content.items = [marked] } else { content.items[0] = marked }
    }

    private func items(_ raw: String, _ client: Client) {
        guard let name = validName(raw, client) else { return }
        guard let side = side(for: name, client) else { return }
        guard let content = side.service.content(of: name) else {
            client.send(Self.notHeld(name))
            return
        }
        if refusedRemotely(content, name, client) { return }
        client.send(.items(content.items))
    }

    private func read(_ raw: String, types: [String], display: String, _ client: Client) {
        guard let name = validName(raw, client) else { return }
        guard let (side, ownDisplay) = readingSide(client, display: display) else {
            client.send(.error(code: .notFound, message: "pasteboardd serves another X display"))
            return
        }
        if let served = side.service.boards.board(named: name)?.served, refusedRemotely(served, name, client) { return }
        let answer: (RequestServer.ReadOutcome) -> Void = { outcome in
            switch outcome {
            case .value(let type, let bytes):
                if let item = try? PasteboardItem([Representation(type: PasteboardType(type), data: bytes)]) {
                    client.send(.items([item]))
                } else {
                    client.send(.error(code: .internal, message: "the type \(type) cannot be sent"))
                }
            case .notHeld:
                client.send(Self.notHeld(name))
            case .notOffered(let why): client.send(.error(code: .typeNotOffered, message: why))
            case .conversionFailed(let why): client.send(.error(code: .conversionFailed, message: why))
            case .timedOut(let why): client.send(.error(code: .timedOut, message: why))
            case .denied(let why): client.send(.error(code: .denied, message: why))
            }
        }
        // Another application at home owns it: a client without a display of its own cannot read it there, so it is
        // answered from what the daemon read of it (or fetches from that owner).
        if !ownDisplay, let foreign = side.foreignView(of: name, table: table) {
            if refusedRemotely(foreign, name, client) { return }
            side.service.server.read(name, types: types, from: foreign, reader: client.source, completion: answer)
        } else {
            side.service.server.read(name, types: types, reader: client.source, completion: answer)
        }
    }

    /// The TARGETS list of a pasteboard the daemon serves on the client's display (or, for a client without a
    /// display of its own, on the first display, or another application there offers, as the daemon read it), as an
    /// X requestor would get it: what another application owns on the client's display, the client asks it for.
    private func targets(_ raw: String, _ client: Client) {
        guard let name = validName(raw, client) else { return }
        guard let (side, ownDisplay) = readingSide(client, display: client.display ?? "") else {
            client.send(.error(code: .notFound, message: "pasteboardd serves another X display"))
            return
        }
        guard let served = side.service.boards.board(named: name)?.served ?? (ownDisplay ? nil : side.foreignView(of: name, table: table)) else {
            client.send(Self.notHeld(name))
            return
        }
        if refusedRemotely(served, name, client) { return }
        client.send(.targets(side.service.executor.responder.targetsList(offered: served.listed).compactMap { served.name(of: $0) }))
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
        for side in sides { side.service.unwatch(name) }
        manager.forget(name)
        persistentNames.remove(name)
        savePersistentNames()
        broadcast?(.change(ChangeEvent(pasteboard: name.rawValue, count: count, types: [], state: ChangeState.removed.rawValue)), name.rawValue)
        client.send(.ok)
    }

    private func clear(_ raw: String, _ client: Client) {
        guard let name = watchedName(raw, client) else { return }
        side(for: name, client)?.service.clear(name) { client.send(Self.response($0, name)) }
    }

    /// A pasteboard's count; one not watched has the count it was left at (0 if never seen): looking it up
    /// does not start watching it.
    private func changeCount(_ raw: String, _ client: Client) {
        guard let name = validName(raw, client) else { return }
        guard let side = side(for: name, client) else { return }
        let count = side.service.count(of: name) ?? service.boards.retiredCounts[name] ?? 0
        client.send(.changeCount(pasteboard: name.rawValue, count: count))
    }

    private func status(_ client: Client) {
        let (clients, watchers) = clientCounts()
        var pairs = [StatusPair("version", PasteboardVersion.string),
                     StatusPair("display", homeInMemory ? "" : display),
                     StatusPair("incr-chunk-bytes", String(service.chunkSize)),
                     StatusPair("transfers", String(service.transfers.count + socketTransfers())),
                     StatusPair("conversions", String(service.server.conversions.pendingCount)),
                     StatusPair("fetches", String(bridge.fetchesInFlight)),
                     StatusPair("peers", String(peers.connectedCount)),
                     StatusPair("clients", String(clients)),
                     StatusPair("watchers", String(watchers)),
                     StatusPair("recording", manager.paused ? "paused" : "on"),
                     StatusPair("snapshots", String(manager.snapshotsInProgress)),
                     StatusPair("writes", String(manager.writer.pendingCount)),
                     StatusPair("history", String(manager.history.entries.count))]
        for (name, state) in displayStates where displayStates.count > 1 { pairs.append(StatusPair("display." + name, state.rawValue)) }
        if let wayland { pairs.append(StatusPair("wayland", wayland.name + " (" + (wayland.dataControlName) + ")")) }
        for board in service.boards.all {
            pairs.append(StatusPair("count." + board.name.rawValue, String(board.counter.count)))
            pairs.append(StatusPair("owned." + board.name.rawValue, board.served == nil ? "no" : "yes"))
            if let content = board.served?.content {
                // What serving it holds: bytes in memory, and bytes sent from the file they are kept in.
                let representations = content.items.flatMap(\.representations)
                let fromFile = representations.filter { $0.source != nil }.reduce(0) { $0 + $1.byteCount }
                pairs.append(StatusPair("memory-bytes." + board.name.rawValue, String(content.byteCount - fromFile)))
                pairs.append(StatusPair("file-bytes." + board.name.rawValue, String(fromFile)))
            }
        }
        client.send(.status(pairs: pairs))
    }

    /// The history, newest first; `sourced`: with who copied each entry (`sourcedHistory`).
    private func history(limit: UInt32, sourced: Bool, _ client: Client) {
        let entries = Array(manager.history.entries.prefix(Int(limit == 0 ? UInt32.max : limit)).enumerated().map { index, entry in
            HistoryEntry(index: UInt32(index), timestamp: entry.time, pasteboard: entry.pasteboard.rawValue,
                         types: entry.types, size: entry.size, preview: entry.preview, source: entry.source)
        })
        client.send(sourced ? .sourcedHistory(entries) : .history(entries))
    }

    /// History entry `index`'s content, logging what of it could not be read back (never content).
    private func historyContent(_ index: UInt32) -> PasteboardContent? {
        var skipped: [SkippedRepresentation] = []
        var content = manager.history.content(at: Int(index), skipped: &skipped)
        // Copied again, it is still what its application copied.
        if Int(index) < manager.history.entries.count { content?.source = manager.history.entries[Int(index)].source }
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
            // One pasteboard, one count: every display continues the first display's.
            let count = service.count(of: name) ?? 0
            for side in sides.dropFirst() { side.adopt(count: count, for: name) }
        }
        return name
    }

    /// The answer for a pasteboard the daemon does not hold.
    private static func notHeld(_ name: PasteboardName) -> ControlResponse {
        .error(code: .notFound, message: "\(name) is not held by pasteboardd (another application owns it, or nobody)")
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
