// SPDX-License-Identifier: Apache-2.0
import CLISupport
import Pasteboard
import SystemSupport

extension Runner {
    /// `pb ssh`: becomes ssh (`SSHForward.argv`), with this pasteboardd's remote socket forwarded to a socket of
    /// this session's own on the host and the session named in `LC_PASTEBOARD_SESSION`. Returns only when ssh
    /// cannot be run.
    func ssh(_ arguments: [String]) -> ExitCode {
        var environment = Environment.all
        let session = ForwardedSocket.session(from: (UInt64.random(in: .min ... .max), UInt64.random(in: .min ... .max)))
        environment[ForwardedSocket.sessionVariable] = session
        let local = XDGDirectories(environment: environment).remoteSocket
        if (try? FileSystem.status(local, followSymbolicLinks: false).kind) != .socket {
            Output.error("\(programName): warning: no pasteboardd listens at \(local): pb on the host will find no pasteboard until one does")
        }
        try? Signals.restoreDefault(.pipe)   // ssh's own, as if run directly
        do {
            try ChildProcess.replaceProcess(argv: SSHForward.argv(passing: arguments, session: session, localSocket: local),
                                            environment: environment)
        } catch {
            try? Signals.ignore(.pipe)
            return fail("cannot run ssh: \(error)")
        }
    }
}

extension Runner {
    /// `pb ssh --peer`: as `pb ssh`, and for the session's life the host's pasteboardd is peered with this one, over
    /// one SSH connection (one authentication):
    ///
    /// 1. `ssh -f -N -M -S CONTROL OPTIONS HOST` opens a master connection (`CONTROL` is a socket in this user's
    ///    runtime directory, `$XDG_RUNTIME_DIR/pasteboard/ssh-ID`) and returns once it is authenticated.
    /// 2. Through it, `SSHForward.runtimeQuery` asks the host where its remote.sock is; no pasteboardd there: pb
    ///    says so, closes the master and starts nothing.
    /// 3. Through it, `ssh -O forward -L $XDG_RUNTIME_DIR/pasteboard/peer-ID.sock:HOST'S remote.sock` (0600: ssh's
    ///    StreamLocalBindMask; a stale file replaced), and the local pasteboardd is asked to peer with that socket,
    ///    not kept across restarts.
    /// 4. The session itself is `pb ssh`'s ssh, as a client of the master (the forwards belong to the master, so the
    ///    session ends when its shell or command does, whatever the peer link does).
    /// 5. When it ends, the peer is removed, the master closed (`-O exit`) and the socket file deleted; pb exits
    ///    with the session's status. pb ignores SIGINT, SIGQUIT and SIGHUP meanwhile (they are ssh's to act on), so
    ///    it always cleans up — unless it is killed outright, when the peer stays listed (and retried) until
    ///    `pb peer remove` or a daemon restart, and the master lives until its connection drops.
    func sshPeer(_ arguments: [String]) -> ExitCode {
        guard let (options, host, _) = SSHForward.split(arguments) else { return fail("ssh --peer needs a host", .usage) }
        do { _ = try daemon().status() } catch {
            return fail("no pasteboardd answers here to peer with (\(error))")
        }
        var environment = Environment.all
        let session = ForwardedSocket.session(from: (UInt64.random(in: .min ... .max), UInt64.random(in: .min ... .max)))
        environment[ForwardedSocket.sessionVariable] = session
        let directories = XDGDirectories(environment: environment)
        let id = session.prefix(12)
        let peerSocket = directories.runtime + "/peer-\(id).sock"
        let control = directories.runtime + "/ssh-\(id.prefix(8))"
        // sun_path's size: ssh would refuse the forward, or the control socket (it binds CONTROL.XXXXXXXXXXXXXXXX first).
        guard peerSocket.utf8.count < 108 && control.utf8.count + 17 < 108 else {
            return fail("the runtime directory's path is too long for a socket there (\(peerSocket))")
        }
        do { try directories.createRuntime() } catch { return fail("\(error)") }
        for signal in [Signal.interrupt, .quit, .hangup] { try? Signals.ignore(signal) }
        func ssh(_ argv: [String]) -> ExitStatus {
            guard let processID = try? ChildProcess.spawn(argv: ["ssh"] + argv, environment: environment) else { return .exited(255) }
            return (try? ChildProcess.wait(processID)) ?? .exited(255)
        }
        let master = ["-S", control]
        guard ssh(["-f", "-N", "-M", "-o", "ControlPersist=no", "-o", "StreamLocalBindUnlink=yes"] + master + options + [host]) == .exited(0) else {
            return fail("ssh \(host) did not connect")
        }
        func close() {
            _ = try? ChildProcess.run(argv: ["ssh"] + master + ["-O", "exit", host], environment: environment, input: [], outputLimit: 1 << 16)
            if (try? FileSystem.status(peerSocket, followSymbolicLinks: false).kind) == .socket { try? FileSystem.removeFile(peerSocket) }
        }
        let query = try? ChildProcess.run(argv: ["ssh"] + master + [host, SSHForward.runtimeQuery], environment: environment, input: [],
                                          outputLimit: 1 << 16)
        guard let query, query.status == .exited(0) else {
            close()
            return fail("ssh \(host) could not ask the host where its pasteboardd listens")
        }
        let remote: String
        switch SSHForward.remoteSocket(fromQueryOutput: String(decoding: query.output, as: UTF8.self)) {
        case .success(let path): remote = path
        case .failure(let error):
            close()
            return fail(error.message)
        }
        guard ssh(master + ["-O", "forward", "-L", "\(peerSocket):\(remote)", host]) == .exited(0) else {
            close()
            return fail("ssh \(host) would not forward the host's pasteboard socket (is AllowStreamLocalForwarding off there?)")
        }
        do { try daemon().addPeer(peerSocket, persistent: false) } catch {
            Output.error("\(programName): warning: pasteboardd here did not take the peer: \(error)")
        }
        let argv = SSHForward.argv(passing: master + arguments, session: session, localSocket: directories.remoteSocket)
        let status = ssh(Array(argv.dropFirst()))
        try? daemon().removePeer(peerSocket)
        close()
        switch status {
        case .exited(let code): ProcessIdentity.exit(code)
        case .signaled(let signal): ProcessIdentity.exit(128 + signal.rawValue)
        }
    }
}
