// SPDX-License-Identifier: Apache-2.0
import ControlProtocol
import SystemSupport

/// Why a request to pasteboardd failed.
enum DaemonClientError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No daemon listens on the control socket; `wayland`: on a Wayland session (`WAYLAND_DISPLAY` set), where
    /// starting it takes that variable in the user manager's environment.
    case notRunning(socket: String, wayland: Bool = false)
    /// The daemon answered with an error.
    case daemon(code: ErrorCode, message: String)
    /// The daemon answered the connection with why it does not serve it — `unavailable` in place of the hello
    /// answer — and closed it: it could not start ("pasteboardd could not start: DISPLAY is not set (…)"), or
    /// it has as many clients as it takes. The message is the daemon's, for people.
    case notServing(String)
    /// The daemon did not answer within the timeout.
    case timedOut
    /// The connection broke or the daemon sent something unexpected.
    case protocolFailure(String)
    /// The forwarded socket (`$PASTEBOARD_SOCKET`, or `pb ssh`'s) could not be reached, or closed before the daemon
    /// behind it answered: the ssh session that forwards it ended, or no pasteboardd serves at its other end.
    case forwardNotAnswering(socket: String)
    /// Data to send could not be read from where it stays (a file that changed or shrank while it was sent);
    /// the reason is the source's. The request was cut short: the daemon keeps nothing of it.
    case unreadableData(String)

    var description: String {
        switch self {
        case .notRunning(let socket, false):
            "pasteboardd is not running (no daemon at \(socket)); start it with 'systemctl --user start pasteboardd' or run 'pasteboardd &'"
        case .notRunning(let socket, true):
            "pasteboardd is not running (no daemon at \(socket)); on Wayland start it with "
                + "'systemctl --user import-environment WAYLAND_DISPLAY DISPLAY && systemctl --user start pasteboardd' or run 'pasteboardd &'"
        case .daemon(_, let message): message
        case .notServing(let message): message
        case .timedOut: "pasteboardd did not answer in time"
        case .protocolFailure(let why): "talking to pasteboardd failed: \(why)"
        case .forwardNotAnswering(let socket):
            "the forwarded pasteboard socket at \(socket) does not answer: is the ssh session that forwards it still open (and pasteboardd running at its other end)?"
        case .unreadableData(let why): why
        }
    }
}

/// A connection to pasteboardd's control socket: sends one request at a time and waits for its
/// response, with a timeout. The hello handshake is sent with the first request, in one write.
final class DaemonClient {
    private let fd: FileDescriptor
    private var decoder = FrameDecoder(maximumFrameLength: ControlLimits.defaultMaximumFrameLength)
    private var greeted = false
    private let clock = SystemClock()
    /// The daemon connected to: this user's, or one behind a forwarded socket (`DaemonEndpoint`).
    let endpoint: DaemonEndpoint
    var socketPath: String { endpoint.socket }
    /// The client's X display, told the daemon after hello (`onDisplay`): PRIMARY is per display. Never through a
    /// forward (the daemon there serves other displays), nor a name no display has (over 255 bytes).
    private let display: String?

    /// Connects to the daemon `environment` names (`DaemonEndpoint.connect`): this user's
    /// (`$XDG_RUNTIME_DIR/pasteboard/control.sock` or its fallback), or a forwarded one.
    init(environment: [String: String]) throws(DaemonClientError) {
        (endpoint, fd) = try DaemonEndpoint.connect(environment)
        display = endpoint.isForwarded ? nil : environment["DISPLAY"].flatMap { (1...255).contains($0.utf8.count) ? $0 : nil }
    }

    deinit { try? fd.close() }

    /// Sends `request` and returns the daemon's response; an `error` response is thrown.
    func send(_ request: ControlRequest, timeoutMilliseconds: Int = 10_000) throws(DaemonClientError) -> ControlResponse {
        try write(request)
        let deadline = clock.now() + .milliseconds(timeoutMilliseconds)
        if !greeted { try greet(deadline: deadline) }
        let response = try receive(deadline: deadline)
        if case .error(let code, let message) = response { throw .daemon(code: code, message: message) }
        return response
    }

    /// Sends `request` without waiting for its answer (a provider's `provided`, answered `ok` later, read with
    /// the next `receive`). The connection must have been greeted (a `send` first).
    func post(_ request: ControlRequest) throws(DaemonClientError) {
        precondition(greeted, "post after the first send")
        try write(request)
    }

