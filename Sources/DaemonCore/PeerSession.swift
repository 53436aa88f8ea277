// SPDX-License-Identifier: Apache-2.0
import ControlProtocol
import PasteboardCore
import SystemSupport

/// Who a peer daemon is, as its handshake said.
struct PeerIdentity: Equatable {
    /// Drawn at each start of that daemon: a restarted daemon is a new one.
    var daemon: UInt64
    var name: String
    /// The largest frame body it accepts.
    var maximumFrameBytes: Int
}

/// One connection to a peer daemon as a value: the handshake, the offers sent (each with the local offer it
/// stands for) and received, the fetches asked with their deadlines and those being answered. It does no I/O:
/// the connection feeds it frame bodies and the time, and sends the frames it returns (`PeerEndpoint`).
///
/// Limits on what the peer controls: every frame is decoded with the protocol's caps (`PeerFrame.decode`); a
/// malformed frame, a frame during the handshake that is not its answer, or a handshake not answered within
/// `handshakeTimeout` closes the session with the reason (the link is retried); at most
/// `maximumFetchesAnswered` of the peer's fetches are answered at once (more are refused at once); at most
/// `maximumFetchesAsked` are asked of it, each forgotten at its deadline (a peer that never answers costs a
/// refusal, never memory).
struct PeerSession {
    enum Role: Equatable { case dialer, acceptor }

    enum Phase: Equatable {
        /// The dialer sent `hello` and `peer` and waits for the control hello's answer, then for `welcome`.
        case awaitingHello(deadline: MonotonicInstant)
        case awaitingWelcome(deadline: MonotonicInstant)
        case open(PeerIdentity)
        case closed(String)
    }

    /// What a received frame means for the endpoint.
    enum Event: Equatable {
        /// The handshake is done (the dialer's side; an acceptor is open from the start).
        case opened(PeerIdentity)
        case offered(PeerOffer)
        case cleared(PasteboardName, PeerOrigin)
        /// The peer asks for `type` of the local offer `serial` of `origin` that the token `request` names stood for.
        case fetchAsked(request: UInt64, pasteboard: PasteboardName, origin: EndpointID, serial: UInt64, type: PasteboardType)
        /// One of this side's fetches was answered.
        case answered(request: UInt64, FetchResult)
        /// A frame to send at once (a fetch refused without asking anyone).
        case send(PeerFrame)
        /// The session is over, and why.
        case closed(String)
    }

    static let handshakeTimeout: Duration = .seconds(5)
    static let maximumFetchesAnswered = 64
    static let maximumFetchesAsked = 128

    let role: Role
    private(set) var phase: Phase
    /// Our side's largest frame body, announced in the handshake.
    let maximumFrameBytes: Int
    /// How long a fetch asked of the peer is remembered (the engine refuses the reader at its own deadline).
    let fetchTimeout: Duration

    /// The latest offer sent per pasteboard: its token and the local offer it stands for; older tokens are stale.
    private var sent: [PasteboardName: (token: UInt64, origin: EndpointID, serial: UInt64)] = [:]
    private var nextToken: UInt64 = 1
    /// The latest offer received per pasteboard, with the local serial it is served under.
    private(set) var received: [PasteboardName: (offer: PeerOffer, serial: UInt64)] = [:]
    private var asked: [UInt64: MonotonicInstant] = [:]
    private var nextRequest: UInt64 = 1
    private var answering: Set<UInt64> = []
    /// The daemon there refused the handshake because it is peered with this one already (another connection, the
    /// other way round): nothing is wrong, this connection is not needed.
    private(set) var refusedAsRedundant = false

    /// A dialer's session: `opening` says what to send first.
    init(dialingAt now: MonotonicInstant, maximumFrameBytes: Int, fetchTimeout: Duration) {
        role = .dialer
        phase = .awaitingHello(deadline: now + Self.handshakeTimeout)
        self.maximumFrameBytes = maximumFrameBytes
        self.fetchTimeout = fetchTimeout
    }

    /// An acceptor's session, open from the start: the `peer` request was admitted (`admit`).
    init(accepted identity: PeerIdentity, maximumFrameBytes: Int, fetchTimeout: Duration) {
        role = .acceptor
        phase = .open(identity)
        self.maximumFrameBytes = maximumFrameBytes
        self.fetchTimeout = fetchTimeout
    }

