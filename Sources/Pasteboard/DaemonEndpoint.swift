// SPDX-License-Identifier: Apache-2.0
import PasteboardCore
import SystemSupport

/// Which pasteboardd a client talks to: this user's own on this machine, or one elsewhere whose remote socket
/// is forwarded here over SSH (docs/remote.md). Through a forward there is no X display of the client's own:
/// everything — paste, types, count — is asked of that daemon.
enum DaemonEndpoint: Equatable, Sendable {
    /// The control socket of this user's daemon (`$XDG_RUNTIME_DIR/pasteboard/control.sock`).
    case local(socket: String)
    /// A forwarded remote socket: named by `$PASTEBOARD_SOCKET` (`explicit`), or found where `pb ssh` has sshd
    /// put it (`ForwardedSocket`).
    case forwarded(socket: String, explicit: Bool)

    var socket: String {
        switch self {
        case .local(let socket), .forwarded(let socket, _): socket
        }
    }

    var isForwarded: Bool {
        if case .forwarded = self { return true }
        return false
    }

    /// Whether `environment` sends a client through a forward, without connecting: `$PASTEBOARD_SOCKET` is set, or
    /// there is no display and a forwarded socket of this user's is there.
    static func isForwarded(_ environment: [String: String]) -> Bool {
        if let socket = environment[ForwardedSocket.socketVariable], !socket.isEmpty { return true }
        guard !hasDisplay(environment) else { return false }
        return !ForwardedSocket.preferred(among: candidates(), session: session(environment)).isEmpty
    }

    /// Connects to the daemon `environment` names: `$PASTEBOARD_SOCKET`'s when it is set; with no display, the
    /// forwarded socket of this shell's `pb ssh` session (`LC_PASTEBOARD_SESSION`), else the newest of this user's
    /// that answers — removing those that refuse connections, left by sessions that ended (sshd leaves them);
    /// else this user's control socket. Throws `.notRunning` for the control socket, `.forwardNotAnswering`
    /// for a `$PASTEBOARD_SOCKET` that does not answer.
    static func connect(_ environment: [String: String]) throws(DaemonClientError) -> (DaemonEndpoint, FileDescriptor) {
        if let socket = environment[ForwardedSocket.socketVariable], !socket.isEmpty {
            do { return (.forwarded(socket: socket, explicit: true), try UnixSocket.connect(path: socket)) } catch {
                throw .forwardNotAnswering(socket: socket)
            }
        }
        if !hasDisplay(environment) {
            for candidate in ForwardedSocket.preferred(among: candidates(), session: session(environment)) {
                do {
                    return (.forwarded(socket: candidate.path, explicit: false), try UnixSocket.connect(path: candidate.path))
                } catch Errno.Code.connectionRefused {
                    // Nothing listens: the session that forwarded it is over. Ours, so ours to remove.
                    try? FileSystem.removeFile(candidate.path, ignoreMissing: true)
                } catch {
                    continue
                }
            }
        }
        let socket = XDGDirectories(environment: environment).controlSocket
        do { return (.local(socket: socket), try UnixSocket.connect(path: socket)) } catch {
            throw .notRunning(socket: socket, wayland: !(environment["WAYLAND_DISPLAY"] ?? "").isEmpty)
        }
    }

    /// Whether this side has a display of its own, X or Wayland (a Wayland session without XWayland is no SSH
    /// session, whatever forwarded sockets lie around).
    private static func hasDisplay(_ environment: [String: String]) -> Bool {
        environment["DISPLAY"].map { !$0.isEmpty } ?? false || environment["WAYLAND_DISPLAY"].map { !$0.isEmpty } ?? false
    }

    private static func session(_ environment: [String: String]) -> String? {
        environment[ForwardedSocket.sessionVariable].flatMap { ForwardedSocket.isSession($0) ? $0 : nil }
    }

    /// The forwarded sockets in `ForwardedSocket.directory`, each weighed: a socket of this user's that nobody
    /// else may reach.
    private static func candidates() -> [ForwardedSocket.Candidate] {
        let userID = ProcessIdentity.userID
        return ((try? FileSystem.listDirectory(ForwardedSocket.directory)) ?? []).compactMap { name in
            guard let session = ForwardedSocket.session(ofFileName: name),
                  let status = try? FileSystem.status(ForwardedSocket.path(session: session), followSymbolicLinks: false) else { return nil }
            let ours = status.kind == .socket && status.ownerID == userID && status.permissions.rawValue & 0o077 == 0
            return ForwardedSocket.Candidate(session: session, isOurs: ours, modified: status.modifiedSeconds)
        }
    }
}