    /// An answer that has already arrived, read without waiting; nil when none has (yet). Throws when the
    /// connection broke or the daemon closed it.
    func answerArrived() throws(DaemonClientError) -> ControlResponse? {
        do {
            if let body = try decoder.nextFrame() { return try ControlResponse.decode(body: body) }
            while let ready = try? Poller.wait(PollRequest(fd, .readable), timeoutMilliseconds: 0), !ready.isEmpty {
                switch try fd.readAvailable(max: 65536) {
                case .data(let bytes): decoder.append(bytes[...])
                case .wouldBlock: return nil
                case .endOfFile: throw DaemonClientError.protocolFailure("the daemon closed the connection")
                }
                if let body = try decoder.nextFrame() { return try ControlResponse.decode(body: body) }
            }
            return nil
        } catch let error as DaemonClientError {
            throw error
        } catch {
            throw .protocolFailure("\(error)")
        }
    }

    /// Told after each chunk of a request is written: the bytes of its frame written so far, and the frame's
    /// length (`Pasteboard.progress`).
    var sendProgress: ((_ sent: Int, _ total: Int) -> Void)?

    /// The most bytes written between two `sendProgress` calls, and read from a source at a time.
    static let sendChunk = 256 << 10

    /// Writes `request`, after the hello handshake on a new connection. Large representation data
    /// (`pb copy` of 64 MiB) goes from the caller's arrays as it is: no frame is assembled; data that stays
    /// in a source (a file) is read from it a chunk at a time as it is written (`ControlRequest.encodePieces`),
    /// so a 1 GiB file never sits in memory. When the daemon stopped reading because it refused the
    /// connection (it answers and closes after the hello, before the data that follows), the write fails and
    /// its answer is thrown instead of the broken pipe. A source that cannot be read to its announced length
    /// (a file that changed) is thrown as `.unreadableData` with the source's own error, the frame left cut
    /// short: the daemon, which takes only whole frames, keeps nothing of it.
    private func write(_ request: ControlRequest) throws(DaemonClientError) {
        var pieces = request.encodePieces()
        let total = pieces.reduce(0) { $0 + $1.count }
        var greetingLength = 0
        if !greeted {
            var greeting = ControlRequest.hello(version: ControlProtocolVersion.current, client: "pb").encode()
            if let display { greeting += ControlRequest.onDisplay(name: display).encode() }
            greetingLength = greeting.count
            if case .bytes(let first) = pieces[0] { pieces[0] = .bytes(greeting + first) } else { pieces.insert(.bytes(greeting), at: 0) }
        }
        var sent = -greetingLength
        let progress = total >= Self.sendChunk ? sendProgress : nil
        do {
            for piece in pieces {
                switch piece {
                case .bytes(let bytes):
                    var offset = 0
                    while offset < bytes.count {
                        let end = progress == nil ? bytes.count : min(bytes.count, offset + Self.sendChunk)
                        try bytes.withUnsafeBytes { try writeFully(UnsafeRawBufferPointer(rebasing: $0[offset..<end])) }
                        sent += end - offset
                        offset = end
                        progress?(max(0, sent), total)
                    }
                case .source(let source):
                    var offset = 0
                    while offset < source.count {
                        let end = min(source.count, offset + Self.sendChunk)
                        let chunk: [UInt8]
                        do { chunk = try source.read(offset..<end) } catch { throw UnreadableSource(error: error) }
                        try chunk.withUnsafeBytes { try writeFully($0) }
                        sent += end - offset
                        offset = end
                        progress?(sent, total)
                    }
                }
            }
        } catch let failure as UnreadableSource {
            throw .unreadableData("\(failure.error)")
        } catch {
            if !greeted, let refusal = refusalAlreadySent() { throw refusal }
            if !greeted, endpoint.isForwarded { throw .forwardNotAnswering(socket: endpoint.socket) }
            throw .protocolFailure("cannot send: \(error)")
        }
    }

    /// A source's read failed while its bytes were being sent (told apart from the socket's own errors).
    private struct UnreadableSource: Error { let error: any Error }

    /// Writes all of `buffer` to the socket, continuing after partial writes (without `writeAll`'s copy of a slice).
    private func writeFully(_ buffer: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < buffer.count {
            offset += try fd.write(UnsafeRawBufferPointer(rebasing: buffer[offset...]))
        }
    }

    /// Reads the answer to the hello sent with the first request; a daemon that does not serve the connection
    /// answers in its place (`refusal(inPlaceOfHello:)`).
    private func greet(deadline: MonotonicInstant) throws(DaemonClientError) {
        let answer: ControlResponse
        do { answer = try receive(deadline: deadline) } catch .protocolFailure(_) where endpoint.isForwarded {
            // sshd accepts for the forward, then closes when its other end cannot be reached.
            throw .forwardNotAnswering(socket: endpoint.socket)
        }
        if let refusal = Self.refusal(inPlaceOfHello: answer) { throw refusal }
        if display != nil {
            // `onDisplay`'s answer: ok (an error here is the daemon's to say; the request still follows).
            if case .error(let code, let message) = try receive(deadline: deadline) { throw .daemon(code: code, message: message) }
        }
        greeted = true
    }