    var identity: PeerIdentity? {
        if case .open(let identity) = phase { return identity }
        return nil
    }

    var isOpen: Bool { identity != nil }

    // MARK: - The handshake

    /// The dialer's first bytes: `hello`, then the `peer` request.
    static func opening(daemon: UInt64, name: String, maximumFrameBytes: Int) -> [UInt8] {
        ControlRequest.hello(version: ControlProtocolVersion.current, client: "pasteboardd peer").encode()
            + ControlRequest.peer(version: PeerProtocolVersion.current, daemon: daemon, name: name,
                                  maximumFrameBytes: UInt64(maximumFrameBytes)).encode()
    }

    /// The acceptor's judgement of a `peer` request from `daemon` arriving at `ourDaemon`, which is peered with
    /// `peered` already: the identity to open a session with, or why not.
    static func admit(version: UInt8, daemon: UInt64, name: String, maximumFrameBytes: UInt64, ourDaemon: UInt64,
                      peered: Set<UInt64>) -> Result<PeerIdentity, PeerRefusal> {
        guard version == PeerProtocolVersion.current else {
            return .failure(PeerRefusal("peering version \(version) is not supported (this daemon speaks \(PeerProtocolVersion.current))"))
        }
        guard daemon != ourDaemon else { return .failure(PeerRefusal("that socket is this pasteboardd's own")) }
        guard !peered.contains(daemon) else {
            return .failure(PeerRefusal("already peered with that pasteboardd through another connection", redundant: true))
        }
        guard maximumFrameBytes >= UInt64(PeerLimits.minimumFrameBytes) else {
            return .failure(PeerRefusal("a peer must accept frames of at least \(PeerLimits.minimumFrameBytes) bytes"))
        }
        return .success(PeerIdentity(daemon: daemon, name: printable(name), maximumFrameBytes: Int(clamping: maximumFrameBytes)))
    }

