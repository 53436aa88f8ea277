// SPDX-License-Identifier: Apache-2.0
import CLISupport
import Pasteboard
import SystemSupport

extension Runner {
    /// `pb ssh`: a session on the host with this pasteboardd's remote socket forwarded to a socket of the session's
    /// own there, named to the remote shell in `LC_PASTEBOARD_SESSION`, and that socket removed when it ends:
    ///
    /// 1. `SSHMaster.openArguments`: a master connection, in the background once it is authenticated and the
    ///    forward is established; ssh's status when it is not (255, ssh saying why).
    /// 2. The watcher, `pb ssh-cleanup` (`sshCleanup`): a pb in a session of its own, which the terminal's signals
    ///    and hangup do not reach, its standard input, output and error on /dev/null (it holds no pipe of the
    ///    caller's open).
    /// 3. pb becomes the session's ssh (`SSHMaster.sessionArguments`), a client of the master: its terminal,
    ///    signals, PID and exit status are ssh's, as if ssh had been run directly.
    ///
    /// When that ssh ends, however it ends, the watcher removes the socket through the master and closes it.
    /// Without a host in `arguments` (`pb ssh -V`) pb becomes ssh with the forward's options, as given. Returns
    /// only when the session does not start.
    func ssh(_ arguments: [String]) -> ExitCode {
        let (session, environment, directories) = newSession()
        let local = directories.remoteSocket
        if (try? FileSystem.status(local, followSymbolicLinks: false).kind) != .socket {
            Output.error("\(programName): warning: no pasteboardd listens at \(local): pb on the host will find no pasteboard until one does")
        }
        guard let (options, host, _) = SSHForward.split(arguments) else {
            return become(SSHForward.argv(passing: arguments, session: session, localSocket: local), environment: environment)
        }
        let master = SSHMaster(runtimeDirectory: directories.runtime, host: host, session: session)
        guard master.controlPathFits else {
            return fail("the runtime directory's path is too long for ssh's control socket there (\(master.controlPath))")
        }
        do { try directories.createRuntime() } catch { return fail("\(error)") }
        // Until pb becomes the session's ssh, the terminal's signals are for the master's ssh (a Ctrl-C at its
        // password prompt ends it, and pb then exits with its status), not for pb, which has the watcher to start.
        for signal in [Signal.interrupt, .quit, .hangup] { try? Signals.ignore(signal) }
        let opened = runSSH(master.openArguments(options: options, localSocket: local), environment: environment)
        guard opened == .exited(0) else { exit(as: opened) }
        do {
            try startWatcher(master, environment: environment)
        } catch {
            close(master, environment: environment)
            return fail("cannot start what cleans up after the session, so it was not started: \(error)")
        }
        return become(master.sessionArguments(passing: arguments), environment: environment)
    }

    /// A new session's name (`ForwardedSocket`: 128 random bits), pb's environment naming it to ssh
    /// (`LC_PASTEBOARD_SESSION`), and this user's directories.
    private func newSession() -> (session: String, environment: [String: String], directories: XDGDirectories) {
        var environment = Environment.all
        let session = ForwardedSocket.session(from: (UInt64.random(in: .min ... .max), UInt64.random(in: .min ... .max)))
        environment[ForwardedSocket.sessionVariable] = session
        return (session, environment, XDGDirectories(environment: environment))
    }

    /// Replaces pb with ssh run with `argv`, every signal's disposition the default as if ssh had been run
    /// directly. Returns only when ssh cannot be run.
    private func become(_ argv: [String], environment: [String: String]) -> ExitCode {
        for signal in [Signal.interrupt, .quit, .hangup, .pipe] { try? Signals.restoreDefault(signal) }
        do {
            try ChildProcess.replaceProcess(argv: argv, environment: environment)
        } catch {
            try? Signals.ignore(.pipe)
            return fail("cannot run ssh: \(error)")
        }
    }

    /// Ends pb with ssh's `status`, as a shell reports it (128 and the signal's number for a signal).
    private func exit(as status: ExitStatus) -> Never {
        switch status {
        case .exited(let code): ProcessIdentity.exit(code)
        case .signaled(let signal): ProcessIdentity.exit(128 + signal.rawValue)
        }
    }

    /// ssh run with `argv` on pb's terminal, and how it ended (255, ssh's own failure status, when it cannot be run).
    private func runSSH(_ argv: [String], environment: [String: String]) -> ExitStatus {
        guard let processID = try? ChildProcess.spawn(argv: argv, environment: environment) else { return .exited(255) }
        return (try? ChildProcess.wait(processID)) ?? .exited(255)
    }

    /// Starts `pb ssh-cleanup` for `master`, watching this process, in a session of its own with /dev/null for its
    /// standard input, output and error.
    private func startWatcher(_ master: SSHMaster, environment: [String: String]) throws {
        let null = try FileDescriptor.open("/dev/null", .readWrite)
        defer { try? null.close() }
        _ = try ChildProcess.spawn(argv: ["pb"] + master.cleanupArguments(parent: ProcessIdentity.processID),
                                   executable: ProcessIdentity.executable, environment: environment,
                                   stdin: null, stdout: null, stderr: null, newSession: true)
    }

    /// How long each cleanup step may take: the master answers `-O exit` itself, and the host the removal within
    /// a round trip, unless the connection is hung — then the step is given up (its ssh stopped) and the next
    /// one taken.
    private static let cleanupStepMilliseconds = 10_000

