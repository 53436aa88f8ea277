// SPDX-License-Identifier: Apache-2.0
import ControlProtocol
import PasteboardCore
import SystemSupport

/// The peer daemons: those asked for (`pb peer add SOCKET`, kept in `$XDG_STATE_HOME/pasteboard/peers`), each
/// dialled and, once dropped, retried with backoff (0.25 s doubling to 30 s) while it stays listed; those that
/// dialled us through the remote socket; and the daemon-wide loop guard (`PeerLedger`). Each open connection is a
/// `PeerEndpoint` attached to the engine. Nothing here blocks: a connect to a Unix socket does not wait (a full
/// backlog is a failed attempt), and every read and write is non-blocking.
final class Peers {
    /// This daemon's id across peers: drawn at each start, so a restarted daemon's serials start afresh.
    let daemon: UInt64
    /// What the peers call this daemon in their logs.
    let name: String
    var ledger: PeerLedger
    let clock: any MonotonicClock
    private let log: Logger
    private let engine: PasteboardEngine
    /// The largest frame body a peer may send us (a fetched value and its framing).
    let maximumFrameBytes: Int
    /// The count a change from a peer adds one to: this daemon's count of the pasteboard.
    var count: (PasteboardName) -> UInt64 = { _ in 0 }
    /// A new endpoint id from the daemon's one sequence.
    var newID: () -> EndpointID
    /// Opens a connection to a socket path (tests give socket pairs): a non-blocking descriptor, or why not.
    var dial: (String) -> Result<FileDescriptor, PeerRefusal> = { path in
        do { return .success(try UnixSocket.connect(.path(path), nonBlocking: true)) } catch {
            return .failure(PeerRefusal("cannot connect to \(path): \(error)"))
        }
    }
    /// The origin of a clear being passed on from a peer (set while the engine passes it to the others).
    var clearing: PeerOrigin?
    private var localOrigins: [PasteboardName: (origin: EndpointID, serial: UInt64, across: PeerOrigin)] = [:]

    /// How a peer asked for stands, for `pb peer list`.
    enum State: String { case connecting, connected, disconnected, redundant }

    private struct Entry {
        var socket: String
        var persistent: Bool
        var state: State = .connecting
        var lastError = ""
        var retryAt: MonotonicInstant?
        var delay: Duration = Peers.firstRetryDelay
        var attempts = 0
        var endpoint: PeerEndpoint?
    }

    static let firstRetryDelay: Duration = .milliseconds(250)
    static let longestRetryDelay: Duration = .seconds(30)
    /// Peers at once (asked for and accepted), each one a connection and an endpoint.
    static let maximumPeers = 64

    private var entries: [Entry] = []
    /// Connections other daemons dialled to our remote socket.
    private var accepted: [PeerEndpoint] = []
    private let statePath: String?

    init(engine: PasteboardEngine, clock: any MonotonicClock, log: Logger, name: String, stateDirectory: String?,
         maximumFrameBytes: Int, daemon: UInt64 = UInt64.random(in: 1...UInt64.max - 1), newID: @escaping () -> EndpointID) {
        self.engine = engine
        self.clock = clock
        self.log = log
        self.name = name
        self.daemon = daemon
        self.maximumFrameBytes = max(maximumFrameBytes, PeerLimits.minimumFrameBytes)
        self.newID = newID
        ledger = PeerLedger(daemon: daemon)
        statePath = stateDirectory.map { $0 + "/peers" }
    }

    // MARK: - Asked for

