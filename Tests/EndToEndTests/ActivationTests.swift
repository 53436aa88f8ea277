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

    override func tearDown() {
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

    /// systemd-socket-activate listening on the control socket, ready to start pasteboardd with the
    /// desktop's environment (it passes only what -E names). It is started with posix_spawn, not
    /// Foundation's Process: it closes every descriptor it did not open, Foundation's watch on the child
    /// among them, and Foundation then waits for it to exit on the thread that reaps every other child.
    func startActivator() throws -> Started {
        let activator = try requireTool("systemd-socket-activate", package: "systemd")
        try FileManager.default.createDirectory(atPath: desktop.home + "/runtime/pasteboard", withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let passed = ["DISPLAY", "XDG_RUNTIME_DIR", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "HOME"].flatMap { ["-E", $0] }
        let (readEnd, writeEnd) = try FileDescriptor.pipe()
        // Its standard error (where it and pasteboardd log) into the pipe, through a shell that execs it.
        let pid = try ChildProcess.spawn(argv: ["/bin/sh", "-c", "exec \"$@\" 2>&1", "sh", activator, "-l", socketPath] + passed + [desktop.pasteboardd],
                                         environment: desktop.environment, stdout: writeEnd)
        try writeEnd.close()
        let started = Started(pid: pid, errors: LineReader(FileHandle(fileDescriptor: readEnd.rawValue))) {
            try? Signals.send(.terminate, to: pid)
            defer { try? readEnd.close() }
            guard case .exited(let code)? = try? ChildProcess.wait(pid) else { return -1 }
            return code
        }
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
}