    /// Text a peer sent (its name, a reason), fit for a log line, `pb peer list` or a terminal: control characters
    /// (a tab, a newline, an escape sequence's ESC) become `?`, and at most 200 characters are kept.
    static func printable(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.prefix(200).map {
            $0.value < 0x20 || (0x7F...0x9F).contains($0.value) ? "?" : $0
        }))
    }

    // MARK: - Receiving

    /// What the frame `body` means; a session that is closed, or closes now, takes nothing more.
    mutating func receive(_ body: [UInt8], now: MonotonicInstant) -> [Event] {
        switch phase {
        case .closed: return []
        case .awaitingHello:
            guard case .hello? = try? ControlResponse.decode(body: body) else {
                return close("the socket's daemon did not greet as pasteboardd: \(answerText(body))")
            }
            phase = .awaitingWelcome(deadline: now + Self.handshakeTimeout)
            return []
        case .awaitingWelcome:
            if PeerFrame.kindNumber(of: body) == PeerFrame.Kind.welcome.rawValue,
               case .welcome(let version, let daemon, let name, let maximum)? = try? PeerFrame.decode(body: body) {
                guard version == PeerProtocolVersion.current else { return close("the peer speaks peering version \(version)") }
                guard maximum >= UInt64(PeerLimits.minimumFrameBytes) else { return close("the peer accepts too small frames") }
                let identity = PeerIdentity(daemon: daemon, name: Self.printable(name), maximumFrameBytes: Int(clamping: maximum))
                phase = .open(identity)
                return [.opened(identity)]
            }
            if case .error(.unavailable, _)? = try? ControlResponse.decode(body: body) { refusedAsRedundant = true }
            return close(answerText(body))
        case .open:
            let frame: PeerFrame
            do { frame = try PeerFrame.decode(body: body) } catch {
                return close("the peer sent a malformed frame: \(error)")
            }
            return handle(frame)
        }
    }

    private mutating func handle(_ frame: PeerFrame) -> [Event] {
        switch frame {
        case .welcome:
            return close("the peer sent a second welcome")
        case .offer(let offer):
            return [.offered(offer)]
        case .cleared(let pasteboard, let origin):
            received[PasteboardName(rawValue: pasteboard)] = nil
            return [.cleared(PasteboardName(rawValue: pasteboard), origin)]
        case .fetch(let request, let token, let type):
            guard !answering.contains(request) else { return close("the peer asked twice with request \(request)") }
            guard answering.count < Self.maximumFetchesAnswered else {
                return [.send(.failed(request: request, reason: "too many reads at once (at most \(Self.maximumFetchesAnswered))"))]
            }
            guard let (pasteboard, entry) = sent.first(where: { $0.value.token == token }) else {
                return [.send(.failed(request: request, reason: "the content asked for is no longer offered"))]
            }
            answering.insert(request)
            return [.fetchAsked(request: request, pasteboard: pasteboard, origin: entry.origin, serial: entry.serial,
                                type: PasteboardType(type))]
        case .data(let request, let bytes):
            guard asked.removeValue(forKey: request) != nil else { return [] }   // late (expired), or never asked
            return [.answered(request: request, .data(bytes))]
        case .failed(let request, let reason):
            guard asked.removeValue(forKey: request) != nil else { return [] }
            return [.answered(request: request, .failed("the peer: " + Self.printable(reason)))]
        }
    }

    /// Closes the session (the connection dropped, or a reason of our own).
    mutating func close(_ reason: String) -> [Event] {
        if case .closed = phase { return [] }
        phase = .closed(reason)
        asked = [:]
        answering = []
        return [.closed(reason)]
    }

    /// A control answer during the handshake, for people: an error's message, or what arrived instead.
    private func answerText(_ body: [UInt8]) -> String {
        switch try? ControlResponse.decode(body: body) {
        case .error(_, let message)?: Self.printable(message)
        case let response?: "unexpected answer \(response.kind) to the peering handshake"
        case nil: "an answer that is not pasteboardd's"
        }
    }

    // MARK: - Sending

    /// The offer frame for a local offer (`origin`'s `serial`) of `pasteboard`, recorded as the latest sent
    /// (a fetch naming an older token is refused). Types whose known size is over what the peer accepts are left
    /// out (a bad piece costs only itself); nil when nothing is left or the session is not open.
    mutating func announce(_ pasteboard: PasteboardName, origin: EndpointID, serial: UInt64, across: PeerOrigin,
                           types: [PeerType], initial: Bool = false) -> PeerFrame? {
        guard let identity else { return nil }
        let limit = UInt64(identity.maximumFrameBytes - PeerLimits.dataOverhead)
        let fitting = types.filter { ($0.size ?? 0) <= limit }.prefix(PeerLimits.maximumTypes)
        guard !fitting.isEmpty else { return nil }
        let token = nextToken
        nextToken += 1
        sent[pasteboard] = (token, origin, serial)
        return .offer(PeerOffer(token: token, pasteboard: pasteboard.rawValue, origin: across, types: Array(fitting), initial: initial))
    }

    /// The frame saying `pasteboard` is empty here; tokens sent before it are stale.
    mutating func announceClear(_ pasteboard: PasteboardName, across: PeerOrigin) -> PeerFrame? {
        guard isOpen else { return nil }
        sent[pasteboard] = nil
        return .cleared(pasteboard: pasteboard.rawValue, origin: across)
    }

    /// Records `offer` as the peer's latest of its pasteboard, served here under the local `serial`.
    mutating func accept(_ offer: PeerOffer, serial: UInt64) {
        received[PasteboardName(rawValue: offer.pasteboard)] = (offer, serial)
    }

    /// Whether a type of the offer served under `serial` is still the peer's latest of `pasteboard`.
    func token(for pasteboard: PasteboardName, serial: UInt64) -> PeerOffer? {
        guard let latest = received[pasteboard], latest.serial == serial else { return nil }
        return latest.offer
    }

    /// The fetch frame asking the peer for `type` of its offer under `serial`, and its request number; or why not.
    mutating func ask(_ pasteboard: PasteboardName, serial: UInt64, type: PasteboardType, now: MonotonicInstant) -> Result<(UInt64, PeerFrame), PeerRefusal> {
        guard isOpen else { return .failure(PeerRefusal("the peer is not connected")) }
        guard let offer = token(for: pasteboard, serial: serial) else {
            return .failure(PeerRefusal("\(pasteboard) changed on the peer since"))
        }
        guard asked.count < Self.maximumFetchesAsked else {
            return .failure(PeerRefusal("too many reads from the peer at once"))
        }
        let request = nextRequest
        nextRequest += 1
        asked[request] = now + fetchTimeout
        return .success((request, .fetch(request: request, token: offer.token, type: type.rawValue)))
    }

    /// The frame answering the peer's fetch `request` with `result`; a value larger than the peer accepts is
    /// refused with the reason instead.
    mutating func answer(_ request: UInt64, _ result: FetchResult) -> PeerFrame? {
        guard answering.remove(request) != nil, let identity else { return nil }
        switch result {
        case .data(let bytes):
            guard bytes.count + PeerLimits.dataOverhead <= identity.maximumFrameBytes else {
                return .failed(request: request, reason: "\(bytes.count) bytes, more than the asking pasteboardd accepts (\(identity.maximumFrameBytes))")
            }
            return .data(request: request, bytes: bytes)
        case .failed(let reason):
            return .failed(request: request, reason: reason)
        case .arriving:
            preconditionFailure("a peer is answered with the whole value (FetchResult.whole)")
        }
    }

    // MARK: - Time

    var nextDeadline: MonotonicInstant? {
        switch phase {
        case .awaitingHello(let deadline), .awaitingWelcome(let deadline): return deadline
        case .open: return asked.values.min()
        case .closed: return nil
        }
    }

    /// Closes a handshake not answered in time; forgets fetches past their deadline (their readers were refused).
    mutating func expire(now: MonotonicInstant) -> [Event] {
        switch phase {
        case .awaitingHello(let deadline), .awaitingWelcome(let deadline):
            return deadline <= now ? close("the peer did not answer the handshake within \(Self.handshakeTimeout)") : []
        case .open:
            let late = asked.filter { $0.value <= now }.map(\.key).sorted()
            for request in late { asked[request] = nil }
            return late.map { .answered(request: $0, .failed("the peer did not answer within \(fetchTimeout)")) }
        case .closed:
            return []
        }
    }

    /// Fetches asked and not answered (for tests and `pb status`).
    var fetchesAsked: Int { asked.count }
}