    /// Dials the peers kept from the last run.
    func start() {
        guard let path = statePath, let bytes = try? FileSystem.readFile(path, limit: 1 << 20) else { return }
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") where line.hasPrefix("/") {
            _ = add(String(line), persistent: true, save: false)
        }
    }

    /// Asks for the peer at `socket`: dialled at once, then retried while listed. Why not, when it is listed
    /// already or is not an absolute path.
    func add(_ socket: String, persistent: Bool, save: Bool = true) -> PeerRefusal? {
        guard socket.hasPrefix("/") else { return PeerRefusal("'\(socket)' is not an absolute path to a socket") }
        guard !entries.contains(where: { $0.socket == socket }) else { return PeerRefusal("\(socket) is a peer already") }
        guard entries.count + accepted.count < Self.maximumPeers else { return PeerRefusal("at most \(Self.maximumPeers) peers") }
        entries.append(Entry(socket: socket, persistent: persistent))
        if save && persistent { self.save() }
        attempt(entries.count - 1, now: clock.now())
        return nil
    }

    /// Stops sharing with the peer at `socket` and forgets it; false when it is not listed.
    func remove(_ socket: String) -> Bool {
        guard let index = entries.firstIndex(where: { $0.socket == socket }) else { return false }
        let entry = entries.remove(at: index)
        if let endpoint = entry.endpoint { endpoint.close("removed") }
        if entry.persistent { save() }
        return true
    }

    /// The peers asked for, in order, then those that dialled us.
    var list: [PeerInfo] {
        entries.map { PeerInfo(socket: $0.socket, state: $0.state.rawValue, lastError: $0.lastError) }
            + accepted.filter { $0.session.isOpen }.map { PeerInfo(socket: "(accepted) " + $0.name, state: State.connected.rawValue, lastError: "") }
    }

    /// Endpoints with an open session.
    var connectedCount: Int { (entries.compactMap(\.endpoint) + accepted).filter { $0.session.isOpen }.count }

    private func save() {
        guard let path = statePath else { return }
        let text = entries.filter(\.persistent).map { $0.socket + "\n" }.joined()
        do { try AtomicFile.write(Array(text.utf8), to: path) } catch { log.warning("cannot save the list of peers: \(error)") }
    }

    private func attempt(_ index: Int, now: MonotonicInstant) {
        var entry = entries[index]
        entry.attempts += 1
        entry.retryAt = nil
        switch dial(entry.socket) {
        case .success(let fd):
            let connection = PeerConnection(fd: fd, maximumFrameBytes: maximumFrameBytes)
            let session = PeerSession(dialingAt: now, maximumFrameBytes: maximumFrameBytes, fetchTimeout: engine.fetchTimeout)
            let endpoint = PeerEndpoint(id: newID(), name: entry.socket, peers: self, session: session, connection: connection, log: log)
            endpoint.engine = engine
            entry.endpoint = endpoint
            entry.state = .connecting
            entries[index] = entry
            do {
                try connection.send([PeerSession.opening(daemon: daemon, name: name, maximumFrameBytes: maximumFrameBytes)])
            } catch {
                endpoint.close("the connection failed: \(error)")
            }
        case .failure(let refusal):
            entry.lastError = refusal.reason
            if entry.attempts == 1 || entry.attempts % 10 == 0 {
                log.warning("peer \(entry.socket): \(refusal.reason) (attempt \(entry.attempts)); retrying")
            }
            scheduleRetry(&entry, now: now)
            entries[index] = entry
        }
    }

    private func scheduleRetry(_ entry: inout Entry, now: MonotonicInstant) {
        // Not reached yet stays `connecting`; reached once and lost, `disconnected` until it is back.
        if entry.state == .connected { entry.state = .disconnected }
        entry.retryAt = now + entry.delay
        entry.delay = min(entry.delay * 2, Self.longestRetryDelay)
    }

    // MARK: - Dialled by another daemon

    /// Judges a `peer` handshake that arrived on the remote socket: the identity to open a session with, or why not.
    func admit(version: UInt8, daemon other: UInt64, name: String, maximumFrameBytes: UInt64) -> Result<PeerIdentity, PeerRefusal> {
        guard entries.count + accepted.count < Self.maximumPeers else { return .failure(PeerRefusal("at most \(Self.maximumPeers) peers")) }
        return PeerSession.admit(version: version, daemon: other, name: name, maximumFrameBytes: maximumFrameBytes,
                                 ourDaemon: daemon, peered: peeredDaemons)
    }

    /// Opens a session on a connection the remote socket handed over after admitting its handshake: welcomes the
    /// peer and attaches it.
    func accept(_ identity: PeerIdentity, fd: FileDescriptor, received: [UInt8]) {
        let connection = PeerConnection(fd: fd, maximumFrameBytes: maximumFrameBytes, received: received)
        let session = PeerSession(accepted: identity, maximumFrameBytes: maximumFrameBytes, fetchTimeout: engine.fetchTimeout)
        let endpoint = PeerEndpoint(id: newID(), name: identity.name, peers: self, session: session, connection: connection, log: log)
        endpoint.engine = engine
        accepted.append(endpoint)
        endpoint.send(.welcome(version: PeerProtocolVersion.current, daemon: daemon, name: name, maximumFrameBytes: UInt64(maximumFrameBytes)))
        guard !endpoint.isClosed else { return }
        log.info("peered with \(identity.name), which connected through the remote socket")
        attach(endpoint)
        endpoint.receive()   // frames that came with the handshake
    }

    private var peeredDaemons: Set<UInt64> {
        Set((entries.compactMap(\.endpoint) + accepted).compactMap { $0.session.identity?.daemon })
    }

    // MARK: - The endpoints' reports

    /// A dialled peer welcomed us.
    func opened(_ endpoint: PeerEndpoint, _ identity: PeerIdentity) {
        guard let index = entries.firstIndex(where: { $0.endpoint === endpoint }) else { return }
        let others = Set((entries.compactMap(\.endpoint) + accepted).filter { $0 !== endpoint }.compactMap { $0.session.identity?.daemon })
        if identity.daemon == daemon { return endpoint.close("that socket is this pasteboardd's own") }
        if others.contains(identity.daemon) {
            entries[index].state = .redundant
            return endpoint.close("already peered with that pasteboardd through another connection")
        }
        entries[index].state = .connected
        entries[index].lastError = ""
        entries[index].delay = Self.firstRetryDelay
        log.info("peered with \(identity.name) at \(entries[index].socket)" + (entries[index].attempts > 1 ? " (after \(entries[index].attempts) attempts)" : ""))
        entries[index].attempts = 0
        attach(endpoint)
    }

    private func attach(_ endpoint: PeerEndpoint) {
        endpoint.attaching = true
        engine.attach(endpoint)
        endpoint.attaching = false
    }

    /// A session ended: detached from the engine (what it offered is withdrawn), and retried if it was asked for.
    func closed(_ endpoint: PeerEndpoint, _ reason: String) {
        engine.detach(endpoint.id)
        endpoint.connection.close()
        if let index = accepted.firstIndex(where: { $0 === endpoint }) {
            accepted.remove(at: index)
            log.info("peer \(endpoint.name) is gone: \(reason)")
            return
        }
        guard let index = entries.firstIndex(where: { $0.endpoint === endpoint }) else { return }
        var entry = entries[index]
        entry.endpoint = nil
        entry.lastError = reason
        if entry.state == .connected { log.warning("peer \(entry.socket) is gone: \(reason); retrying") }
        else if entry.state != .redundant && !endpoint.session.refusedAsRedundant && (entry.attempts == 1 || entry.attempts % 10 == 0) {
            log.warning("peer \(entry.socket): \(reason) (attempt \(entry.attempts)); retrying")
        }
        if endpoint.session.refusedAsRedundant { entry.state = .redundant }
        if entry.state == .redundant { entry.delay = Self.longestRetryDelay }
        scheduleRetry(&entry, now: clock.now())
        entries[index] = entry
    }


    /// Closes every connection (the daemon is stopping).
    func stop() {
        for endpoint in entries.compactMap(\.endpoint) + accepted { endpoint.flush(); endpoint.close("pasteboardd stopped") }
    }

    // MARK: - Origins across daemons

    /// The origin across daemons of `offer` as it is passed to peers: a peer's offer keeps its origin with this
    /// daemon added to its path; a change made here gets one of this daemon's own (the same for every peer).
    func origin(of offer: Offer) -> PeerOrigin? {
        if let peer = (entries.compactMap(\.endpoint) + accepted).first(where: { $0.id == offer.origin }) {
            guard let received = peer.session.token(for: offer.pasteboard, serial: offer.serial) else { return nil }
            return ledger.forwarding(received.origin)
        }
        if let known = localOrigins[offer.pasteboard], known.origin == offer.origin, known.serial == offer.serial { return known.across }
        let across = ledger.originate(offer.pasteboard)
        localOrigins[offer.pasteboard] = (offer.origin, offer.serial, across)
        return across
    }

    /// A fresh origin of a clear made here (or withdrawn here: a peer that went away).
    func ledgerOrigin(for pasteboard: PasteboardName) -> PeerOrigin {
        localOrigins[pasteboard] = nil
        return ledger.originate(pasteboard)
    }

    // MARK: - The loop's side

    /// Every open connection's descriptor: readable, and writable while output waits.
    var pollRequests: [(PollRequest, PeerEndpoint)] {
        var requests: [PollRequest] = [], endpoints: [PeerEndpoint] = []
        appendPollRequests(to: &requests, endpoints: &endpoints)
        return Array(zip(requests, endpoints))
    }

    /// The same appended to `requests`, the endpoint each is for to `endpoints` (the loop keeps both arrays from turn
    /// to turn).
    func appendPollRequests(to requests: inout [PollRequest], endpoints: inout [PeerEndpoint]) {
        func add(_ endpoint: PeerEndpoint) {
            requests.append(PollRequest(endpoint.connection.fd, endpoint.connection.hasOutput ? [.readable, .writable] : .readable))
            endpoints.append(endpoint)
        }
        for entry in entries { if let endpoint = entry.endpoint { add(endpoint) } }
        for endpoint in accepted { add(endpoint) }
    }

    func handle(_ events: PollEvents, for endpoint: PeerEndpoint) {
        guard !endpoint.isClosed else { return }   // closed since the poll: its descriptor may be another's now
        if events.contains(.writable) { endpoint.flush() }
        if !endpoint.isClosed && (events.contains(.readable) || events.contains(.hangup) || events.contains(.error)) {
            endpoint.receive()
        }
    }

    var nextDeadline: MonotonicInstant? {
        var earliest = Earliest()
        for entry in entries {
            earliest.add(entry.retryAt)
            guard let endpoint = entry.endpoint else { continue }
            if endpoint.broken != nil { return clock.now() }
            earliest.add(endpoint.nextDeadline)
        }
        for endpoint in accepted {
            if endpoint.broken != nil { return clock.now() }
            earliest.add(endpoint.nextDeadline)
        }
        return earliest.value
    }

    func expire(now: MonotonicInstant) {
        for entry in entries { entry.endpoint?.expire(now: now) }
        for endpoint in accepted { endpoint.expire(now: now) }
        for index in entries.indices where entries[index].retryAt.map({ $0 <= now }) == true && entries[index].endpoint == nil {
            attempt(index, now: now)
        }
    }
}
