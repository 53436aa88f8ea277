// SPDX-License-Identifier: Apache-2.0
import Foundation
import SystemSupport
import TestSupport
import XCTest

/// The pasteboard over SSH (docs/remote.md), with the real OpenSSH client and server: the suite's pasteboardd
/// at "home", a second host (`SSHHost`: sshd in a network namespace of its own, reached through ProxyCommand,
/// its own HOME and runtime directory, no display) where the built pb runs in the sessions `pb ssh` opens.
final class RemoteTests: DesktopTestCase {
    nonisolated(unsafe) static var hosts: [String: SSHHost] = [:]

    /// The host, made once for the class (`variant` names another sshd configuration).
    func host(_ variant: String = "stock", acceptsLocaleVariables: Bool = true, allowsForwarding: Bool = true) throws -> SSHHost {
        if let host = Self.hosts[variant] { return host }
        if let missing = SSHHost.missing {
            if Tools.isCI { throw FixtureError(missing) }
            throw XCTSkip(SkipLog.record(name, missing))
        }
        let host = try SSHHost(programs: ["pb": desktop.pb, "pbcopy": desktop.pb, "pbpaste": desktop.pb],
                               acceptsLocaleVariables: acceptsLocaleVariables, allowsForwarding: allowsForwarding)
        Self.hosts[variant] = host
        return host
    }

    override class func tearDown() {
        for host in hosts.values { host.stop() }
        hosts = [:]
        super.tearDown()
    }

    /// Held for each test: the forwarded sockets live in the one /tmp every session of the user shares (and pb on a
    /// host without a session name takes the newest that answers), so these tests take turns across the parallel
    /// workers of `make test` — another one's session would otherwise be taken for this one's, or removed.
    nonisolated(unsafe) static var turn: Int32 = -1

    override func setUpWithError() throws {
        Self.turn = open("/tmp/pasteboard-remote-tests.lock", O_CREAT | O_RDWR, 0o600)
        if Self.turn >= 0 { flock(Self.turn, LOCK_EX) }
        try super.setUpWithError()
    }

    override func tearDownWithError() throws {
        // Sockets a session left (pb ssh removes its own when it ends; a failed test's, the recipe's, the stale one
        // a test makes): the next test starts without them. A live session's socket, another user's or a developer's
        // own, is left alone. No test's assertions rely on this.
        for name in (try? FileManager.default.contentsOfDirectory(atPath: "/tmp")) ?? [] where name.hasPrefix("pasteboard-ssh-") {
            if let live = try? UnixSocket.connect(path: "/tmp/" + name) {
                try? live.close()
            } else {
                try? FileManager.default.removeItem(atPath: "/tmp/" + name)
            }
        }
        if Self.turn >= 0 {
            flock(Self.turn, LOCK_UN)
            close(Self.turn)
            Self.turn = -1
        }
        try super.tearDownWithError()
    }

    /// `pb ssh` to `host` running `script` there (through the remote user's shell); its result.
    @discardableResult
    func onHost(_ script: String, host: SSHHost? = nil, timeout: Double = 60) throws -> RunResult {
        let host = try host ?? self.host()
        return try desktop.runner.run(desktop.pb, ["ssh"] + host.sshArguments + [script], timeout: timeout)
    }

    /// `pb ssh` to `host` running `script`, in the background, with its output collected to files. Started with
    /// posix_spawn through a shell, not Foundation's Process: ssh closes every descriptor it did not open,
    /// Foundation's watch on the child among them, and Foundation would then wait for it on the thread that reaps
    /// every other child (ActivationTests says the same of systemd-socket-activate).
    func sessionInBackground(_ script: String, host: SSHHost) throws -> BackgroundSession {
        try BackgroundSession(["/bin/sh", "-c", "exec \"$@\" >\"$OUT\" 2>\"$ERR\" </dev/null", "sh", desktop.pb, "ssh"] + host.sshArguments + [script],
                              environment: desktop.environment, directory: host.directory)
    }