/// Why a peer, a handshake or a fetch is refused, for people.
struct PeerRefusal: Error, Equatable, CustomStringConvertible {
    var reason: String
    /// The same daemon is peered through another connection: nothing is wrong, this one is not needed.
    var redundant = false
    init(_ reason: String, redundant: Bool = false) {
        self.reason = reason
        self.redundant = redundant
    }
    var description: String { reason }
}

/// The daemon-wide loop guard for changes crossing peers: each change is judged once, whichever peer brings it.
/// A change made here gets an origin (this daemon's id, a serial increasing per pasteboard); a change passed on
/// gets this daemon appended to its path. One whose path holds this daemon came round a loop; one not newer than
/// the last seen from its origin daemon (per pasteboard) came by another way — both dropped; so is one that went
/// further than `PeerLimits.maximumHops`.
struct PeerLedger {
    enum Verdict: Equatable { case new, loop, duplicate, tooFar }

    let daemon: UInt64
    private struct Key: Hashable { var daemon: UInt64; var pasteboard: PasteboardName }
    private var latest: [Key: UInt64] = [:]
    /// Keys in the order first seen, to forget the oldest past `maximumOrigins`.
    private var order: [Key] = []
    private var serials: [PasteboardName: UInt64] = [:]
    /// Origins remembered; restarted daemons draw new ids, so old ones are forgotten oldest first.
    static let maximumOrigins = 4096

    init(daemon: UInt64) { self.daemon = daemon }

    /// Judges a change of `pasteboard` from `origin`, recording it when it is new.
    mutating func judge(_ origin: PeerOrigin, of pasteboard: PasteboardName) -> Verdict {
        if origin.daemon == daemon || origin.path.contains(daemon) { return .loop }
        if origin.path.count >= PeerLimits.maximumHops { return .tooFar }
        let key = Key(daemon: origin.daemon, pasteboard: pasteboard)
        if let last = latest[key], origin.serial <= last { return .duplicate }
        if latest[key] == nil {
            order.append(key)
            if order.count > Self.maximumOrigins { latest[order.removeFirst()] = nil }
        }
        latest[key] = origin.serial
        return .new
    }

    /// The origin of a change made here.
    mutating func originate(_ pasteboard: PasteboardName) -> PeerOrigin {
        let serial = (serials[pasteboard] ?? 0) + 1
        serials[pasteboard] = serial
        return PeerOrigin(daemon: daemon, serial: serial, path: [daemon])
    }

    /// `origin` as this daemon passes it on.
    func forwarding(_ origin: PeerOrigin) -> PeerOrigin {
        PeerOrigin(daemon: origin.daemon, serial: origin.serial, path: origin.path + [daemon])
    }
}
