// SPDX-License-Identifier: Apache-2.0
import SystemSupport

/// Which of the sockets a service manager passed (`pasteboardd.socket`: `$LISTEN_FDS`) is the control socket
/// and which the remote one. A socket is the remote one when `$LISTEN_FDNAMES` names it `remote`
/// (`FileDescriptorName=`), or, unnamed, when it is bound at the remote socket's path or another file named
/// `remote.sock`; anything else is the control socket. One socket of each at most; a lone socket that is not
/// the remote one is the control socket wherever it is (an older unit file), and the daemon binds the remote
/// one itself.
enum PassedSockets {
    enum Role: Equatable, Sendable { case control, remote }

    /// The role of a socket bound at `path` (empty: unnamed) that `$LISTEN_FDNAMES` names `name`.
    static func role(path: String, name: String?, remotePath: String) -> Role {
        switch name {
        case "remote": return .remote
        case "control": return .control
        default: return path == remotePath || path.hasSuffix("/remote.sock") ? .remote : .control
        }
    }

    /// The roles of the sockets passed, in order, or why they cannot be served.
    static func roles(_ sockets: [(path: String, name: String?)], remotePath: String) -> Result<[Role], StartFailure> {
        let roles = sockets.map { role(path: $0.path, name: $0.name, remotePath: remotePath) }
        guard sockets.count <= 2, roles.filter({ $0 == .control }).count <= 1, roles.filter({ $0 == .remote }).count <= 1 else {
            return .failure(StartFailure("socket activation: \(sockets.count) sockets were passed (\(sockets.map { $0.path.isEmpty ? "unnamed" : $0.path }.joined(separator: ", "))); pasteboardd takes its control socket and its remote socket, one of each"))
        }
        return .success(roles)
    }
}
