// SPDX-License-Identifier: Apache-2.0
import ControlProtocol
import PasteboardCore
import SystemSupport

/// A client of the control socket, known by a number that is never reused (file descriptors are).
typealias ClientID = UInt64

/// The control socket: accepts same-uid clients (checked with SO_PEERCRED), reads framed requests
/// without blocking, and writes responses as the socket accepts them.
///
/// Limits: at most `maximumClients` connections (more are accepted, answered `unavailable` and closed at
/// once, so they never wait in the backlog); a frame larger than `maximumFrameLength` closes that client after an error
/// response, a malformed body is answered with an error; a client whose frame is still incomplete
/// `idleTimeout` after its first byte arrived, plus a second for each `progressAllowance` bytes of it that
/// came (`partialFrameDeadline`), is closed (slow-loris, trickling included), while idle clients between
/// frames are kept. A copy sent in pieces (`beginCopy`, `copyChunk`s, `commitCopy`) is gathered here, in the
/// client's `CopyTransfer`, and handed out at its commit as the `setItems` it stands for; one that stops coming
/// (`CopyTransfer.deadline`, the same allowance) is given up and the client closed. Requests are answered
/// strictly in order, one at a time: a client's
/// next request is taken only once the previous one is answered (some answers wait for the X server) and
/// that answer is written (backpressure), so a client that does not read costs at most one answer.
/// When `accept` fails for want of descriptors, accepting pauses for `acceptPause` instead of spinning.
final class ControlServer {
    final class Client {
        let id: ClientID
        let fd: FileDescriptor
        var decoder: FrameDecoder
        /// Encoded responses waiting for the socket, in order: small frames coalesced, large
        /// representation data shared with the content it came from (a 64 MiB paste is not copied).
        var output: [[UInt8]] = []
        /// Bytes of `output[0]` already written.
        var outputOffset = 0
        var greeted = false
        var closeWhenFlushed = false
        /// A request was handed out by `nextRequest` and not answered yet.
        var answering = false
        /// Set while a partial frame is buffered.
        var partialSince: MonotonicInstant?
        var watched: Set<String>? = nil
        /// What a `watchEvents` client is sent; nil: a `watch` client (`changed` events).
        var events: WatchEvents?
        /// The peer's process (SO_PEERCRED) and its name, looked up once, when first needed.
        var peerPID: Int32 = 0
        var peerSource: ContentSource??
        /// The X display the client said it is on (`onDisplay`), for per-display pasteboards.
        var display: String?
        /// What a remote client may still send now (`RemoteAccess`); nil on the control socket.
        var rate: RequestRate?
        /// The copy this client sends in pieces, if one is open (`CopyTransfer`).
        var copy: CopyTransfer

        init(id: ClientID, fd: FileDescriptor, maximumFrameLength: Int) {
            self.id = id
            self.fd = fd
            decoder = FrameDecoder(maximumFrameLength: maximumFrameLength)
            copy = CopyTransfer(maximumBytes: maximumFrameLength)
        }
        var hasOutput: Bool { !output.isEmpty }
    }

    let listener: UnixListener
    private let userID: UInt32
    private let log: Logger
    private let maximumFrameLength: Int
    private let maximumClients: Int
    private let idleTimeout: Duration
    private(set) var clients: [ClientID: Client] = [:]
    /// Where each read from a client lands before its decoder copies it: one buffer for all (a fresh one per read
    /// was a 1 MiB mmap and munmap for every 30-byte request).
    private var readBuffer = [UInt8](repeating: 0, count: 64 << 10)
    private var nextID: ClientID = 1
    /// Clients answered since the daemon last asked, that may have requests waiting in their decoder.
    private var answered: Set<ClientID> = []
    /// Until when the listener is left alone after `accept` ran out of descriptors.
    private var acceptPausedUntil: MonotonicInstant?
    static let acceptPause: Duration = .milliseconds(250)
    /// For the remote socket: which requests are served, at what rate (nil: the control socket, all of them).
    let access: RemoteAccess?
    private let clock: any MonotonicClock
    /// "control" or "remote", for the log.
    let role: String

