// SPDX-License-Identifier: Apache-2.0
import ControlProtocol
import PasteboardCore
import SystemSupport
import WaylandClient
import XClient
import XTypes

/// pasteboardd: one poll loop over the X connection, the control socket and its clients, and a
/// signalfd; timers for timeouts. Idle means blocked in poll with no timeout: zero wakeups.
public final class Daemon {
    private let options: DaemonOptions
    private let environment: [String: String]
    private let log: Logger
    private let clock = SystemClock()
    private var engine: DaemonEngine!
    private var server: ControlServer!
    /// The remote socket's server (`RemoteAccess`), unless the configuration turns it off.
    private var remote: ControlServer?
    /// Both servers, the control socket's first.
    /// The control server, then the remote one if any: set once both are made (the loop asks several times a turn).
    private var servers: [ControlServer] = []
    private var signals: SignalDescriptor!
    private var notifier: SystemdNotifier
    private var stopping = false
    /// When the next WATCHDOG=1 is due (half of systemd's WatchdogSec), if systemd asked for them.
    private var watchdogDue: MonotonicInstant?
    /// The loop's poll list and the owners of its parts, kept from turn to turn (`loop`).
    private var polls: [PollRequest] = []
    private var pollServers: [ControlServer] = []
    private var pollClients: [ClientID?] = []
    private var pollPeers: [PeerEndpoint] = []
    private var configuration: DaemonConfiguration

    public init(options: DaemonOptions, environment: [String: String], configuration: DaemonConfiguration = DaemonConfiguration()) {
        self.options = options
        self.environment = environment
        var configuration = configuration
        if options.sharePrimary { configuration.sharePrimary = true }
        self.configuration = configuration
        log = Logger(environment: environment, verbose: options.verbose)
        notifier = SystemdNotifier(environment: environment)
    }

    /// The displays to serve, as named: those given with `--display`, else the configuration's `displays`, else
    /// `$DISPLAY`.
    private var displays: [String] {
        if !options.displays.isEmpty { return options.displays }
        if !configuration.displays.isEmpty { return configuration.displays }
        return [environment["DISPLAY"] ?? ""]
    }
    /// The first display served: the one the daemon cannot run without. Empty: none named (`DISPLAY` unset),
    /// and the daemon serves the Wayland seat alone when one is asked for (`waylandName`).
    private var display: String { displays[0] }

    /// The Wayland compositor whose seat to serve: `--wayland`'s, else `$WAYLAND_DISPLAY` when set; nil with
    /// `--no-wayland`.
    private var waylandName: String? {
        switch options.wayland {
        case .none: return nil
        case .named(let given): return given
        case .fromEnvironment:
            guard let fromEnvironment = environment["WAYLAND_DISPLAY"], !fromEnvironment.isEmpty else { return nil }
            return fromEnvironment
        }
    }

