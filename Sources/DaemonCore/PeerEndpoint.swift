// SPDX-License-Identifier: Apache-2.0
import ControlProtocol
import PasteboardCore
import SystemSupport

/// One connection's bytes, without blocking: frames read into a decoder capped at our frame size, frames written
/// as the socket takes them (a large value from its own array, not copied). The only I/O of a peer link.
final class PeerConnection {
    let fd: FileDescriptor
    private var decoder: FrameDecoder
    private var output: [[UInt8]] = []
    private var outputOffset = 0

    init(fd: FileDescriptor, maximumFrameBytes: Int, received: [UInt8] = []) {
        self.fd = fd
        decoder = FrameDecoder(maximumFrameLength: maximumFrameBytes)
        decoder.append(received)
    }

    var hasOutput: Bool { !output.isEmpty }
    /// Bytes queued and not written yet.
    var queuedBytes: Int { output.reduce(0) { $0 + $1.count } - outputOffset }

    /// Queues `segments` and writes what fits now; throws when the connection is broken.
    func send(_ segments: [[UInt8]]) throws {
        output += segments.filter { !$0.isEmpty }
        try flush()
    }

    func flush() throws {
        while let segment = output.first {
            let written = try segment.withUnsafeBytes { try fd.writeSome(UnsafeRawBufferPointer(rebasing: $0[outputOffset...])) }
            if written == 0 { return }
            outputOffset += written
            if outputOffset == segment.count {
                output.removeFirst()
                outputOffset = 0
            }
        }
    }

    enum Received { case frames([[UInt8]]), ended(String) }

    /// Reads what arrived (bounded per call, so one fast peer cannot starve the loop): the complete frame bodies,
    /// or why the connection ended (closed by the peer, an error, a frame over our cap).
    func receive() -> Received {
        var frames: [[UInt8]] = []
        for _ in 0..<64 {
            let result: FileDescriptor.ReadResult
            do { result = try fd.readAvailable(max: 1 << 20) } catch { return .ended("the connection failed: \(error)") }
            switch result {
            case .wouldBlock:
                return take(into: &frames) ?? .frames(frames)
            case .endOfFile:
                if let failure = take(into: &frames) { return failure }
                return frames.isEmpty ? .ended("the peer closed the connection") : .frames(frames)
            case .data(let bytes):
                decoder.append(bytes)
                if let failure = take(into: &frames) { return failure }
            }
        }
        return .frames(frames)
    }

    private func take(into frames: inout [[UInt8]]) -> Received? {
        do {
            while let frame = try decoder.nextFrame() { frames.append(frame) }
        } catch {
            return .ended("the peer sent a frame over the cap: \(error)")
        }
        return nil
    }

    /// Closes the descriptor once; what was queued is dropped (the number may be reused at once).
    func close() {
        guard !closed else { return }
        closed = true
        output = []
        outputOffset = 0
        try? fd.close()
    }
    private(set) var closed = false
}

/// A peer daemon attached to the engine: its side is the other daemon's pasteboard, reached over one connection
/// (the peer's remote.sock, forwarded). The protocol's state is a `PeerSession`; this is the engine's side of it.
///
/// - Tokens out: another endpoint's offer is sent to the peer as an offer frame (types, sizes when known) with its
///   origin across daemons (`PeerLedger`), never back to a peer it came through; content that is sensitive,
///   local-only or marked secret never crosses: the peer is told the pasteboard is empty instead.
/// - Tokens in: an offer from the peer is judged by the ledger (a loop, a duplicate by another way, too far:
///   dropped) and reported to the engine as a change of this side at this daemon's count + 1; never echoed back
///   (the engine never serves an offer to its origin).
/// - Bytes: a fetch of the peer's offer is asked over the connection (the engine's deadline refuses the reader
///   when the peer is slow); the peer's fetches are routed by the engine to the origin of our current offer.
final class PeerEndpoint: PasteboardEndpoint {
    let id: EndpointID
    /// The socket it was dialled at, or the name the accepted peer gave.
    let name: String
    weak var engine: PasteboardEngine?
    unowned let peers: Peers
    private(set) var session: PeerSession
    let connection: PeerConnection
    private let log: Logger
    private var serial: UInt64 = 0
    private var completions: [UInt64: (FetchResult) -> Void] = [:]
    /// True while the engine serves what it holds to this endpoint as it attaches: those offers are `initial`.
    var attaching = false
    /// The last frame sent per pasteboard was a clear (not sent twice in a row).
    private var clearedThere: Set<PasteboardName> = []