    /// Serves on `listener`: bound here, or passed by a service manager (socket activation). With `access`, it is
    /// the remote socket: each request is screened (`RemoteAccess.screen`) before it is handed out.
    init(listener: UnixListener, userID: UInt32, log: Logger, maximumFrameLength: Int, maximumClients: Int = 2048,
         idleTimeout: Duration = .seconds(30), access: RemoteAccess? = nil, clock: any MonotonicClock = SystemClock()) {
        self.access = access
        // The remote socket's clients are numbered apart, so no two clients of the daemon share a number.
        nextID = access == nil ? 1 : 1 << 62
        self.clock = clock
        role = access == nil ? "control" : "remote"
        self.listener = listener
        self.userID = userID
        self.log = log
        self.maximumFrameLength = maximumFrameLength
        self.maximumClients = maximumClients
        self.idleTimeout = idleTimeout
    }

    func close() {
        for client in clients.values { try? client.fd.close() }
        clients = [:]
        try? listener.close()
    }

    /// The descriptors to poll: the listener (unless accepting is paused), then each client: writable
    /// (only) while an answer is being written, nothing while a request is being answered, readable
    /// otherwise (hang-ups and errors are reported whatever is asked). Appended to `requests`, the client each is
    /// for (nil: the listener) to `ids`: the loop keeps both arrays from turn to turn.
    func appendPollRequests(to requests: inout [PollRequest], clients ids: inout [ClientID?], now: MonotonicInstant) {
        if let until = acceptPausedUntil, now < until {} else {
            acceptPausedUntil = nil
            requests.append(PollRequest(listener.fileDescriptor, .readable))
            ids.append(nil)
        }
        for client in clients.values {
            let events: PollEvents = client.hasOutput ? .writable : client.answering ? [] : .readable
            requests.append(PollRequest(client.fd, events))
            ids.append(client.id)
        }
    }

    /// Accepts every waiting connection, refusing other users and connections past the cap. When
    /// `accept` fails (out of descriptors: the connection stays in the backlog and the listener stays
    /// readable), accepting pauses for `acceptPause` rather than spinning on it; logged rate-limited.
    func acceptPending(now: MonotonicInstant) {
        while true {
            let accepted: FileDescriptor?
            do { accepted = try listener.accept() } catch {
                log.limited(.warning, key: "accept", "cannot accept control connections (\(clients.count) connected): \(error)")
                acceptPausedUntil = now + Self.acceptPause
                return
            }
            guard let fd = accepted else { return }
            guard let credentials = try? peerCredentials(of: fd), credentials.userID == userID else {
                log.limited(.warning, key: "peer-uid", "refused a control connection from another user")
                try? fd.close()
                continue
            }
            guard clients.count < maximumClients else {
                log.limited(.warning, key: "client-cap", "refused a control connection: \(maximumClients) clients connected")
                // Say why before closing (one small write into an empty socket buffer: it never blocks), so
                // that pb prints this rather than a bare "connection reset".
                _ = try? fd.writeSome(ControlResponse.error(code: .unavailable,
                    message: "pasteboardd already has \(maximumClients) clients connected; try again later").encode())
                try? fd.close()
                continue
            }
            let client = Client(id: nextID, fd: fd, maximumFrameLength: maximumFrameLength)
            client.peerPID = credentials.processID
            client.rate = access?.newRate(now: now)
            nextID += 1
            clients[client.id] = client
        }
    }

    /// Reads what `id` sent into its frame decoder. A client that closed is dropped, or closed once its
    /// pending answer is written.
    func receive(from id: ClientID, now: MonotonicInstant) {
        guard let client = clients[id] else { return }
        reading: for _ in 0..<64 {   // bounded, so one fast client cannot starve the loop
            let got: Int
            do { got = try readBuffer.withUnsafeMutableBytes { try client.fd.read(into: $0) } } catch Errno.Code.wouldBlock {
                break reading
            } catch {
                drop(id)
                return
            }
            if got == 0 {
                if client.hasOutput { client.closeWhenFlushed = true } else { drop(id) }
                return
            }
            client.decoder.append(readBuffer[..<got])
        }
        client.partialSince = client.decoder.hasPartialFrame ? (client.partialSince ?? now) : nil
    }

