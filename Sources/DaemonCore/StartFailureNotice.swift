// SPDX-License-Identifier: Apache-2.0
import ControlProtocol
import SystemSupport

/// Tells the clients waiting at the control socket why the daemon could not start, before it exits.
///
/// Under socket activation the client that woke the daemon is connected before the daemon runs (systemd starts
/// the service for that connection). A daemon that exited without a word would leave it waiting while systemd
/// restarts the service into its start limit, then closes the socket: the client reads "connection reset by
/// peer". Instead each waiting client is accepted (same user only, as `ControlServer` does), its hello read —
/// its first frame, at most `maximumRead` bytes — and answered with `error(unavailable, "pasteboardd could not
/// start: …")` in place of the hello answer, then closed: the first `pb` hears why.
///
/// Bounded: one poll with a deadline; a client that sends nothing is answered when it passes, and the notice
/// returns once nobody is waiting. Connections that arrive meanwhile are answered too, at most `maximumClients`
/// at once (more wait in the backlog for the next round).
struct StartFailureNotice {
    let listeners: [UnixListener]
    let userID: UInt32
    let clock: any MonotonicClock

    /// How long a client is waited for, from the start of the notice.
    static let patience: Duration = .seconds(1)
    /// A hello is some twenty bytes; what a client sends after it (`pb copy`'s data) is not read.
    static let maximumRead = 4096
    static let maximumClients = 64

    /// What one client sent so far.
    struct Greeting {
        private var decoder = FrameDecoder(maximumFrameLength: StartFailureNotice.maximumRead)
        private var received = 0
        /// It sent a whole frame (its hello), as much as is read, or something no frame starts with.
        private(set) var isComplete = false

        mutating func receive(_ bytes: [UInt8]) {
            received += bytes.count
            decoder.append(bytes)
            if received >= StartFailureNotice.maximumRead { isComplete = true }
            do {
                if try decoder.nextFrame() != nil { isComplete = true }
            } catch {
                isComplete = true   // a header over the limit: no hello comes
            }
        }
    }

    /// What to poll for connections to answer: each listener, readable.
    var pollRequests: [PollRequest] { listeners.map { PollRequest($0.fileDescriptor, .readable) } }

    /// Answers every client waiting at `listeners`, and those connecting within `patience`, with `failure`;
    /// returns how many were told.
    func tell(_ failure: StartFailure, patience: Duration = patience) -> Int {
        let frame = ControlResponse.error(code: .unavailable, message: failure.message).encode()
        let deadline = clock.now() + patience
        var waiting: [(fd: FileDescriptor, greeting: Greeting)] = []
        var told = 0
        func answer(_ fd: FileDescriptor) {
            // One small frame into an empty socket buffer: it never blocks. Closing with the client's data
            // unread resets the connection only after the client has read what was sent.
            _ = try? fd.writeSome(frame)
            try? fd.close()
            told += 1
        }
        while true {
            for listener in listeners {
                while waiting.count < Self.maximumClients, let accepted = try? listener.accept() {
                    guard let peer = try? peerCredentials(of: accepted), peer.userID == userID else {
                        try? accepted.close()
                        continue
                    }
                    waiting.append((accepted, Greeting()))
                }
            }
            if waiting.isEmpty { return told }
            let now = clock.now()
            if now >= deadline {
                for client in waiting { answer(client.fd) }
                return told
            }
            // The listeners only while there is room: more connections wait in the backlog, not in a spin.
            let accepting = waiting.count < Self.maximumClients ? listeners : []
            let requests = waiting.map { PollRequest($0.fd, .readable) } + accepting.map { PollRequest($0.fileDescriptor, .readable) }
            guard let ready = try? Poller.wait(requests, timeoutMilliseconds: now.millisecondsUntil(deadline)) else {
                for client in waiting { answer(client.fd) }
                return told
            }
            var still: [(fd: FileDescriptor, greeting: Greeting)] = []
            for (index, var client) in waiting.enumerated() {
                guard !ready[index].isEmpty else {
                    still.append(client)
                    continue
                }
                let said: Bool
                switch try? client.fd.readAvailable(max: Self.maximumRead) {
                case .data(let bytes)?:
                    client.greeting.receive(bytes)
                    said = client.greeting.isComplete
                case .wouldBlock?:
                    said = false
                case .endOfFile?, nil:
                    said = true   // it stopped sending (or the connection broke): answer what can be
                }
                if said { answer(client.fd) } else { still.append(client) }
            }
            waiting = still
        }
    }
}
