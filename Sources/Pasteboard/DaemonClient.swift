import ControlProtocol
import SystemSupport

/// Why a request to pasteboardd failed.
public enum DaemonClientError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No daemon listens on the control socket.
    case notRunning(socket: String)
    /// The daemon answered with an error.
    case daemon(code: ErrorCode, message: String)
    /// The daemon did not answer within the timeout.
    case timedOut
    /// The connection broke or the daemon sent something unexpected.
    case protocolFailure(String)

    public var description: String {
        switch self {
        case .notRunning(let socket):
            "pasteboardd is not running (no daemon at \(socket)); start it with 'systemctl --user start pasteboardd' or run 'pasteboardd &'"
        case .daemon(_, let message): message
        case .timedOut: "pasteboardd did not answer in time"
        case .protocolFailure(let why): "talking to pasteboardd failed: \(why)"
        }
    }
}

/// A connection to pasteboardd's control socket: sends one request at a time and waits for its
/// response, with a timeout. The hello handshake is sent with the first request, in one write.
public final class DaemonClient {
    private let fd: FileDescriptor
    private var decoder = FrameDecoder(maximumFrameLength: ControlLimits.defaultMaximumFrameLength)
    private var greeted = false
    private let clock = SystemClock()
    public let socketPath: String

    /// Connects to the daemon of this user (`$XDG_RUNTIME_DIR/pasteboard/control.sock` or its fallback).
    public init(environment: [String: String]) throws(DaemonClientError) {
        socketPath = XDGDirectories(environment: environment).controlSocket
        do { fd = try UnixSocket.connect(path: socketPath) } catch {
            throw .notRunning(socket: socketPath)
        }
    }

    deinit { try? fd.close() }

    /// Sends `request` and returns the daemon's response; an `error` response is thrown.
    public func send(_ request: ControlRequest, timeoutMilliseconds: Int = 10_000) throws(DaemonClientError) -> ControlResponse {
        var output: [UInt8] = []
        if !greeted {
            output += ControlRequest.hello(version: ControlProtocolVersion.current, client: "pb").encode()
        }
        output += request.encode()
        do { try fd.writeAll(output) } catch {
            throw .protocolFailure("cannot send: \(error)")
        }
        let deadline = clock.now() + .milliseconds(timeoutMilliseconds)
        if !greeted {
            let hello = try receive(deadline: deadline)
            guard case .hello = hello else {
                if case .error(let code, let message) = hello { throw .daemon(code: code, message: message) }
                throw .protocolFailure("the daemon did not answer hello")
            }
            greeted = true
        }
        let response = try receive(deadline: deadline)
        if case .error(let code, let message) = response { throw .daemon(code: code, message: message) }
        return response
    }

    /// Waits for the next response (also used to read `changed` events after `watch`).
    public func receive(deadline: MonotonicInstant?) throws(DaemonClientError) -> ControlResponse {
        while true {
            do {
                if let body = try decoder.nextFrame() { return try ControlResponse.decode(body: body) }
            } catch {
                throw .protocolFailure("\(error)")
            }
            let timeout = deadline.map { clock.now().millisecondsUntil($0) }
            if timeout == 0 { throw .timedOut }
            do {
                let ready = try Poller.wait([PollRequest(fd, .readable)], timeoutMilliseconds: timeout)
                if ready[0].isEmpty { continue }
                var buffer = [UInt8](repeating: 0, count: 65536)
                let n = try buffer.withUnsafeMutableBytes { try fd.read(into: $0) }
                if n == 0 { throw DaemonClientError.protocolFailure("the daemon closed the connection") }
                decoder.append(buffer[0..<n])
            } catch let error as DaemonClientError {
                throw error
            } catch {
                throw .protocolFailure("\(error)")
            }
        }
    }
}