    /// A file of `count` random bytes in the host's directory (shared with home: one file system) and its SHA-256.
    func randomFile(_ name: String, count: Int) throws -> (path: String, sha256: String) {
        let path = try host().home + "/" + name
        _ = try run("/bin/sh", ["-c", "head -c \(count) /dev/urandom > '\(path)'"])
        return (path, try sha256(path))
    }

    func sha256(_ path: String) throws -> String {
        String(try run("/usr/bin/sha256sum", [path]).text.prefix(64))
    }

    // MARK: - Every command through the forward

    func testEveryPermittedCommandWorksOnTheHostAsAtHome() throws {
        try pb("copy", "copied at home")
        let home = try count()
        let there = try onHost("""
            pb paste; echo; pb count; pbpaste; echo
            printf 'copied over ssh' | pb copy && pb count
            printf 'in primary' | pbcopy -pboard primary
            pb types | grep -x UTF8_STRING
            """)
        XCTAssertEqual(there.status, 0, there.stderr)
        XCTAssertEqual(there.text, "copied at home\n\(home)\ncopied at home\n\(home + 1)\nUTF8_STRING\n")
        XCTAssertEqual(try pb("paste").text, "copied over ssh")
        XCTAssertEqual(try run("xclip", ["-o", "-selection", "clipboard"]).text, "copied over ssh", "served on the display at home")
        XCTAssertEqual(try pb("paste", "-p").text, "in primary")
        XCTAssertEqual(try onHost("exit 7").status, 7, "ssh's exit status is pb ssh's")
    }

