// SPDX-License-Identifier: Apache-2.0
import Foundation
import SystemSupport
import TestSupport
import XCTest

/// Started when needed: the first pb starts pasteboardd through its socket, with systemd's own activator
/// (`systemd-socket-activate`, from the systemd package) doing what `pasteboardd.socket` does; bad
/// `$LISTEN_*` variables are clear errors; `pasteboardd --autostart` starts nothing where something serves.
final class ActivationTests: DesktopTestCase {
    override class var startsDaemon: Bool { false }

    var socketPath: String { desktop.home + "/runtime/pasteboard/control.sock" }

    /// Every activator started, stopped by its PID at the end of the test even when the test failed early.
    var activators: [Started] = []

    override func tearDown() {
        for activator in activators { _ = activator.stop() }
        activators = []
        desktop.stopDaemon()
        try? FileManager.default.removeItem(atPath: socketPath)
        super.tearDown()
    }

    /// A process with its standard error read line by line, stopped by its PID.
    struct Started {
        let pid: Int32
        let errors: LineReader
        let stopAndWait: () -> Int32

        /// Reads standard error until a line containing `text` (at most `timeout` seconds); every line read.
        func waitForLine(containing text: String, timeout: Double = 20) throws -> [String] {
            var lines: [String] = []
            while let line = try errors.line(timeout: timeout) {
                lines.append(line)
                if line.contains(text) { return lines }
            }
            throw FixtureError("no line with '\(text)' on standard error; got: \(lines)")
        }

        func stop() -> Int32 { stopAndWait() }