    /// Runs until SIGTERM/SIGINT (status 0) or until the X connection is lost or start-up fails
    /// (non-zero, so that systemd restarts it). A start-up that fails says why to the clients waiting at a
    /// socket a service manager passed (`refuseToStart`); while the X server cannot be reached yet, each
    /// client that connects is told so at once, and the daemon keeps trying. With no X display named and a
    /// Wayland seat asked for, the seat is served alone (its compositor waited for as an X server is, and its loss
    /// the end of the daemon, status 1, as the first X display's is).
    public func run() -> Int32 {
        // Sockets a service manager passed sit at descriptors 3 and up: take them before anything else
        // opens a descriptor that $LISTEN_FDS could be taken to name.
        let passed: [FileDescriptor]
        do { passed = try SocketActivation.takeListeningDescriptors(environment: environment) } catch {
            log.error("\(error)")
            return 1
        }
        do {
            signals = try SignalDescriptor(signals: [.terminate, .interrupt, .hangup])
            try? Signals.ignore(.pipe)
        } catch {
            return refuseToStart(StartFailure("cannot watch for signals: \(error)"), passed: passed)
        }
        let waiting = StartFailureNotice(listeners: passed.compactMap { try? UnixListener(adopting: $0) },
                                         userID: ProcessIdentity.userID, clock: clock)
        let x: XConnection?
        var seat: (connection: WaylandConnection, name: String)?
        if display.isEmpty, let name = waylandName {
            // Wayland alone: the seat is the one display, waited for as an X server would be.
            switch connectWithBackOff(to: .wayland(name), telling: waiting) {
            case .connected(.wayland(let connection)): seat = (connection, name)
            case .connected(.x): preconditionFailure("a Wayland compositor was asked for")
            case .stopped: return 0
            case .failed(let failure): return refuseToStart(failure, passed: passed)
            }
            guard seat?.connection.dataControl != nil else { return refuseToStart(.lacksDataControl(name), passed: passed) }
            x = nil
        } else {
            switch connectWithBackOff(to: .x(display), telling: waiting) {
            case .connected(.x(let connection)): x = connection
            case .connected(.wayland): preconditionFailure("an X display was asked for")
            case .stopped: return 0
            case .failed(let failure): return refuseToStart(failure, passed: passed)
            }
            guard x?.xfixesEventBase != nil else {
                return refuseToStart(.lacksXFixes(display), passed: passed)
            }
        }
        let directories = XDGDirectories(environment: environment)
        var stateDirectory: String?
        do {
            stateDirectory = try directories.createState()
        } catch {
            log.warning("cannot use the state directory, counts are kept in memory: \(error)")
        }
        do {
            engine = try DaemonEngine(x: x, clock: clock, configuration: configuration, display: display,
                                      stateDirectory: stateDirectory, log: log)
        } catch {
            return refuseToStart(StartFailure("\(error)"), passed: passed)
        }
        if x != nil { seat = connectWayland() }
        engine.start(wayland: seat)
        engine.connect = { name in Daemon.open(name) }
        for name in displays.dropFirst() where !engine.serveDisplay(name) {
            log.warning("\(name) is given twice: served once")
        }
        let listener: UnixListener
        let remoteListener: UnixListener?
        switch listeners(directories, passed: passed) {
        case .success(let adopted): (listener, remoteListener) = adopted
        case .failure(let failure): return refuseToStart(failure, passed: passed)
        }
        let cap = controlClientCap()
        server = ControlServer(listener: listener, userID: ProcessIdentity.userID, log: log,
                               maximumFrameLength: options.maximumRequestBytes, maximumClients: cap)
        remote = remoteListener.map {
            ControlServer(listener: $0, userID: ProcessIdentity.userID, log: log,
                          maximumFrameLength: configuration.remoteMaxRequestBytes, maximumClients: cap,
                          access: RemoteAccess(requestsPerSecond: configuration.remoteRequestsPerSecond), clock: clock)
        }
        servers = [server] + (remote.map { [$0] } ?? [])
        // Lazy providers live on control-socket connections (the remote socket refuses them).
        server.onDrop = { [unowned self] in engine.clientClosed($0) }
        engine.closeClient = { [unowned self] in server.drop($0) }
        engine.broadcast = { [unowned self] response, name in
            for server in servers {
                // Who read what on this machine is not told through the remote socket.
                if server.access != nil, case .read = response { continue }
                // Remote watchers learn of a change, never what withheld content is (`RemoteAccess.event`).
                let sent = server.access == nil ? response
                    : RemoteAccess.event(response, contentWithheld: engine.service.content(of: PasteboardName(rawValue: name))
                                                                        .flatMap(RemoteAccess.withholding) != nil)
                for client in server.clients.values {
                    guard let watched = client.watched, watched.isEmpty || watched.contains(name),
                          let event = Self.event(sent, for: client.events) else { continue }
                    server.send(event, to: client.id)
                }
            }
        }
        engine.clientCounts = { [unowned self] in
            servers.reduce((0, 0)) { ($0.0 + $1.clients.count, $0.1 + $1.clients.values.filter { $0.watched != nil }.count) }
        }
        engine.watchesReads = { [unowned self] in
            servers.contains { $0.access == nil && $0.clients.values.contains { $0.events?.contains(.reads) == true } }
        }
        engine.socketTransfers = { [unowned self] in servers.reduce(0) { $0 + $1.answersBeingWritten + $1.requestsBeingRead } }
        for side in engine.sides { side.x.flush() }
        let served = x == nil ? "the Wayland seat of \(seat?.name ?? "")"
            : displays.count == 1 ? (display.isEmpty ? "the default display" : display) : displays.joined(separator: ", ")
        log.info("serving CLIPBOARD and PRIMARY on \(served), control socket \(listener.path)"
                 + (remoteListener.map { ", remote socket \($0.path)" } ?? ""))
        try? notifier.ready(status: "serving CLIPBOARD and PRIMARY on \(served)")
        watchdogDue = notifier.watchdogInterval.map { clock.now() + $0 / 2 }

        let status = loop()

        try? notifier.stopping()
        engine.stop()
        for server in servers { server.close() }
        log.info(status == 0 ? "stopped" : "exiting with status \(status)")
        return status
    }