    /// What an answer in place of hello means: nil for hello itself; `.notServing` for `unavailable` (the
    /// daemon could not start, or has all the clients it takes); `.daemon` for another error (a version it
    /// does not speak).
    private static func refusal(inPlaceOfHello answer: ControlResponse) -> DaemonClientError? {
        switch answer {
        case .hello: nil
        case .error(code: .unavailable, let message): .notServing(message)
        case .error(let code, let message): .daemon(code: code, message: message)
        default: .protocolFailure("the daemon did not answer hello")
        }
    }

    /// The daemon's refusal, if one already arrived (read without waiting).
    private func refusalAlreadySent() -> DaemonClientError? {
        guard let ready = try? Poller.wait(PollRequest(fd, .readable), timeoutMilliseconds: 0), !ready.isEmpty,
              case .data(let bytes)? = try? fd.readAvailable(max: 65536) else { return nil }
        decoder.append(bytes[...])
        guard let body = try? decoder.nextFrame(), let answer = try? ControlResponse.decode(body: body) else { return nil }
        return Self.refusal(inPlaceOfHello: answer)
    }

    /// Waits for the next response (also used to read `changed` events after `watch`) until `deadline` (nil: as
    /// long as it takes); `.timedOut` when none has come by then. A deadline already past returns a response
    /// that has arrived, without waiting.
    func receive(deadline: MonotonicInstant?) throws(DaemonClientError) -> ControlResponse {
        while true {
            do {
                if let body = try decoder.nextFrame() { return try ControlResponse.decode(body: body) }
            } catch {
                throw .protocolFailure("\(error)")
            }
            // A deadline reached still looks once, without waiting: what has already arrived is returned (a
            // zero timeout asks "anything yet?", and must not answer no while an event sits in the socket).
            let timeout = deadline.map { clock.now().millisecondsUntil($0) }
            do {
                let ready = try Poller.wait(PollRequest(fd, .readable), timeoutMilliseconds: timeout)
                if ready.isEmpty {
                    if timeout == 0 { throw DaemonClientError.timedOut }
                    continue
                }
                // Only the bytes read are written: a zero-filled buffer cost every start of pb 16 page faults.
                switch try fd.readAvailable(max: 65536) {
                case .data(let bytes): decoder.append(bytes[...])
                case .wouldBlock: continue
                case .endOfFile: throw DaemonClientError.protocolFailure("the daemon closed the connection")
                }
            } catch let error as DaemonClientError {
                throw error
            } catch {
                throw .protocolFailure("\(error)")
            }
        }
    }
}

/// How a streamed `read` ended (`DaemonClient.stream`).
enum StreamedRead: Equatable, Sendable {
    /// The daemon answered with `type`; every byte of its data went to the sink.
    case completed(type: String)
    /// The sink returned false; the connection is left unusable.
    case stopped
}

