// SPDX-License-Identifier: Apache-2.0
import PasteboardCore

/// The master connection `pb ssh` opens to a host (ssh's connection sharing: ssh(1) `-M`, ssh_config(5)
/// `ControlMaster`), and the ssh command lines that open it, run the session through it and clean up after
/// it. Values only: `Runner.ssh` runs them.
///
/// The forward of this pasteboardd's remote socket (`SSHForward`) is the master's, so it lasts as long as the
/// master, whatever the session does. sshd leaves the forward's socket file on the host when the connection
/// ends, so the file is removed through the master (`removeSocketArguments`) before the master is closed
/// (`exitArguments`). The checks behind each command line were made with OpenSSH 9.2 (docs/remote.md).
public struct SSHMaster: Hashable, Sendable {
    /// The control socket, in this user's runtime directory.
    public var controlPath: String
    /// The host as the user named it: a name, an alias of their ssh_config, `user@host`, an `ssh://` URI.
    public var host: String
    /// The session, which names its socket on the host (`ForwardedSocket`).
    public var session: String

    public init(controlPath: String, host: String, session: String) {
        precondition(ForwardedSocket.isSession(session), "a session name is what ForwardedSocket makes")
        self.controlPath = controlPath
        self.host = host
        self.session = session
    }

    /// The master for `session` to `host`, its control socket `ssh-` and the session's first 8 digits in
    /// `runtimeDirectory` (this user's, 0700).
    public init(runtimeDirectory: String, host: String, session: String) {
        self.init(controlPath: runtimeDirectory + "/ssh-" + session.prefix(8), host: host, session: session)
    }

    /// Whether ssh can bind `controlPath`: a socket address holds 107 bytes of path, and ssh binds
    /// `CONTROL.` and 16 random characters first, then renames it.
    public var controlPathFits: Bool { controlPath.utf8.count + 17 < 108 }

    /// Opens the master: `ssh -f -N -M -S CONTROL -o ControlPersist=no -o ExitOnForwardFailure=yes
    /// -o SendEnv=LC_PASTEBOARD_SESSION -o RemoteForward=... EXTRA... OPTIONS... -- HOST`. Authentication,
    /// prompts included, happens here; with `-f` and `ExitOnForwardFailure` ssh goes to the background only
    /// once the remote forward is established, so it exits 0 with the forward there, or 255 with its own
    /// "remote port forwarding failed". ssh keeps the first value it is given of an option, so these win over
    /// `options` and an ssh_config. The master filters what each session sends of its environment by its own
    /// `SendEnv` too, so it needs `LC_PASTEBOARD_SESSION` as well as the session's ssh.
    public func openArguments(options: [String], localSocket: String, extraOptions: [String] = []) -> [String] {
        ["ssh", "-f", "-N", "-M", "-S", controlPath, "-o", "ControlPersist=no"]
            + SSHForward.forwardOptions(session: session, localSocket: localSocket)
            + extraOptions + options + ["--", host]
    }

    /// The session, as a client of the master: `ssh -S CONTROL -o ControlMaster=no
    /// -o SendEnv=LC_PASTEBOARD_SESSION` and the user's `arguments` (options, host, command) as given. A
    /// `ControlMaster` of the user's ssh_config cannot make it a master of its own; the forwards it asks for
    /// are the master's already, which ssh takes as done.
    public func sessionArguments(passing arguments: [String]) -> [String] {
        ["ssh", "-S", controlPath, "-o", "ControlMaster=no", "-o", "SendEnv=\(ForwardedSocket.sessionVariable)"] + arguments
    }

    /// The options of every other command through the master: no ssh_config (nothing of it is needed, and
    /// none of its `Match exec` is run again), a client only, and no connection of its own — a client whose
    /// master is gone connects by itself unless its connection fails: a proxy command that fails at once.
    var clientOptions: [String] {
        ["ssh", "-F", "/dev/null", "-o", "ControlMaster=no", "-o", "ProxyCommand=false", "-S", controlPath]
    }

    /// `command` run by the host user's shell through the master (no new authentication).
    public func remoteCommandArguments(_ command: String) -> [String] {
        clientOptions + ["--", host, command]
    }

    /// A request to the master (`ssh -O`): `["forward", "-L", ...]`, `["exit"]`.
    public func controlArguments(_ request: [String]) -> [String] {
        clientOptions + ["-O"] + request + ["--", host]
    }

    /// Removes the session's socket on the host (sshd never does): `rm -f -- /tmp/pasteboard-ssh-SESSION.sock`
    /// through the master. The path needs no quoting: a session name is letters, digits, `.`, `_` and `-`.
    public var removeSocketArguments: [String] {
        remoteCommandArguments("rm -f -- " + ForwardedSocket.path(session: session))
    }

    /// Closes the master: `ssh -O exit`. Its forwards end with it, a transfer in flight among them; ssh removes
    /// the control socket.
    public var exitArguments: [String] { controlArguments(["exit"]) }

    // MARK: - The watcher

    /// The verb of pb's own invocation that cleans up after a session (`pb ssh-cleanup PARENT CONTROL SESSION
    /// HOST`); not in the usage.
    public static let cleanupVerb = "ssh-cleanup"

    /// pb's arguments (after argv[0]) for the watcher that cleans up after this master's session once process
    /// `parent` — pb, which becomes the session's ssh — has ended.
    public func cleanupArguments(parent: Int32) -> [String] {
        [Self.cleanupVerb, String(parent), controlPath, session, host]
    }

    /// The master and parent `arguments` (after the verb) name, as `cleanupArguments` made them; nil when they
    /// are not that.
    public static func cleanup(from arguments: [String]) -> (master: SSHMaster, parent: Int32)? {
        guard arguments.count == 4, let parent = Int32(arguments[0]), parent > 0, arguments[1].hasPrefix("/"),
              ForwardedSocket.isSession(arguments[2]), !arguments[3].isEmpty else { return nil }
        return (SSHMaster(controlPath: arguments[1], host: arguments[3], session: arguments[2]), parent)
    }
}