    /// The next complete request of `id`, in order; nil when none is complete, when the client is
    /// closing, while its previous request is not answered yet, or while an answer is still being
    /// written (the rest wait in the decoder; `takeAnsweredClients` says when to ask again). Every
    /// request returned must be answered with `send`. Malformed requests are answered here and
    /// skipped; a broken stream or a first request that is not hello is answered and the client closed.
    func nextRequest(from id: ClientID) -> ControlRequest? {
        guard let client = clients[id] else { return nil }
        while !client.closeWhenFlushed && !client.hasOutput && !client.answering {
            let body: [UInt8]
            do {
                guard let frame = try client.decoder.nextFrame() else { return nil }
                body = frame
            } catch {
                // The stream itself is broken (a frame over the cap): answer and close.
                log.limited(.info, key: "bad-frame", "closing a control client: \(error)")
                client.closeWhenFlushed = true
                send(.error(code: .tooLarge, message: "\(error)"), to: id)
                return nil
            }
            let request: ControlRequest
            var skipped: [SkippedRepresentation] = []
            do { request = try ControlRequest.decode(body: consume body, skipped: &skipped) } catch {
                // One bad message; the framing is intact, so the connection stays open.
                log.limited(.debug, key: "bad-message", "a control client sent a malformed request: \(error)")
                send(.error(code: .badRequest, message: "\(error)"), to: id)
                continue
            }
            if case .hello = request { client.greeted = true } else if !client.greeted {
                client.closeWhenFlushed = true
                send(.error(code: .badRequest, message: "the first request must be hello"), to: id)
                return nil
            }
            if let access, var rate = client.rate {
                let refusal = access.screen(request, rate: &rate, now: clock.now())
                client.rate = rate
                if let refusal {
                    log.limited(.info, key: "remote-refused", "refused a remote client's \(request.kind) request")
                    if let answer = client.copy.refused(request, with: refusal) { send(answer, to: id) }
                    continue
                }
            }
            switch client.copy.take(request, now: clock.now()) {
            case .pass: break
            case .taken: continue
            case .answer(let answer):
                if case .error(_, let why) = answer { log.limited(.info, key: "copy-refused", "refused a client's copy in pieces: \(why)") }
                send(answer, to: id)
                continue
            case .commit(let copy):
                client.answering = true
                return copy
            }
            if !skipped.isEmpty, let (pasteboard, items) = request.carriedItems {
                // What a client's copy carries is judged piece by piece, as an owner's is.
                guard !items.isEmpty else {
                    send(.error(code: .badRequest, message: "nothing of the copy can be kept: \(skipped.summary())"), to: id)
                    continue
                }
                log.limited(.info, key: "client-copy-skipped",
                            "keeping a client's copy to \(pasteboard) without \(skipped.count) of its types: \(skipped.summary())")
            }
            client.answering = true
            return request
        }
        return nil
    }

    /// Queues a response for `id` (dropped if the client is gone). Anything but a `changed` event
    /// answers the client's current request.
    func send(_ response: ControlResponse, to id: ClientID) {
        guard let client = clients[id] else { return }
        if response.isEvent {} else {
            client.answering = false
            if client.decoder.bufferedByteCount > 0 { answered.insert(id) }
        }
        for segment in response.encodeSegments() {
            if segment.count < WireWriter.sharingThreshold, let last = client.output.indices.last,
               client.output[last].count < WireWriter.sharingThreshold {
                client.output[last] += segment
            } else {
                client.output.append(segment)
            }
        }
        flush(id)
    }

    /// Writes as much pending output as the socket takes.
    func flush(_ id: ClientID) {
        guard let client = clients[id] else { return }
        while let segment = client.output.first {
            let written: Int
            do { written = try segment.withUnsafeBytes { try client.fd.writeSome(UnsafeRawBufferPointer(rebasing: $0[client.outputOffset...])) } } catch {
                drop(id)
                return
            }
            if written == 0 { return }
            client.outputOffset += written
            if client.outputOffset == segment.count {
                client.output.removeFirst()
                client.outputOffset = 0
            }
        }
        if client.closeWhenFlushed { drop(id) }
    }