extension DaemonClient {
    /// Sends `request` — a `read` — and hands the data of the one representation it answers with to
    /// `sink` piece by piece as it arrives (after `begin` with the type and total length), so a paste of
    /// any size needs no buffer of its size. Errors as `send` (an `error` answer is thrown as `.daemon`);
    /// `timeoutMilliseconds` bounds each wait for more bytes, not the whole transfer.
    func stream(_ request: ControlRequest, timeoutMilliseconds: Int,
                       begin: (_ type: String, _ length: Int) -> Void,
                       sink: (ArraySlice<UInt8>) -> Bool) throws(DaemonClientError) -> StreamedRead {
        try write(request)
        if !greeted { try greet(deadline: clock.now() + .milliseconds(timeoutMilliseconds)) }
        var pending = decoder.takeBufferedBytes()
        // Sized to what is coming: a page until the answer's length is known, then up to 256 KiB. Clearing a
        // 256 KiB buffer up front cost every `pb paste`, even of a few bytes, 64 page faults.
        var buffer = [UInt8](repeating: 0, count: 4096)
        /// Waits for bytes (bounded by the timeout) and returns how many were read into `buffer`.
        func readMore(atMost count: Int) throws(DaemonClientError) -> Int {
            do {
                let ready = try Poller.wait(PollRequest(fd, .readable), timeoutMilliseconds: timeoutMilliseconds)
                if ready.isEmpty { throw DaemonClientError.timedOut }
                let n = try buffer.withUnsafeMutableBytes { try fd.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[..<count])) }
                if n == 0 { throw DaemonClientError.protocolFailure("the daemon closed the connection") }
                return n
            } catch let error as DaemonClientError {
                throw error
            } catch {
                throw .protocolFailure("\(error)")
            }
        }
        while true {
            switch SingleRepresentationPrefix.parse(pending[...], maximumFrameLength: decoder.maximumFrameLength) {
            case .needMore:
                let n = try readMore(atMost: buffer.count)
                pending += buffer[..<n]
            case .otherFrame:
                // An error or a frame of another shape: decode it whole, as `send` would.
                decoder.append(pending)
                let response = try receive(deadline: clock.now() + .milliseconds(timeoutMilliseconds))
                if case .error(let code, let message) = response { throw .daemon(code: code, message: message) }
                throw .protocolFailure("unexpected answer to read: \(response.kind)")
            case .prefix(let prefix):
                begin(prefix.type, prefix.dataLength)
                let first = pending[prefix.prefixLength...].prefix(prefix.dataLength)
                if !first.isEmpty, !sink(first) { return .stopped }
                var remaining = prefix.dataLength - first.count
                if remaining > buffer.count { buffer = [UInt8](repeating: 0, count: min(256 << 10, remaining)) }
                // Requests are answered one at a time: nothing follows the data until the next request.
                while remaining > 0 {
                    let n = try readMore(atMost: min(buffer.count, remaining))
                    remaining -= n
                    if !sink(buffer[..<n]) { return .stopped }
                }
                return .completed(type: prefix.type)
            }
        }
    }

    /// Pastes the first of `types` that pasteboardd offers for `pasteboard` straight from the daemon,
    /// when it holds that pasteboard itself on `$DISPLAY` (`ControlRequest.read`: no X transfer; text
    /// types as UTF-8), streaming the data through `begin` and `sink` as `stream` does. Without `DISPLAY` (on
    /// Wayland alone) the request names no display, and the daemon answers from what it holds. Through a forwarded
    /// socket there is no display of the client's own: whatever the daemon answers is the answer (`.refused`
    /// for an error, a forward that does not answer included), never `.notHeld`.
    /// `.notHeld` whenever the daemon cannot answer this way and nothing reached the sink — not running, not
    /// serving (it could not start: the X selection is read all the same, as with no daemon), an older daemon —
    /// and `.absent` when it answered that it does not hold the pasteboard (another application owns it, or
    /// nobody, or the daemon serves another display): either way the caller asks the owner through X; `.refused` when the daemon holds the pasteboard and said why it cannot
    /// give the type (nothing converts to it, the conversion failed or took too long); `.failed` only once
    /// data began.
    static func pasteHeld(pasteboard: String, types: [String], environment: [String: String],
                                 timeoutMilliseconds: Int, begin: (_ type: String, _ length: Int) -> Void,
                                 sink: (ArraySlice<UInt8>) -> Bool) -> HeldPaste {
        let display = environment["DISPLAY"] ?? ""
        let client: DaemonClient
        do { client = try DaemonClient(environment: environment) } catch {
            return DaemonEndpoint.isForwarded(environment) ? .refused(error) : .notHeld
        }
        var begun = false
        do {
            let outcome = try client.stream(.read(pasteboard: pasteboard, types: types, display: display),
                                            timeoutMilliseconds: timeoutMilliseconds,
                                            begin: { begun = true; begin($0, $1) }, sink: sink)
            switch outcome {
            case .completed(let type): return .pasted(type: type)
            case .stopped: return .stopped
            }
        } catch {
            if begun { return .failed(error) }
            if client.endpoint.isForwarded { return .refused(error) }
            if case .daemon(let code, _) = error, code != .notFound, code != .badRequest { return .refused(error) }
            if case .daemon(.notFound, _) = error { return .absent }
            return .notHeld
        }
    }
}

/// How a paste offered to pasteboardd first went (`DaemonClient.pasteHeld`).
enum HeldPaste: Equatable, Sendable {
    /// The daemon cannot answer this way (not running, an older daemon); nothing reached the sink.
    case notHeld
    /// The daemon answered that it does not hold the pasteboard (another application owns it on the client's
    /// display, or nobody; or the client's display is not one it serves); nothing reached the sink.
    case absent
    /// Every byte of `type` went to the sink.
    case pasted(type: String)
    /// The sink returned false.
    case stopped
    /// The transfer broke after data began.
    case failed(DaemonClientError)
    /// The daemon holds the pasteboard and refused, with its reason.
    case refused(DaemonClientError)
}
