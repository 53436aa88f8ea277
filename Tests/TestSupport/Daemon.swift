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
        let socketPath = home + "/notify-\(UUID().uuidString.prefix(8)).sock"
        let notify = try UnixDatagramSocket.bound(to: .path(socketPath))
        defer { try? notify.close(); try? FileManager.default.removeItem(atPath: socketPath) }
        var env = environment
        env["NOTIFY_SOCKET"] = socketPath
        if logging { _ = FileManager.default.createFile(atPath: daemonLogPath, contents: nil) }
        let process = try Runner(environment: env).start(pasteboardd, arguments, stderrPath: logging ? daemonLogPath : nil)
        daemon = process
        let clock = SystemClock()
        let deadline = clock.now() + .seconds(20)
        while true {
            let now = clock.now()
            guard now < deadline, process.isRunning else {
                throw FixtureError(process.isRunning ? "pasteboardd did not report READY=1 within 20 s"
                                                      : "pasteboardd exited with status \(process.terminationStatus) before it was ready")
            }
            _ = try Poller.wait([PollRequest(notify.fileDescriptor, .readable)],
                                timeoutMilliseconds: min(200, now.millisecondsUntil(deadline)))
            while let datagram = try notify.receive() {
                if String(decoding: datagram, as: UTF8.self).split(separator: "\n").contains("READY=1") { return }
            }
        }
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