    /// The session's socket on the host is there while it runs and removed when it ends, and its master connection
    /// and the watcher that cleans up after it end with it.
    func testASessionsSocketIsRemovedWhenItEndsAndNothingOfItStays() throws {
        let result = try onHost("echo $LC_PASTEBOARD_SESSION; [ -S /tmp/pasteboard-ssh-$LC_PASTEBOARD_SESSION.sock ] && echo socket; exit 3")
        XCTAssertEqual(result.status, 3, result.stderr)
        let lines = result.text.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 2, result.text)
        XCTAssertEqual(lines.last, "socket", "the session's socket is there while it runs")
        assertLeavesNothing(sshSession(try XCTUnwrap(lines.first)), "pb ssh HOST COMMAND ended")
    }

    /// Another application at home owns the clipboard (xclip, alive): the host pastes what it copied, as the
    /// daemon read it, converted at home; a copy its application marked secret is refused there.
    func testWhatAnotherApplicationAtHomeCopiedPastesOnTheHost() throws {
        let owner = try startOwner("xclip", ["-quiet", "-i", "-selection", "clipboard", "-t", "text/html"],
                                   input: Array("<p>xclip at <b>home</b></p>".utf8))
        defer { stop(owner) }
        try waitUntil(10, "the daemon read xclip's copy") { try status()["snapshots"] == "0" }
        let there = try onHost("pb paste -t html; echo; pb types | grep -x text/html; pb paste -t rtf | head -c 6")
        XCTAssertEqual(there.status, 0, there.stderr)
        XCTAssertEqual(there.text, "<p>xclip at <b>home</b></p>\ntext/html\n{\\rtf1", "read by the daemon, converted at home: \(there.stderr)")
        stop(owner)
        let secret = try startTestOwner(targets: [("UTF8_STRING", Array("a password".utf8)),
                                                  ("x-kde-passwordManagerHint", Array("secret".utf8))])
        defer { secret.exit() }
        let refused = try onHost("pb paste")
        XCTAssertNotEqual(refused.status, 0)
        XCTAssertFalse(refused.text.contains("a password"))
    }

    func testSeveralTypesRichTextAndPicturesAreConvertedAtHome() throws {
        let host = try host()
        try "<p>rich <b>text</b></p>".write(toFile: host.home + "/page.html", atomically: true, encoding: .utf8)
        try "rich text".write(toFile: host.home + "/page.txt", atomically: true, encoding: .utf8)
        let copied = try onHost("cd; pb copy -t html=page.html -t text=page.txt && pb paste -t rtf | head -c 6")
        XCTAssertEqual(copied.status, 0, copied.stderr)
        XCTAssertEqual(copied.text, "{\\rtf1", "RTF made at home from the HTML copied over ssh")
        XCTAssertEqual(try pb("paste", "-t", "html").text, "<p>rich <b>text</b></p>")
        XCTAssertEqual(try pb("paste").text, "rich text")

        _ = try run("/usr/bin/python3", ["-c", "from PIL import Image; Image.new('RGB', (8, 4), (200, 10, 10)).save('\(host.home)/red.png')"])
        let picture = try onHost("cd; pb copy red.png && pb types | grep -c '^image/' && pb paste -t image/jpeg | head -c 3 | od -An -tx1")
        XCTAssertEqual(picture.status, 0, picture.stderr)
        let lines = picture.text.split(separator: "\n")
        XCTAssertGreaterThan(Int(lines.first ?? "") ?? 0, 3, "the picture is offered under every image type")
        XCTAssertEqual(lines.last?.trimmingCharacters(in: .whitespaces), "ff d8 ff", "a JPEG made at home")
        XCTAssertEqual(Array(try pb("paste", "-t", "image/png").stdout.prefix(4)), [0x89, 0x50, 0x4E, 0x47])
    }

    func testSixtyFourMebibytesCrossBothWaysIntact() throws {
        let up = try randomFile("up.bin", count: 64 << 20)
        let copied = try onHost("pb copy -t application/x-pb-test='\(up.path)'", timeout: 120)
        XCTAssertEqual(copied.status, 0, copied.stderr)
        let pasted = try run("/bin/sh", ["-c", "'\(desktop.pb)' paste -t application/x-pb-test | sha256sum"], timeout: 120)
        XCTAssertEqual(String(pasted.text.prefix(64)), up.sha256, "64 MiB copied on the host, pasted at home")

        let down = try randomFile("down.bin", count: 64 << 20)
        try pb("copy", "-t", "application/x-pb-test=\(down.path)")
        let there = try onHost("pb paste -t application/x-pb-test | sha256sum", timeout: 120)
        XCTAssertEqual(there.status, 0, there.stderr)
        XCTAssertEqual(String(there.text.prefix(64)), down.sha256, "64 MiB copied at home, pasted on the host")
    }

    /// A pipe on the host (`producer | pb copy`, pbcopy too) is sent home in pieces as it is read, byte-exact,
    /// one change each.
    func testAPipeOnTheHostIsCopiedHomeInPieces() throws {
        let up = try randomFile("piped-up.bin", count: 64 << 20)
        let before = try count()
        let copied = try onHost("cat '\(up.path)' | pb copy -t application/x-pb-piped", timeout: 120)
        XCTAssertEqual(copied.status, 0, copied.stderr)
        XCTAssertEqual(try count(), before + 1)
        let pasted = try run("/bin/sh", ["-c", "xclip -o -selection clipboard -t application/x-pb-piped | sha256sum"], timeout: 120)
        XCTAssertEqual(String(pasted.text.prefix(64)), up.sha256, "64 MiB piped on the host, read by xclip at home")

        let text = try randomFile("piped-text.bin", count: 3 << 20)
        let pbcopy = try onHost("base64 -w0 '\(text.path)' | pbcopy", timeout: 120)
        XCTAssertEqual(pbcopy.status, 0, pbcopy.stderr)
        let expected = try run("/bin/sh", ["-c", "base64 -w0 '\(text.path)' | sha256sum"])
        let home = try run("/bin/sh", ["-c", "xclip -o -selection clipboard | sha256sum"], timeout: 60)
        XCTAssertEqual(String(home.text.prefix(64)), String(expected.text.prefix(64)), "pbcopy of a pipe on the host")
    }

    // MARK: - The restricted socket

    func testTheHostCannotReachHistoryPausingOrPasteboardsAndIsToldWhy() throws {
        for command in ["pb history", "pb pause", "pb resume", "pb status", "pb pasteboard create notes", "pb history clear"] {
            let result = try onHost(command)
            XCTAssertEqual(result.status, 1, command)
            XCTAssertTrue(result.stderr.contains("is not available through the remote socket, which serves copy, paste, types, count and watch"),
                          "\(command): \(result.stderr)")
        }
        XCTAssertEqual(try pb("status").text.contains("recording: on"), true, "pb resume never reached the daemon either way")
    }

    func testSensitiveAndLocalOnlyContentIsNeverSeenOnTheHost() throws {
        let host = try host()
        let watch = try sessionInBackground("pb watch -b | head -n 2", host: host)
        try waitUntil(20, "the host's pb watch is watching") { try pb("status").text.contains("watchers: 1") }
        for (flag, reason) in [("--sensitive", "was copied with --sensitive"), ("--local-only", "was copied with --local-only")] {
            try pb("copy", flag, "hunter2")
            XCTAssertEqual(try pb("paste").text, "hunter2", "served at home")
            for command in ["pb paste", "pb types", "pb paste -t text/html", "pb paste --item 0"] {
                let result = try onHost(command)
                XCTAssertEqual(result.status, 1, "\(command) of \(flag)")
                XCTAssertEqual(result.text, "", "\(command) of \(flag) wrote nothing")
                XCTAssertTrue(result.stderr.contains("what CLIPBOARD holds \(reason): it is never served through the remote socket"), result.stderr)
            }
        }
        try pb("copy", "for everyone")
        let records = watch.finish(timeout: 30)
        let lines = records.text.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 2, records.stderr)
        XCTAssertTrue(lines[0].hasPrefix("CLIPBOARD ") && lines[0].hasSuffix(" sensitive "), "no types of withheld content: \(lines[0])")
        XCTAssertFalse(records.text.contains("hunter2"))
        XCTAssertTrue(lines[1].hasSuffix(" sensitive ") , "local-only content is reported the same way: \(lines[1])")
        XCTAssertEqual(try onHost("pb paste").text, "for everyone")
    }

    // MARK: - Sessions, stale sockets, dead forwards

    func testTwoSessionsEachUseTheirOwnSocketAndAStaleOneIsRemovedNotUsed() throws {
        let host = try host()
        let pidFile = host.home + "/first-session.pid"
        try? FileManager.default.removeItem(atPath: pidFile)
        let first = try sessionInBackground(
            "echo $LC_PASTEBOARD_SESSION > ~/first-session; exec python3 -c 'import os, time; open(\"\(pidFile)\", \"w\").write(str(os.getpid())); time.sleep(60)'",
            host: host)
        defer { _ = first.finish(timeout: 30) }
        try waitUntil(20, "the first session runs") { FileManager.default.fileExists(atPath: pidFile) }
        let firstSession = try String(contentsOfFile: host.home + "/first-session", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let live = sshSession(firstSession)
        let (master, watcher) = (try XCTUnwrap(live.master, "\(live.processes)"), try XCTUnwrap(live.watcher, "\(live.processes)"))
        // A socket left by a session that ended (nothing listens there), the newest of all: tried first without a
        // session name.
        let stale = "/tmp/pasteboard-ssh-" + String(repeating: "0", count: 32) + ".sock"
        _ = try run("/usr/bin/python3", ["-c", "import socket, os, time; s = socket.socket(socket.AF_UNIX); s.bind('\(stale)'); "
                                                + "os.chmod('\(stale)', 0o600); s.close(); os.utime('\(stale)', (time.time() + 600,) * 2)"])
        try pb("copy", "two sessions")
        let second = try onHost("echo $LC_PASTEBOARD_SESSION; ls /tmp | grep -c '^pasteboard-ssh-'; pb paste; echo; env -u LC_PASTEBOARD_SESSION pb paste")
        XCTAssertEqual(second.status, 0, second.stderr)
        let lines = second.text.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 4, second.text)
        XCTAssertNotEqual(lines[0], firstSession, "each session has its own socket")
        XCTAssertEqual(lines[1], "3", "the first session's, the second's and the stale one")
        XCTAssertEqual(Array(lines.suffix(2)), ["two sessions", "two sessions"], "its own, and without a session name the newest that answers")
        XCTAssertFalse(FileManager.default.fileExists(atPath: stale), "the stale socket was removed")
        assertLeavesNothing(sshSession(lines[0]), "the second session ended")
        XCTAssertTrue(FileManager.default.fileExists(atPath: live.hostSocket), "the live session's socket stays")
        XCTAssertTrue(master.isRunning && watcher.isRunning, "and its master connection and watcher: \(live.processes)")
        XCTAssertEqual(try onHost("pb paste").text, "two sessions", "another session is served")

        XCTAssertEqual(kill(pid_t(try String(contentsOfFile: pidFile, encoding: .utf8))!, SIGTERM), 0)
        XCTAssertEqual(first.finish(timeout: 30).status, 255, "ssh's status for a command a signal ended")
        assertLeavesNothing(live, "the first session ended")
        XCTAssertFalse(master.isRunning || watcher.isRunning)
    }

    func testWithoutLocaleVariablesTheSessionStillFindsItsForward() throws {
        let host = try host("no AcceptEnv", acceptsLocaleVariables: false)
        try pb("copy", "found by looking")
        let result = try onHost("echo \"[$LC_PASTEBOARD_SESSION]\"; pb paste", host: host)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.text, "[]\nfound by looking")
    }

    func testADeadForwardSaysSoAndAHostThatRefusesForwardingEndsTheSession() throws {
        let host = try host()
        let dead = "/tmp/pb-dead-" + UUID().uuidString.prefix(8) + ".sock"
        defer { try? FileManager.default.removeItem(atPath: dead) }
        // A forward whose other end leads nowhere, and a socket nothing serves.
        let result = try run("/usr/bin/ssh", ["-R", "\(dead):\(desktop.home)/nothing.sock"] + host.sshArguments +
                             ["PASTEBOARD_SOCKET=\(dead) pb paste; echo $?; PASTEBOARD_SOCKET=/tmp/none.sock pb copy x; echo $?"])
        XCTAssertEqual(result.text, "1\n1\n", result.stderr)
        XCTAssertTrue(result.stderr.contains("pb: the forwarded pasteboard socket at \(dead) does not answer: is the ssh session that forwards it still open"),
                      result.stderr)
        XCTAssertTrue(result.stderr.contains("the forwarded pasteboard socket at /tmp/none.sock does not answer"), result.stderr)

        let refusing = try self.host("no forwarding", allowsForwarding: false)
        let refused = try onHost("echo the session ran", host: refusing)
        XCTAssertEqual(refused.status, 255, "ExitOnForwardFailure: ssh ends the session")
        XCTAssertEqual(refused.text, "")
        XCTAssertTrue(refused.stderr.contains("remote port forwarding failed"), refused.stderr)
        XCTAssertEqual(sshProcesses.map(\.description), [], "no master connection, no watcher")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: pasteboardRuntime).filter { $0.hasPrefix("ssh-") }, [],
                       "no control socket")
    }

    func testKillingTheSSHClientMidPasteLeavesTheDaemonServingAndTheTransferCountedDown() throws {
        let host = try host()
        let big = try randomFile("held.bin", count: 64 << 20)
        try pb("copy", "-t", "application/x-pb-test=\(big.path)")
        let pidFile = host.home + "/reader.pid"
        try? FileManager.default.removeItem(atPath: pidFile)
        // The reader on the host takes one byte and stops reading: the forward fills and the paste stalls mid-way.
        let sessionFile = host.home + "/killed-session"
        let session = try sessionInBackground(
            "echo $LC_PASTEBOARD_SESSION > '\(sessionFile)'; "
                + "pb paste -t application/x-pb-test | python3 -c 'import os, sys, time; open(\"\(pidFile)\", \"w\").write(str(os.getpid())); sys.stdin.buffer.read(1); time.sleep(60)'",
            host: host)
        defer { _ = session.finish(timeout: 5) }   // a failed check's too
        try waitUntil(30, "the paste is under way") {
            try FileManager.default.fileExists(atPath: pidFile) && pb("status").text.contains("transfers: 1")
        }
        let killed = sshSession(try String(contentsOfFile: sessionFile, encoding: .utf8))
        let (master, watcher) = (try XCTUnwrap(killed.master, "\(killed.processes)"), try XCTUnwrap(killed.watcher, "\(killed.processes)"))
        // The shell exec'd pb ssh, which became ssh: its PID is the session's ssh client's.
        let client = try XCTUnwrap(killed.processes.first { $0.processID == session.processID }, "\(killed.processes)")
        XCTAssertEqual(Array(client.commandLine.prefix(3)), ["ssh", "-S", killed.controlSocket], "the PID is the session's ssh")
        XCTAssertEqual(kill(session.processID, SIGKILL), 0)
        _ = session.finish(timeout: 30)
        try waitUntil(20, "the transfer is counted down") { try pb("status").text.contains("transfers: 0") }
        assertLeavesNothing(killed, "the session's ssh was killed")
        XCTAssertFalse(master.isRunning || watcher.isRunning)
        if let reader = pid_t((try? String(contentsOfFile: pidFile, encoding: .utf8)) ?? "") { kill(reader, SIGTERM) }
        XCTAssertEqual(desktop.daemon?.isRunning, true)
        let again = try run("/bin/sh", ["-c", "'\(desktop.pb)' paste -t application/x-pb-test | sha256sum"], timeout: 60)
        XCTAssertEqual(String(again.text.prefix(64)), big.sha256, "the content is still whole at home")
        XCTAssertEqual(try onHost("pb count").status, 0, "a new session is served")
    }
}