    /// Clients answered since the last call that have bytes waiting: ask `nextRequest` for each.
    func takeAnsweredClients() -> Set<ClientID> {
        defer { answered = [] }
        return answered
    }

    var hasAnsweredClients: Bool { !answered.isEmpty }

    /// Clients an answer is being written to, as the socket takes it (a large paste under way); watchers'
    /// events aside.
    var answersBeingWritten: Int { clients.values.filter { $0.hasOutput && $0.watched == nil }.count }

    /// Clients whose request is still arriving, at least `WireWriter.sharingThreshold` bytes of it so far (a
    /// large `pb copy` under way). A client that stops half-way is dropped (it closed: nothing of the request is
    /// kept) or closed after `idleTimeout`.
    var requestsBeingRead: Int {
        clients.values.filter {
            let arriving = $0.decoder.hasPartialFrame ? $0.decoder.bufferedByteCount : 0
            return $0.copy.receivedBytes + arriving >= WireWriter.sharingThreshold
        }.count
    }

    /// Closes `id` once its next answer is written (a hello the daemon cannot speak).
    func closeAfterAnswer(_ id: ClientID) {
        clients[id]?.closeWhenFlushed = true
    }

    /// Called with each client dropped, whatever the reason (it closed, broke the protocol, or was closed).
    var onDrop: ((ClientID) -> Void)?

    /// Hands client `id`'s connection over to another protocol (a peer daemon's, after its `peer` handshake): the
    /// server forgets it without closing it and returns its descriptor and the bytes received after the request
    /// being answered; nil when the client is gone, or has output not yet written (nothing may come between).
    func release(_ id: ClientID) -> (FileDescriptor, [UInt8])? {
        guard let client = clients[id], !client.hasOutput, !client.closeWhenFlushed else { return nil }
        clients[id] = nil
        answered.remove(id)
        return (client.fd, client.decoder.takeBufferedBytes())
    }

    func drop(_ id: ClientID) {
        guard let client = clients.removeValue(forKey: id) else { return }
        try? client.fd.close()
        onDrop?(id)
    }

    /// A frame still arriving earns a second beyond `idleTimeout` for each this many bytes of it that came: a
    /// large `pb copy` over a slow link (64 MiB at 1 MB/s through ssh) goes on while it progresses at 64 KiB/s or
    /// more, and a trickle that brings less is closed as before.
    static let progressAllowance = 64 << 10

    /// When a client whose frame began at `since` and of which `received` bytes came is closed.
    static func partialFrameDeadline(since: MonotonicInstant, received: Int, idleTimeout: Duration) -> MonotonicInstant {
        since + idleTimeout + .seconds(received / progressAllowance)
    }

    private func deadline(of client: Client) -> MonotonicInstant? {
        let frame = client.partialSince.map {
            Self.partialFrameDeadline(since: $0, received: client.decoder.bufferedByteCount, idleTimeout: idleTimeout)
        }
        return [frame, copyDeadline(of: client)].compactMap { $0 }.min()
    }

    private func copyDeadline(of client: Client) -> MonotonicInstant? {
        client.copy.deadline(idleTimeout: idleTimeout, allowance: Self.progressAllowance, pendingBytes: client.decoder.bufferedByteCount)
    }

    /// Closes clients stuck mid-frame past their deadline (`partialFrameDeadline`), and those whose copy in pieces
    /// stopped coming (`CopyTransfer.deadline`), after telling them.
    func expireIdle(now: MonotonicInstant) {
        for client in clients.values {
            if let deadline = copyDeadline(of: client), now >= deadline, let answer = client.copy.expire() {
                log.limited(.info, key: "slow-copy", "closing a control client whose copy stalled")
                client.closeWhenFlushed = true
                send(answer, to: client.id)
                continue
            }
            if let deadline = deadline(of: client), now >= deadline {
                log.limited(.info, key: "slow-client", "closing a control client that stalled mid-request")
                drop(client.id)
            }
        }
    }

    var nextDeadline: MonotonicInstant? {
        var earliest = Earliest()
        for client in clients.values { earliest.add(deadline(of: client)) }
        earliest.add(acceptPausedUntil)
        return earliest.value
    }
}