    /// The control socket and the remote one (unless the configuration turns it off): those a service manager
    /// passed (`pasteboardd.socket`, `systemd-socket-activate`: `$LISTEN_FDS`, taken at start; told apart by
    /// `PassedSockets`), else bound here in the runtime directory; why not, when they cannot be had.
    private func listeners(_ directories: XDGDirectories, passed: [FileDescriptor]) -> Result<(UnixListener, UnixListener?), StartFailure> {
        var adopted: [UnixListener] = []
        do {
            adopted = try passed.map { try UnixListener(adopting: $0) }
        } catch {
            return .failure(StartFailure("socket activation: \(error)"))
        }
        let names = SocketActivation.names(environment: environment, count: adopted.count)
        let roles: [PassedSockets.Role]
        switch PassedSockets.roles(zip(adopted, names).map { ($0.path, $1) }, remotePath: directories.remoteSocket) {
        case .success(let found): roles = found
        case .failure(let failure): return .failure(failure)
        }
        func listener(_ role: PassedSockets.Role, at path: String) -> Result<UnixListener, StartFailure> {
            if let index = roles.firstIndex(of: role) {
                let passed = adopted[index]
                log.info("listening on the \(role) socket the service manager passed (\(passed.path.isEmpty ? "unnamed" : passed.path))")
                if passed.path != path { log.warning("the \(role) socket passed is not \(path), where pb looks for it") }
                return .success(passed)
            }
            do {
                _ = try directories.createRuntime()
                return .success(try UnixListener(path: path))
            } catch {
                return .failure(StartFailure("cannot listen on \(path): \(error)"))
            }
        }
        let control: UnixListener
        switch listener(.control, at: directories.controlSocket) {
        case .success(let found): control = found
        case .failure(let failure): return .failure(failure)
        }
        guard configuration.remoteSocket else {
            if let index = roles.firstIndex(of: .remote) { try? adopted[index].close() }
            return .success((control, nil))
        }
        switch listener(.remote, at: directories.remoteSocket) {
        case .success(let found): return .success((control, found))
        case .failure(let failure):
            // The control socket is the daemon's reason to be: without the remote one it still serves.
            log.warning("\(failure.reason); serving without the remote socket")
            return .success((control, nil))
        }
    }

    /// Gives up starting: logs why and tells the clients waiting at the sockets a service manager passed (the
    /// one that woke the daemon among them: `StartFailureNotice`), so that `pb` prints "pasteboardd could not
    /// start: …" rather than a reset connection. Returns 1, the status of a failed start (systemd restarts it).
    /// For failures before `run` (a bad configuration file) the sockets are taken here.
    public func refuseToStart(_ failure: StartFailure, passed: [FileDescriptor]? = nil) -> Int32 {
        log.error("could not start: \(failure.reason)")
        try? Signals.ignore(.pipe)   // a client that hung up meanwhile: EPIPE, not death by SIGPIPE
        let sockets = passed ?? ((try? SocketActivation.takeListeningDescriptors(environment: environment)) ?? [])
        let notice = StartFailureNotice(listeners: sockets.compactMap { try? UnixListener(adopting: $0) },
                                        userID: ProcessIdentity.userID, clock: clock)
        let told = notice.tell(failure)
        if told > 0 { log.info("told \(told) waiting client\(told == 1 ? "" : "s") why") }
        return 1
    }

    /// The first display to open: an X display, or (with none) a Wayland compositor.
    private enum FirstDisplay {
        case x(String)
        case wayland(String)

        /// What it is called in the log and the status line.
        var described: String {
            switch self {
            case .x(let name): "X display \(name)"
            case .wayland(let name): "the Wayland compositor \(name)"
            }
        }
    }

    /// A first display opened.
    private enum Connection {
        case x(XConnection)
        case wayland(WaylandConnection)
    }