/// A program started with posix_spawn (`ChildProcess.spawn`), its output going where its argv sends it (files
/// named by `$OUT` and `$ERR` in `directory`), waited for with a timeout and stopped by its PID if it overruns.
final class BackgroundSession {
    let processID: Int32
    private let outputPath: String
    private let errorPath: String
    private var status: Int32?

    init(_ argv: [String], environment: [String: String], directory: String) throws {
        let base = directory + "/session-" + UUID().uuidString.prefix(8)
        outputPath = base + ".out"
        errorPath = base + ".err"
        var environment = environment
        environment["OUT"] = outputPath
        environment["ERR"] = errorPath
        processID = try ChildProcess.spawn(argv: argv, environment: environment)
    }

    /// Waits at most `timeout` seconds for it to exit (then SIGKILL to its PID) and returns what it did.
    func finish(timeout: Double = 30) -> RunResult {
        if status == nil {
            let deadline = Date().addingTimeInterval(timeout)
            var raw: Int32 = 0
            while waitpid(processID, &raw, WNOHANG) == 0 {
                if Date() > deadline { kill(processID, SIGKILL) }
                Thread.sleep(forTimeInterval: 0.02)
            }
            status = (raw & 0x7F) == 0 ? (raw >> 8) & 0xFF : -(raw & 0x7F)
        }
        return RunResult(status: status ?? -1, stdout: Array((try? Data(contentsOf: URL(fileURLWithPath: outputPath))) ?? Data()),
                         stderr: (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "")
    }
}
