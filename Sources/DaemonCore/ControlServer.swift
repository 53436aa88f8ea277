import ControlProtocol
import SystemSupport

/// A client of the control socket, known by a number that is never reused (file descriptors are).
typealias ClientID = UInt64

/// The control socket: accepts same-uid clients (checked with SO_PEERCRED), reads framed requests
/// without blocking, and writes responses as the socket accepts them.
///
/// Limits: at most `maximumClients` connections; a frame larger than `maximumFrameLength` or a
/// malformed one closes that client after an error response; a client that sends part of a frame and
/// then nothing for `idleTimeout` is closed (slow-loris), while idle clients between frames are kept.
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
        /// Set while a partial frame is buffered.
        var partialSince: MonotonicInstant?
        var watched: Set<String>? = nil

        init(id: ClientID, fd: FileDescriptor, maximumFrameLength: Int) {
            self.id = id
            self.fd = fd
            decoder = FrameDecoder(maximumFrameLength: maximumFrameLength)
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
    private var nextID: ClientID = 1

    init(path: String, userID: UInt32, log: Logger, maximumFrameLength: Int, maximumClients: Int = 2048,
         idleTimeout: Duration = .seconds(30)) throws {
        listener = try UnixListener(path: path)
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

    /// The descriptors to poll: the listener, then each client (writable too while output is pending).
    func pollRequests() -> [(PollRequest, ClientID?)] {
        var result: [(PollRequest, ClientID?)] = [(PollRequest(listener.fileDescriptor, .readable), nil)]
        for client in clients.values {
            result.append((PollRequest(client.fd, client.hasOutput ? [.readable, .writable] : .readable), client.id))
        }
        return result
    }

    /// Accepts every waiting connection, refusing other users and connections past the cap.
    func acceptPending() {
        while true {
            let accepted: FileDescriptor?
            do { accepted = try listener.accept() } catch {
                log.limited(.warning, key: "accept", "accept failed: \(error)")
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
                try? fd.close()
                continue
            }
            let client = Client(id: nextID, fd: fd, maximumFrameLength: maximumFrameLength)
            nextID += 1
            clients[client.id] = client
        }
    }

    /// Reads what `id` sent and returns the complete requests in order. A client that closed, sent a
    /// malformed frame or broke the protocol is answered (if possible) and closed.
    func readRequests(from id: ClientID, now: MonotonicInstant) -> [ControlRequest] {
        guard let client = clients[id] else { return [] }
        var requests: [ControlRequest] = []
        reading: for _ in 0..<64 {   // bounded, so one fast client cannot starve the loop
            let result: FileDescriptor.ReadResult
            do { result = try client.fd.readAvailable(max: 1 << 20) } catch {
                drop(id)
                return requests
            }
            switch result {
            case .wouldBlock: break reading
            case .endOfFile:
                if client.hasOutput || !requests.isEmpty { client.closeWhenFlushed = true } else { drop(id) }
                break reading
            case .data(let bytes):
                client.decoder.append(bytes)
            }
        }
        while !client.closeWhenFlushed {
            let body: [UInt8]
            do {
                guard let frame = try client.decoder.nextFrame() else { break }
                body = frame
            } catch {
                // The stream itself is broken (a frame over the cap): answer and close.
                log.limited(.info, key: "bad-frame", "closing a control client: \(error)")
                client.closeWhenFlushed = true
                send(.error(code: .tooLarge, message: "\(error)"), to: id)
                break
            }
            let request: ControlRequest
            do { request = try ControlRequest.decode(body: body) } catch {
                // One bad message; the framing is intact, so the connection stays open.
                log.limited(.debug, key: "bad-message", "a control client sent a malformed request: \(error)")
                send(.error(code: .badRequest, message: "\(error)"), to: id)
                continue
            }
            if case .hello = request { client.greeted = true } else if !client.greeted {
                client.closeWhenFlushed = true
                send(.error(code: .badRequest, message: "the first request must be hello"), to: id)
                break
            }
            requests.append(request)
        }
        client.partialSince = client.decoder.hasPartialFrame ? (client.partialSince ?? now) : nil
        return requests
    }

    /// Queues a response for `id` (dropped if the client is gone).
    func send(_ response: ControlResponse, to id: ClientID) {
        guard let client = clients[id] else { return }
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

    func drop(_ id: ClientID) {
        guard let client = clients.removeValue(forKey: id) else { return }
        try? client.fd.close()
    }

    /// Closes clients stuck mid-frame for longer than the idle timeout.
    func expireIdle(now: MonotonicInstant) {
        for client in clients.values {
            if let since = client.partialSince, now - since >= idleTimeout {
                log.limited(.info, key: "slow-client", "closing a control client that stalled mid-request")
                drop(client.id)
            }
        }
    }

    var nextDeadline: MonotonicInstant? {
        clients.values.compactMap { $0.partialSince.map { $0 + idleTimeout } }.min()
    }
}