    /// How opening the first display ended.
    private enum DisplayOutcome {
        case connected(Connection)
        /// SIGTERM or SIGINT while waiting.
        case stopped
        case failed(StartFailure)
    }

    /// Opens the first display, waiting while its server is not up yet (as at session start): retries after
    /// 0.25 s, doubling to at most 10 s, answering SIGTERM meanwhile, and telling each client that connects to
    /// a passed socket meanwhile why it is not served yet (`waiting`). With no display named at all there is
    /// nothing to wait for: that is a failure at once.
    private func connectWithBackOff(to first: FirstDisplay, telling waiting: StartFailureNotice) -> DisplayOutcome {
        if case .x(let name) = first, name.isEmpty { return .failed(.displayNotSet) }
        var delay: Duration = .milliseconds(250)
        var attempts = 0
        while true {
            let why: String
            let failure: StartFailure
            switch first {
            case .x(let name):
                if let connection = try? XConnection(displayName: name) { return .connected(.x(connection)) }
                let diagnosis = DisplayFailure.diagnose(name)
                why = "\(diagnosis)"
                failure = .cannotOpenDisplay(name, diagnosis, stillTrying: true)
            case .wayland(let name):
                do { return .connected(.wayland(try WaylandConnection(name: name))) } catch {
                    why = error.description
                    failure = .cannotReachCompositor(name, error.description, stillTrying: true)
                }
            }
            attempts += 1
            if attempts == 1 || attempts % 10 == 0 {
                let verb = if case .x = first { "open" } else { "reach" }
                log.warning("cannot \(verb) \(first.described) yet; retrying (attempt \(attempts): \(why))")
            }
            try? notifier.status("waiting for \(first.described)")
            let deadline = clock.now() + delay
            // Wait on the signalfd, not a sleep, so SIGTERM still stops us at once.
            while clock.now() < deadline {
                let ready = (try? Poller.wait([PollRequest(signals.fileDescriptor, .readable)] + waiting.pollRequests,
                                              timeoutMilliseconds: clock.now().millisecondsUntil(deadline))) ?? []
                handleSignals()
                if stopping { return .stopped }
                if ready.dropFirst().contains(where: { !$0.isEmpty }) {
                    let told = waiting.tell(failure)
                    if told > 0 { log.limited(.info, key: "told-waiting", "told \(told) client\(told == 1 ? "" : "s") that \(first.described) cannot be opened yet") }
                }
            }
            delay = min(delay * 2, .seconds(10))
        }
    }

    /// Beside the X displays: the Wayland seat `--wayland` names, or `$WAYLAND_DISPLAY`'s (not with
    /// `--no-wayland`), connected once (the engine retries it when it is lost); a compositor that cannot be
    /// reached is logged, and the X displays are served all the same.
    private func connectWayland() -> (connection: WaylandConnection, name: String)? {
        guard let name = waylandName else { return nil }
        engine.connectWayland = { try WaylandConnection(name: $0) }
        do {
            return (try WaylandConnection(name: name), name)
        } catch {
            log.warning("cannot serve the Wayland seat of \(name): \(error); serving the X displays")
            return nil
        }
    }

    /// The most X events handled before the loop looks at its other descriptors again.
    static let eventsPerTurn = 64

    /// Opens another display to serve: an X server with XFixes, or why not.
    static func open(_ name: String) -> Result<any XDisplay, StartFailure> {
        guard let connection = try? XConnection(displayName: name) else {
            return .failure(.cannotOpenDisplay(name, DisplayFailure.diagnose(name), stillTrying: false))
        }
        guard connection.xfixesEventBase != nil else {
            return .failure(.lacksXFixes(name))
        }
        return .success(connection)
    }