    init(id: EndpointID, name: String, peers: Peers, session: PeerSession, connection: PeerConnection, log: Logger) {
        self.id = id
        self.name = name
        self.peers = peers
        self.session = session
        self.connection = connection
        self.log = log
    }

    // MARK: - The engine's side

    func serve(_ offer: Offer, count: UInt64) {
        guard let identity = session.identity, let across = peers.origin(of: offer) else { return }
        // Never to a daemon it already passed through: it would drop it as a loop.
        guard !across.path.contains(identity.daemon) else { return }
        let name = offer.pasteboard
        if let reason = Self.withheld(offer) {
            log.limited(.info, key: "peer-withheld", "\(name) \(reason): the peers are told it is empty, never sent its content")
            sendClear(name, across)
            return
        }
        // Sizes without reading the bytes (large content may be served from its file).
        let types = offer.types.map { type in
            PeerType(type.rawValue, size: offer.content.flatMap { content in
                content.items.lazy.compactMap { $0.representation(for: type)?.byteCount }.first.map(UInt64.init)
            })
        }
        guard let frame = session.announce(name, origin: offer.origin, serial: offer.serial, across: across, types: types,
                                           initial: attaching) else { return }
        clearedThere.remove(name)
        send(frame)
    }

    func withdraw(_ pasteboard: PasteboardName, count: UInt64) {
        guard let identity = session.identity else { return }
        let across = peers.clearing ?? peers.ledgerOrigin(for: pasteboard)
        guard !across.path.contains(identity.daemon) else { return }
        sendClear(pasteboard, across)
    }

    private func sendClear(_ pasteboard: PasteboardName, _ across: PeerOrigin) {
        guard !clearedThere.contains(pasteboard), let frame = session.announceClear(pasteboard, across: across) else { return }
        clearedThere.insert(pasteboard)
        send(frame)
    }

    /// Counts are each daemon's own: a peer's change counts +1 here when it arrives, nothing crosses.
    func adopt(count: UInt64, for pasteboard: PasteboardName) {}

    func fetch(_ pasteboard: PasteboardName, type: PasteboardType, serial: UInt64, completion: @escaping (FetchResult) -> Void) {
        switch session.ask(pasteboard, serial: serial, type: type, now: peers.clock.now()) {
        case .failure(let refusal): completion(.failed(refusal.reason))
        case .success(let (request, frame)):
            completions[request] = completion
            send(frame)
        }
    }

    /// Nothing of a peer's offer is kept here: once it is gone, what it offered is withdrawn.
    func keptContent(of pasteboard: PasteboardName) -> PasteboardContent? { nil }

    /// A peer is sent an offer's types only; its bytes are read from the engine's offer when the peer asks, so the
    /// same content in a file changes nothing here.
    func replaceContent(of pasteboard: PasteboardName, with content: PasteboardContent) {}

    /// Why `offer` never crosses to a peer, or nil when it may.
    static func withheld(_ offer: Offer) -> String? {
        if offer.isSensitive { return "is sensitive" }
        if offer.isLocalOnly { return "was copied with --local-only" }
        if let content = offer.content, let reason = RemoteAccess.withholding(content) { return reason }
        let types = Set(offer.types.map(\.rawValue))
        if !types.isDisjoint(with: SnapshotPolicy.concealedMarkers) || types.contains(SnapshotPolicy.passwordManagerHint) {
            return "was marked secret by the application that copied it"
        }
        return nil
    }

    // MARK: - The connection's side

    /// Sends `frame`. A broken connection is closed on the loop's next turn (`broken`), not here: a send happens
    /// while the engine passes a change to every side, which must not see a side detached mid-way.
    func send(_ frame: PeerFrame) {
        guard broken == nil, !isClosed else { return }
        do { try connection.send(frame.encodeSegments()) } catch {
            broken = "the connection failed: \(error)"
        }
    }

    /// Why the connection broke while sending, until the session is closed for it.
    private(set) var broken: String?

    /// Reads and handles what the peer sent.
    func receive() {
        switch connection.receive() {
        case .frames(let frames):
            for body in frames where !isClosed { handle(session.receive(body, now: peers.clock.now())) }
        case .ended(let reason):
            handle(session.close(reason))
        }
    }