        /// Whether it has ended by itself (a zombie waiting for `stop()` to reap it, or gone).
        var hasExited: Bool {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return true }
            return stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).hasPrefix("Z")
        }

        /// The running program's name, as the kernel has it (`systemd-socket-activate` execs what it starts).
        var command: String {
            ((try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8)) ?? "")
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    func start(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) throws -> Started {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment ?? desktop.environment
        let errors = Pipe()
        process.standardInput = FileHandle(forReadingAtPath: "/dev/null")
        process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        process.standardError = errors
        try process.run()
        return Started(pid: process.processIdentifier, errors: LineReader(errors.fileHandleForReading)) {
            if process.isRunning { kill(process.processIdentifier, SIGTERM) }
            process.waitUntilExit()
            return process.terminationStatus
        }
    }

    /// systemd-socket-activate listening on the control socket, ready to start pasteboardd with
    /// `environment` (the desktop's by default; it passes only what -E names, and what is unset not at all,
    /// as a user manager without DISPLAY imported does). It is started with posix_spawn, not
    /// Foundation's Process: it closes every descriptor it did not open, Foundation's watch on the child
    /// among them, and Foundation then waits for it to exit on the thread that reaps every other child.
    func startActivator(environment: [String: String]? = nil, alsoListeningOn extra: [String] = []) throws -> Started {
        let activator = try requireTool("systemd-socket-activate", package: "systemd")
        try FileManager.default.createDirectory(atPath: desktop.home + "/runtime/pasteboard", withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let passed = ["DISPLAY", "XDG_RUNTIME_DIR", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "HOME"].flatMap { ["-E", $0] }
        let (readEnd, writeEnd) = try FileDescriptor.pipe()
        // Its standard error (where it and pasteboardd log) into the pipe, through a shell that execs it.
        let pid = try ChildProcess.spawn(argv: ["/bin/sh", "-c", "exec \"$@\" 2>&1", "sh", activator, "-l", socketPath] + extra.flatMap { ["-l", $0] } + passed + [desktop.pasteboardd],
                                         environment: environment ?? desktop.environment, stdout: writeEnd)
        try writeEnd.close()
        var status: Int32?
        let started = Started(pid: pid, errors: LineReader(FileHandle(fileDescriptor: readEnd.rawValue))) {
            if let status { return status }   // stopped already (by the test, then by tearDown)
            try? Signals.send(.terminate, to: pid)
            defer { try? readEnd.close() }
            guard case .exited(let code)? = try? ChildProcess.wait(pid) else {
                status = -1
                return -1
            }
            status = code
            return code
        }
        activators.append(started)
        _ = try started.waitForLine(containing: "Listening on \(socketPath)")
        XCTAssertEqual(started.command, "systemd-socket-", "nothing started yet")
        return started
    }

    func testTheFirstPbStartsPasteboarddThroughItsSocket() throws {
        let activator = try startActivator()
        try pb("copy", "started by the first pb")
        XCTAssertEqual(activator.command, "pasteboardd", "the activator became pasteboardd, with the socket")
        _ = try activator.waitForLine(containing: "listening on the control socket the service manager passed (\(socketPath))")
        XCTAssertEqual(try pb("paste").text, "started by the first pb")
        XCTAssertEqual(activator.stop(), 0)
        XCTAssertEqual(try FileSystem.status(socketPath, followSymbolicLinks: false).kind, .socket,
                       "the socket file is the service manager's: left for it to listen on again")
    }

    func testBothSocketsArePassedAndTheFirstPbThroughTheRemoteOneStartsIt() throws {
        let remoteSocket = desktop.home + "/runtime/pasteboard/remote.sock"
        let activator = try startActivator(alsoListeningOn: [remoteSocket])
        var environment = desktop.environment
        environment.removeValue(forKey: "DISPLAY")
        environment["PASTEBOARD_SOCKET"] = remoteSocket
        let through = Runner(environment: environment)
        let copied = try through.run(desktop.pb, ["copy", "started through the remote socket"])
        XCTAssertEqual(copied.status, 0, copied.stderr)
        XCTAssertEqual(activator.command, "pasteboardd")
        _ = try activator.waitForLine(containing: "listening on the remote socket the service manager passed (\(remoteSocket))")
        XCTAssertEqual(try pb("paste").text, "started through the remote socket", "served at home through the control socket")
        let history = try through.run(desktop.pb, ["history"])
        XCTAssertEqual(history.status, 1, "the remote socket is the restricted one")
        XCTAssertTrue(history.stderr.contains("not available through the remote socket"), history.stderr)
        XCTAssertEqual(activator.stop(), 0)
    }

    func testPasteboarddStartedPlainlyStillBindsItsOwnSocket() throws {
        try desktop.startDaemon()
        XCTAssertEqual(try FileSystem.status(socketPath, followSymbolicLinks: false).kind, .socket)
        try pb("copy", "plain")
        XCTAssertEqual(try pb("paste").text, "plain")
        desktop.stopDaemon()
        XCTAssertFalse(FileManager.default.fileExists(atPath: socketPath), "its own socket file goes with it")
    }

    /// pasteboardd run by /bin/sh with `assignments` made in the shell that execs it (so `$$` is its PID)
    /// and `redirections` for its descriptors; returns its status and standard error.
    func runDaemon(_ assignments: String, redirections: String = "") throws -> (status: Int32, errors: String) {
        let result = try run("/bin/sh", ["-c", "\(assignments) exec '\(desktop.pasteboardd)' \(redirections)"], timeout: 30)
        return (result.status, result.stderr)
    }

    func testBadListenVariablesAreClearErrors() throws {
        let cases: [(assignments: String, redirections: String, error: String)] = [
            ("LISTEN_PID=$$ LISTEN_FDS=1", "3</etc/hostname", "socket activation: descriptor 3: is not a listening Unix stream socket"),
            ("LISTEN_PID=$$ LISTEN_FDS=lots", "", "socket activation: $LISTEN_FDS is not a number of descriptors"),
            ("LISTEN_PID=$$ LISTEN_FDS=2", "3</etc/hostname 4<&-", "$LISTEN_FDS names descriptor 4, which is not open"),
            ("LISTEN_PID=me LISTEN_FDS=1", "", "$LISTEN_PID is not a process ID"),
        ]
        for (assignments, redirections, error) in cases {
            let result = try runDaemon(assignments, redirections: redirections)
            XCTAssertEqual(result.status, 1, assignments)
            XCTAssertTrue(result.errors.contains(error), "\(assignments): \(result.errors)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: socketPath), "none of them bound a socket")

        // Variables meant for another process (its parent's, inherited) are left alone: it binds its own.
        let inherited = try start("/bin/sh", ["-c", "LISTEN_PID=1 LISTEN_FDS=1 exec '\(desktop.pasteboardd)'"])
        _ = try inherited.waitForLine(containing: "serving CLIPBOARD and PRIMARY")
        try pb("copy", "inherited variables ignored")
        XCTAssertEqual(try pb("paste").text, "inherited variables ignored")
        XCTAssertEqual(inherited.stop(), 0)
    }

    func testAutostartStartsOnlyWhenNothingServes() throws {
        // systemd's socket listening: nothing is started, and the socket is not even connected to.
        let activator = try startActivator()
        let underSocket = try run(desktop.pasteboardd, ["--autostart"], timeout: 30)
        XCTAssertEqual(underSocket.status, 0)
        XCTAssertEqual(underSocket.stderr, "pasteboardd: not started: something already listens on \(socketPath)\n")
        XCTAssertEqual(activator.command, "systemd-socket-", "a connection would have started the unit")
        _ = activator.stop()
        try? FileManager.default.removeItem(atPath: socketPath)

        // Nothing serving (and no systemd user manager here to be in charge): it starts and serves.
        let alone = try start(desktop.pasteboardd, ["--autostart"])
        _ = try alone.waitForLine(containing: "serving CLIPBOARD and PRIMARY")
        try pb("copy", "autostarted")
        XCTAssertEqual(try pb("paste").text, "autostarted")

        // A second one, as a second session start would run it, leaves the first alone.
        let again = try run(desktop.pasteboardd, ["--autostart"], timeout: 30)
        XCTAssertEqual(again.status, 0)
        XCTAssertTrue(again.stderr.contains("not started: something already listens"), again.stderr)
        XCTAssertEqual(alone.stop(), 0)
    }

    // MARK: A pasteboardd that cannot start says why, to the pb that woke it

    /// The environment of a user manager that never imported DISPLAY; pb itself runs in the session, with it.
    var withoutDisplay: [String: String] {
        var environment = desktop.environment
        environment.removeValue(forKey: "DISPLAY")
        return environment
    }

    func testWithoutDisplayTheFirstPbIsToldWhyAndPasteStillReadsTheSelection() throws {
        let big = desktop.home + "/big.bin"
        try Data(repeating: 0x5A, count: 4 << 20).write(to: URL(fileURLWithPath: big))
        let said = "pb: pasteboardd could not start: DISPLAY is not set (systemctl --user import-environment DISPLAY)\n"
        // 4 MiB: pasteboardd answers after the hello and closes, before reading the data pb is still writing.
        for arguments in [["copy", "no display"], ["status"], ["copy", "-t", "application/octet-stream=\(big)"]] {
            let activator = try startActivator(environment: withoutDisplay)
            let result = try run(desktop.pb, arguments)
            XCTAssertEqual(result.status, 1, "pb \(arguments[0])")
            XCTAssertEqual(result.stderr, said, "pb \(arguments[0]), not a reset connection")
            let lines = try activator.waitForLine(containing: "told 1 waiting client why")
            XCTAssertTrue(lines.contains("pasteboardd: could not start: DISPLAY is not set (systemctl --user import-environment DISPLAY)"), "\(lines)")
            XCTAssertEqual(activator.stop(), 1, "it fails as before, for systemd to restart it")
        }

        // pb paste asks the daemon first, then reads the X selection itself, as with no daemon at all.
        let owner = try desktop.runner.start("xclip", ["-quiet", "-i", "-selection", "clipboard"], stdin: Array("xclip's text".utf8))
        defer { stop(owner) }
        try waitUntil(10, "xclip owns CLIPBOARD") { try run("xclip", ["-o", "-selection", "clipboard"]).text == "xclip's text" }
        let activator = try startActivator(environment: withoutDisplay)
        let paste = try run(desktop.pb, ["paste"])
        XCTAssertEqual(paste.text, "xclip's text")
        XCTAssertEqual(paste.status, 0, paste.stderr)
        XCTAssertEqual(paste.stderr, "")
        _ = try activator.waitForLine(containing: "told 1 waiting client why")
        XCTAssertEqual(activator.stop(), 1)
    }

    func testADisplayWithoutAServerIsSaidToEachPbWhileTheDaemonKeepsTrying() throws {
        // A display number nothing listens on, by file or by Linux's abstract name.
        let sockets = (try? String(contentsOfFile: "/proc/net/unix", encoding: .utf8)) ?? ""
        let number = try XCTUnwrap((600..<700).first { !FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\($0)")
                                                         && !sockets.contains("/tmp/.X11-unix/X\($0)\n") })
        var environment = desktop.environment
        environment["DISPLAY"] = ":\(number)"
        let activator = try startActivator(environment: environment)
        let said = "pb: pasteboardd could not start: cannot open display :\(number) (no X server listens at /tmp/.X11-unix/X\(number)); still trying\n"
        for arguments in [["copy", "no server"], ["status"]] {
            let result = try run(desktop.pb, arguments)
            XCTAssertEqual(result.status, 1, "pb \(arguments[0])")
            XCTAssertEqual(result.stderr, said, "pb \(arguments[0])")
        }
        let lines = try activator.waitForLine(containing: "that X display :\(number) cannot be opened yet")
        XCTAssertTrue(lines.contains { $0.contains("cannot open X display :\(number) yet; retrying (attempt 1: no X server listens at") }, "\(lines)")
        XCTAssertEqual(activator.command, "pasteboardd", "still waiting for its X server, as at session start")
        XCTAssertEqual(activator.stop(), 0, "stopped while waiting")
    }

    func testAnXServerThatRefusesTheConnectionIsSaidWithTheCookieHint() throws {
        // An X server that wants a cookie (MIT-MAGIC-COOKIE-1, for any display: family FamilyWild) the daemon
        // is not given: XAUTHORITY is not in the user manager's environment, and $HOME has no .Xauthority.
        let cookie = desktop.home + "/cookie"
        func counted(_ bytes: [UInt8]) -> [UInt8] { [UInt8(bytes.count >> 8), UInt8(bytes.count & 0xFF)] + bytes }
        let secret = (0..<16).map { _ in UInt8.random(in: 0...255) }
        let record: [UInt8] = [0xFF, 0xFF] + counted([]) + counted([]) + counted(Array("MIT-MAGIC-COOKIE-1".utf8)) + counted(secret)
        try Data(record).write(to: URL(fileURLWithPath: cookie))
        let guarded = try Xvfb(extraArguments: ["-auth", cookie])
        defer { guarded.stop() }
        var environment = desktop.environment
        environment["DISPLAY"] = guarded.display
        environment.removeValue(forKey: "XAUTHORITY")
        let activator = try startActivator(environment: environment)
        let result = try run(desktop.pb, ["copy", "refused"])
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(result.stderr, "pb: pasteboardd could not start: cannot open display \(guarded.display) (the X server refused the "
                       + "connection; if it wants a cookie: systemctl --user import-environment XAUTHORITY); still trying\n")
        XCTAssertEqual(activator.stop(), 0)
    }

    func testABadConfigurationIsSaidToTheFirstPb() throws {
        let directory = desktop.home + "/config/pasteboard"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let config = directory + "/config.json"
        try "{\"historyLenght\": 5}".write(toFile: config, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: config) }
        let activator = try startActivator()
        let result = try run(desktop.pb, ["copy", "bad configuration"])
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(result.stderr, "pb: pasteboardd could not start: \(config): unknown key \"historyLenght\"\n")
        // It answers pb, then exits: stopped before that, it would be SIGTERM's and not its own status.
        try waitUntil(10, "pasteboardd exits after saying why") { activator.hasExited }
        XCTAssertEqual(activator.stop(), 1)
    }
}
