// SPDX-License-Identifier: Apache-2.0
import Foundation
import SystemSupport

/// An isolated environment for one suite: a private Xvfb, private XDG directories, and the built
/// binaries. Start `pasteboardd` in it with `startDaemon()`; readiness is awaited through a
/// `NOTIFY_SOCKET` the fixture owns (sd_notify READY=1), not by sleeping.
public final class Desktop: @unchecked Sendable {
    public let xvfb: Xvfb
    public let home: String
    public private(set) var daemon: Process?
    public var environment: [String: String]

    public init() throws {
        xvfb = try Xvfb()
        home = NSTemporaryDirectory() + "pasteboard-test-" + UUID().uuidString
        for sub in ["runtime", "state", "config"] {
            try FileManager.default.createDirectory(atPath: home + "/" + sub, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        }
        var env = ProcessInfo.processInfo.environment
        env["DISPLAY"] = xvfb.display
        env["XDG_RUNTIME_DIR"] = home + "/runtime"
        env["XDG_STATE_HOME"] = home + "/state"
        env["XDG_CONFIG_HOME"] = home + "/config"
        env["HOME"] = home
        env.removeValue(forKey: "NOTIFY_SOCKET")
        env.removeValue(forKey: "JOURNAL_STREAM")
        environment = env
    }

    public var runner: Runner { Runner(environment: environment) }
    public var pb: String { Tools.buildDirectory + "/pb" }
    public var pasteboardd: String { Tools.buildDirectory + "/pasteboardd" }

    /// Runs `pb` with `arguments`.
    @discardableResult
    public func pb(_ arguments: String..., input: [UInt8] = [], timeout: Double = 30) throws -> RunResult {
        try runner.run(pb, arguments, input: input, timeout: timeout)
    }

    /// Where the daemon started with `startDaemon(logging: true)` writes its log.
    public var daemonLogPath: String { home + "/pasteboardd.log" }

    /// What the daemon started with `startDaemon(logging: true)` logged so far.
    public var daemonLog: String { (try? String(contentsOfFile: daemonLogPath, encoding: .utf8)) ?? "" }

    /// Starts pasteboardd and returns once it said READY=1 (at most 20 s). With `logging`, its standard error
    /// (the log) goes to `daemonLogPath`, emptied first, rather than to the test's.
    public func startDaemon(arguments: [String] = [], logging: Bool = false) throws {
        let notify = try NotifySocket(directory: home)
        defer { notify.close() }
        var env = environment
        env["NOTIFY_SOCKET"] = notify.path
        if logging { _ = FileManager.default.createFile(atPath: daemonLogPath, contents: nil) }
        let process = try Runner(environment: env).start(pasteboardd, arguments, stderrPath: logging ? daemonLogPath : nil)
        daemon = process
        try notify.waitForReady(process, name: "pasteboardd", seconds: 20)
    }

    /// Stops the daemon by its PID with `signal` and returns its exit status.
    @discardableResult
    public func stopDaemon(signal: Int32 = SIGTERM) -> Int32? {
        guard let daemon else { return nil }
        if daemon.isRunning { kill(daemon.processIdentifier, signal) }
        daemon.waitUntilExit()
        self.daemon = nil
        return daemon.terminationStatus
    }

    public func stop() {
        stopDaemon()
        xvfb.stop()
        try? FileManager.default.removeItem(atPath: home)
    }

    deinit { stop() }
}

/// A `NOTIFY_SOCKET` for a service started by a test: the service says `READY=1` on it (sd_notify(3)) once it
/// serves — pasteboardd, or Emacs started with `--fg-daemon` — so a test waits for that rather than sleeping.
public final class NotifySocket {
    public let path: String
    private let socket: UnixDatagramSocket

    /// Binds a datagram socket in `directory`.
    public init(directory: String) throws {
        path = directory + "/notify-\(UUID().uuidString.prefix(8)).sock"
        socket = try UnixDatagramSocket.bound(to: .path(path))
    }

    /// Returns once `process` said READY=1; throws when it exits first or `seconds` pass.
    public func waitForReady(_ process: Process, name: String, seconds: Int64) throws {
        let clock = SystemClock()
        let deadline = clock.now() + .seconds(seconds)
        while true {
            let now = clock.now()
            guard now < deadline, process.isRunning else {
                throw FixtureError(process.isRunning ? "\(name) did not report READY=1 within \(seconds) s"
                                                      : "\(name) exited with status \(process.terminationStatus) before it was ready")
            }
            _ = try Poller.wait([PollRequest(socket.fileDescriptor, .readable)],
                                timeoutMilliseconds: min(200, now.millisecondsUntil(deadline)))
            while let datagram = try socket.receive() {
                if String(decoding: datagram, as: UTF8.self).split(separator: "\n").contains("READY=1") { return }
            }
        }
    }

    public func close() {
        try? socket.close()
        try? FileManager.default.removeItem(atPath: path)
    }
}