    /// Removes the session's socket on the host through `master`, then closes the master (its forwards with it).
    /// Their output is discarded; each step is bounded in time; a master already gone costs nothing (neither ssh
    /// connects by itself).
    func close(_ master: SSHMaster, environment: [String: String]) {
        guard let null = try? FileDescriptor.open("/dev/null", .readWrite) else { return }
        defer { try? null.close() }
        for argv in [master.removeSocketArguments, master.exitArguments] {
            guard let processID = try? ChildProcess.spawn(argv: argv, environment: environment, stdin: null, stdout: null, stderr: null)
            else { continue }
            if (try? ChildProcess.wait(processID, timeoutMilliseconds: Self.cleanupStepMilliseconds)) == nil {
                try? Signals.send(.kill, to: processID)
                _ = try? ChildProcess.wait(processID)
            }
        }
    }

    /// `pb ssh-cleanup PARENT CONTROL SESSION HOST`, started by `pb ssh` (`startWatcher`): waits until process
    /// `parent` — pb, become the session's ssh — has ended, then `close`s `master`. The kernel says when
    /// (`PR_SET_PDEATHSIG`, as SIGTERM, read from a signalfd); a parent that ended before that was asked for is
    /// seen in this process's parent having changed. SIGTERM, SIGINT or SIGHUP sent to it by anyone also make it
    /// clean up at once, and so does failing to set up the wait: a master nobody watches would outlive the session.
    func sshCleanup(_ master: SSHMaster, parent: Int32) -> ExitCode {
        do {
            let signals = try SignalDescriptor(signals: [.terminate, .interrupt, .hangup])
            try ProcessIdentity.signalWhenParentEnds(.terminate)
            if ProcessIdentity.parentProcessID == parent {
                while try signals.readPending().isEmpty {
                    _ = try Poller.wait(PollRequest(signals.fileDescriptor, .readable), timeoutMilliseconds: nil)
                }
            }
        } catch {}
        close(master, environment: Environment.all)
        return .success
    }
}

extension Runner {
    /// `pb ssh --peer`: as `pb ssh`, and for the session's life the host's pasteboardd is peered with this one, over
    /// one SSH connection (one authentication):
    ///
    /// 1. The master connection, as `pb ssh` opens it (`SSHMaster`), with the forward of this pasteboardd's remote
    ///    socket for pb on the host.
    /// 2. Through it, `SSHForward.runtimeQuery` asks the host where its remote.sock is; no pasteboardd there: pb
    ///    says so, closes the master and starts nothing.
    /// 3. Through it, `ssh -O forward -L $XDG_RUNTIME_DIR/pasteboard/peer-ID.sock:HOST'S remote.sock` (0600: ssh's
    ///    StreamLocalBindMask; a stale file replaced), and the local pasteboardd is asked to peer with that socket,
    ///    not kept across restarts.
    /// 4. The session itself, as a client of the master (the forwards belong to the master, so the session ends
    ///    when its shell or command does, whatever the peer link does).
    /// 5. When it ends, the peer is removed, the session's socket on the host removed and the master closed
    ///    (`close`), and the peer socket's file deleted; pb exits with the session's status. pb ignores SIGINT,
    ///    SIGQUIT and SIGHUP meanwhile (they are ssh's to act on), so it always cleans up — unless it is killed
    ///    outright, when the peer stays listed (and retried) until `pb peer remove` or a daemon restart, and the
    ///    master lives until its connection drops.
    func sshPeer(_ arguments: [String]) -> ExitCode {
        guard let (options, host, _) = SSHForward.split(arguments) else { return fail("ssh --peer needs a host", .usage) }
        do { _ = try daemon().status() } catch {
            return fail("no pasteboardd answers here to peer with (\(error))")
        }
        let (session, environment, directories) = newSession()
        let peerSocket = directories.runtime + "/peer-\(session.prefix(12)).sock"
        let master = SSHMaster(runtimeDirectory: directories.runtime, host: host, session: session)
        // sun_path's size: ssh would refuse the forward, or the control socket.
        guard peerSocket.utf8.count < 108 && master.controlPathFits else {
            return fail("the runtime directory's path is too long for a socket there (\(peerSocket))")
        }
        do { try directories.createRuntime() } catch { return fail("\(error)") }
        for signal in [Signal.interrupt, .quit, .hangup] { try? Signals.ignore(signal) }
        guard runSSH(master.openArguments(options: options, localSocket: directories.remoteSocket,
                                          extraOptions: ["-o", "StreamLocalBindUnlink=yes"]), environment: environment) == .exited(0) else {
            return fail("ssh \(host) did not connect")
        }
        func closeAll() {
            close(master, environment: environment)
            if (try? FileSystem.status(peerSocket, followSymbolicLinks: false).kind) == .socket { try? FileSystem.removeFile(peerSocket) }
        }
        let query = try? ChildProcess.run(argv: master.remoteCommandArguments(SSHForward.runtimeQuery), environment: environment, input: [],
                                          outputLimit: 1 << 16)
        guard let query, query.status == .exited(0) else {
            closeAll()
            return fail("ssh \(host) could not ask the host where its pasteboardd listens")
        }
        let remote: String
        switch SSHForward.remoteSocket(fromQueryOutput: String(decoding: query.output, as: UTF8.self)) {
        case .success(let path): remote = path
        case .failure(let error):
            closeAll()
            return fail(error.message)
        }
        guard runSSH(master.controlArguments(["forward", "-L", "\(peerSocket):\(remote)"]), environment: environment) == .exited(0) else {
            closeAll()
            return fail("ssh \(host) would not forward the host's pasteboard socket (is AllowStreamLocalForwarding off there?)")
        }
        do { try daemon().addPeer(peerSocket, persistent: false) } catch {
            Output.error("\(programName): warning: pasteboardd here did not take the peer: \(error)")
        }
        let status = runSSH(master.sessionArguments(passing: arguments), environment: environment)
        try? daemon().removePeer(peerSocket)
        closeAll()
        exit(as: status)
    }
}