    private func loop() -> Int32 {
        while !stopping {
            handleXEvents()
            serveWaitingRequests()
            for side in engine.sides { side.x.flush() }
            if engine.dropLostDisplays() {
                log.error("lost the connection to the X server")
                return 1
            }
            if engine.lostOnlySeat { return 1 }
            let now = clock.now()
            engine.expire(now: now)
            for server in servers { server.expireIdle(now: now) }
            if let due = watchdogDue, due <= now {
                try? notifier.watchdog()
                watchdogDue = notifier.watchdogInterval.map { now + $0 / 2 }
            }
            var earliest = Earliest()
            earliest.add(engine.nextDeadline)
            earliest.add(watchdogDue)
            for server in servers { earliest.add(server.nextDeadline) }
            let deadline = earliest.value
            // XPending also sends what timers queued (a takeover). With X events still waiting, or clients
            // answered with requests waiting behind the answer, look at the sockets without blocking and
            // come back to them at once.
            let xBusy = engine.sides.contains { $0.x.eventsWaiting() > 0 } || servers.contains(where: \.hasAnsweredClients)

            // What this turn polls, in one array kept from turn to turn (as are the owners of its parts): the
            // signals, the conversions and the writer; each display; the control clients; the peers; the seat.
            polls.removeAll(keepingCapacity: true)
            polls.append(PollRequest(signals.fileDescriptor, .readable))
            polls.append(PollRequest(engine.conversionsDescriptor, .readable))
            polls.append(PollRequest(engine.writesDescriptor ?? FileDescriptor(rawValue: -1), .readable))
            let displaysStart = polls.count
            for side in engine.sides { polls.append(PollRequest(FileDescriptor(rawValue: side.x.pollDescriptor ?? -1), .readable)) }
            let clientsStart = polls.count
            pollClients.removeAll(keepingCapacity: true)
            pollServers.removeAll(keepingCapacity: true)
            for server in servers {
                let before = polls.count
                server.appendPollRequests(to: &polls, clients: &pollClients, now: clock.now())
                for _ in before..<polls.count { pollServers.append(server) }
            }
            let peersStart = polls.count
            pollPeers.removeAll(keepingCapacity: true)
            engine.peers.appendPollRequests(to: &polls, endpoints: &pollPeers)
            let waylandStart = polls.count
            engine.appendWaylandPollRequests(to: &polls)
            let ready: [PollEvents]
            do {
                ready = try Poller.wait(polls, timeoutMilliseconds: xBusy ? 0 : deadline.map { clock.now().millisecondsUntil($0) })
            } catch {
                log.error("poll failed: \(error)")
                return 1
            }
            Self.noteReadable(engine.sides, ready[displaysStart..<clientsStart])
            if !ready[0].isEmpty { handleSignals() }
            if !ready[1].isEmpty { engine.conversionsFinished() }
            if !ready[2].isEmpty || engine.writesDescriptor == nil { engine.writesFinished() }
            if waylandStart < polls.count {
                let waylandReady = ready[waylandStart...]
                // What the X servers sent before the compositor's events is handled first: the compositor's bridge
                // carries an X copy to the seat only after that copy's owner change reached every X client, so a
                // seat offer is judged knowing it (`WaylandSeatEndpoint`, the bridge's source).
                // The relay display's socket is looked at even if the poll did not see it readable: its bytes may have
                // come between the poll's look at it and its look at the compositor's.
                if waylandReady.contains(where: { !$0.isEmpty }) {
                    for side in engine.sides where side.id == engine.wayland?.relayDisplay?.id { side.x.socketIsReadable() }
                    handleXEvents()
                }
                engine.handleWayland(waylandReady, for: polls[waylandStart...])
            }
            for index in clientsStart..<peersStart where !ready[index].isEmpty {
                let events = ready[index]
                let server = pollServers[index - clientsStart]
                guard let client = pollClients[index - clientsStart] else { server.acceptPending(now: clock.now()); continue }
                if events.contains(.writable) { server.flush(client) }
                if events.contains(.readable) || events.contains(.hangup) || events.contains(.error) {
                    server.receive(from: client, now: clock.now())
                }
                // Requests already received wait while an answer is pending; the writable event resumes them.
                while let request = server.nextRequest(from: client) { engine.handle(request, from: context(client, of: server)) }
            }
            for index in peersStart..<waylandStart where !ready[index].isEmpty {
                engine.peers.handle(ready[index], for: pollPeers[index - peersStart])
            }
        }
        return 0
    }