    func flush() {
        guard !isClosed else { return }
        do { try connection.flush() } catch { handle(session.close("the connection failed: \(error)")) }
    }

    var isClosed: Bool { if case .closed = session.phase { true } else { false } }

    var nextDeadline: MonotonicInstant? { session.nextDeadline }

    func expire(now: MonotonicInstant) {
        if let broken { return handle(session.close(broken)) }
        handle(session.expire(now: now))
    }

    /// Closes the session from our side (removed, redundant, stopping).
    func close(_ reason: String) { handle(session.close(reason)) }

    private func handle(_ events: [PeerSession.Event]) {
        for event in events {
            switch event {
            case .opened(let identity): peers.opened(self, identity)
            case .offered(let offer): offered(offer)
            case .cleared(let pasteboard, let origin): cleared(pasteboard, origin)
            case .fetchAsked(let request, let pasteboard, let origin, let serial, let type):
                fetchAsked(request, pasteboard, origin: origin, serial: serial, type: type)
            case .answered(let request, let result): completions.removeValue(forKey: request)?(result)
            case .send(let frame): send(frame)
            case .closed(let reason):
                for (_, completion) in completions.sorted(by: { $0.key < $1.key }) { completion(.failed("the peer is gone: \(reason)")) }
                completions = [:]
                peers.closed(self, reason)
            }
        }
    }

    private func offered(_ offer: PeerOffer) {
        guard let engine, let name = PasteboardName.named(offer.pasteboard), engine.isShared(name) else { return }
        switch peers.ledger.judge(offer.origin, of: name) {
        case .new: break
        case .loop:
            log.limited(.info, key: "peer-loop", "dropped a change of \(name) that came back round a loop of peers (through \(offer.origin.path.count) daemons)")
            return
        case .duplicate:
            log.limited(.debug, key: "peer-duplicate", "dropped a change of \(name) that arrived from two peers")
            return
        case .tooFar:
            log.limited(.info, key: "peer-far", "dropped a change of \(name) that passed through \(PeerLimits.maximumHops) daemons")
            return
        }
        // The two sides' initial offers cross: the daemon with the larger id keeps its own.
        if offer.initial, engine.current[name] != nil, let identity = session.identity, peers.daemon > identity.daemon { return }
        let limit = UInt64(session.maximumFrameBytes - PeerLimits.dataOverhead)
        let types = offer.types.filter { ($0.size ?? 0) <= limit }.map { PasteboardType($0.name) }
        if types.count < offer.types.count {
            log.limited(.info, key: "peer-type-cap", "a peer's copy of \(name) is offered without the types larger than \(limit) bytes")
        }
        serial += 1
        session.accept(offer, serial: serial)
        clearedThere.remove(name)
        engine.changed(name, on: id, count: peers.count(name) + 1,
                       .offered(Offer(pasteboard: name, origin: id, serial: serial, types: types)))
    }

    private func cleared(_ name: PasteboardName, _ origin: PeerOrigin) {
        guard let engine, engine.isShared(name), PasteboardName.named(name.rawValue) != nil else { return }
        guard peers.ledger.judge(origin, of: name) == .new else { return }
        clearedThere.insert(name)   // the peer is empty: no clear needs to go back
        peers.clearing = peers.ledger.forwarding(origin)
        defer { peers.clearing = nil }
        engine.changed(name, on: id, count: peers.count(name) + 1, .cleared)
    }

    private func fetchAsked(_ request: UInt64, _ name: PasteboardName, origin: EndpointID, serial: UInt64, type: PasteboardType) {
        guard let engine else { return answer(request, .failed("pasteboardd is stopping")) }
        if let current = engine.current[name], current.origin == origin, current.serial == serial, let reason = Self.withheld(current) {
            return answer(request, .failed("what \(name) holds \(reason)"))
        }
        engine.fetch(name, type: type, serial: serial, origin: origin, for: id) { [weak self] result in
            // A peer gets the value in one frame: bytes still arriving are sent once they are all in.
            result.whole { self?.answer(request, $0) }
        }
    }

    private func answer(_ request: UInt64, _ result: FetchResult) {
        guard !isClosed, let frame = session.answer(request, result) else { return }
        send(frame)
    }
}