    /// Handles the X events the displays have sent (Xlib may already hold events read during round trips), in
    /// turn: one event of each display with events at a time, at most `eventsPerTurn` of each per call, so that a
    /// flood of X requests (100 busy requestors) cannot starve the control socket and signals, and a display whose
    /// events keep coming (an owner streaming a large copy in, each chunk read bringing the next chunk's event)
    /// never holds up another's — a reader there waiting for those chunks relayed, whose deletes are what lets the
    /// next one go. A display found drained is asked again only once its socket is seen readable
    /// (`XConnection.eventsWaiting`), which the loop's poll would see only after the batch: so when a round found
    /// one drained while another had events, their sockets are looked at (one poll, not waiting) before the next.
    private func handleXEvents() {
        let sides = engine.sides
        for _ in 0..<Self.eventsPerTurn {
            var handled = false, drained = false
            for side in sides {
                guard side.x.eventsWaiting() > 0 else { drained = true; continue }
                side.handle(side.x.nextEvent())
                handled = true
            }
            guard handled else { break }
            if drained, let ready = try? Poller.wait(Self.pollRequests(of: sides), timeoutMilliseconds: 0) {
                Self.noteReadable(sides, ready[...])
            }
        }
        for side in sides { side.handle(errors: side.x.takeErrors()) }
    }

    /// One poll request (readable) per display's connection, in the order of `sides`.
    private static func pollRequests(of sides: [XDisplayEndpoint]) -> [PollRequest] {
        sides.map { PollRequest(FileDescriptor(rawValue: $0.x.pollDescriptor ?? -1), .readable) }
    }

    /// Tells each display whose poll (one request each, in the order of `sides`, in `ready`) found bytes to read that its socket is readable.
    private static func noteReadable(_ sides: [XDisplayEndpoint], _ ready: ArraySlice<PollEvents>) {
        for (side, events) in zip(sides, ready) where !events.isEmpty { side.x.socketIsReadable() }
    }

    /// Serves requests that clients sent while an earlier one was being answered, now that it is.
    private func serveWaitingRequests() {
        for server in servers {
            for client in server.takeAnsweredClients() {
                while let request = server.nextRequest(from: client) { engine.handle(request, from: context(client, of: server)) }
            }
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

    /// How the engine answers client `id` of `server` (a remote one when it is the remote socket's).
    private func context(_ id: ClientID, of server: ControlServer) -> DaemonEngine.Client {
        DaemonEngine.Client(id: id, send: { [weak server] in server?.send($0, to: id) },
                            setWatched: { [weak server] in server?.clients[id]?.watched = $0 },
                            closeAfterAnswer: { [weak server] in server?.closeAfterAnswer(id) },
                            display: server.clients[id]?.display,
                            setDisplay: { [weak server] in server?.clients[id]?.display = $0 },
                            isRemote: server.access != nil, source: server.clients[id].flatMap(Self.source(of:)),
                            setEvents: { [weak server] in server?.clients[id]?.events = $0 },
                            takeConnection: { [weak server] in server?.release(id) })
    }

    /// The process at the other end of a control connection, by its peer credentials: its name from
    /// `/proc/PID/comm`, looked up once per connection (nil when the process is gone or unreadable).
    private static func source(of client: ControlServer.Client) -> ContentSource? {
        if let known = client.peerSource { return known }
        let pid = client.peerPID
        let source = SourceLookup.processName(of: pid).flatMap { ContentSource(application: $0, processID: pid) }
        client.peerSource = .some(source)
        return source
    }

    /// What a watcher is sent of an event the engine broadcast: a `watch` client (`events` nil) gets `change`
    /// events as `changed` (and no `kept` or `read`); a `watchEvents` client what it asked for.
    static func event(_ event: ControlResponse, for events: WatchEvents?) -> ControlResponse? {
        switch event {
        case .change(let change):
            guard let events else { return change.legacy }
            return events.contains(.changes) ? event : nil
        case .read:
            return events?.contains(.reads) == true ? event : nil
        default:
            return events == nil || events!.contains(.changes) ? event : nil
        }
    }

    /// SIGHUP: reads the configuration again; a bad file keeps the running configuration.
    private func reloadConfiguration() {
        do {
            var reloaded = try DaemonConfiguration.load(environment: environment)
            if options.sharePrimary { reloaded.sharePrimary = true }
            // The displays are those of the start; `pb displays add/remove` changes them at run time.
            reloaded.displays = configuration.displays
            configuration = reloaded
            engine.reconfigure(reloaded)
            log.info("reloaded the configuration")
        } catch {
            log.error("\(error); keeping the running configuration")
        }
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
}
