// SPDX-License-Identifier: Apache-2.0
import Foundation
import SystemSupport
import TestSupport
import XCTest

/// Peering through the real OpenSSH client and server: the second "host" is `SSHHost` (sshd in a network namespace
/// of its own, its own HOME and runtime directory) where a pasteboardd runs on an Xvfb of its own; home's
/// pasteboardd is peered with it through `ssh -L` as docs/remote.md says, and through `pb ssh --peer`.
final class PeerSSHTests: DesktopTestCase {
    nonisolated(unsafe) static var sshHost: SSHHost?
    nonisolated(unsafe) static var hostDesktop: Desktop?
    nonisolated(unsafe) static var turn: Int32 = -1

    var host: SSHHost { Self.sshHost! }
    /// The host's display and daemon.
    var there: Desktop { Self.hostDesktop! }
    var hostSocket: String { host.runtime + "/pasteboard/remote.sock" }

    override func setUpWithError() throws {
        // The remote tests' turn: their forwarded sockets share /tmp with these sessions.
        Self.turn = open("/tmp/pasteboard-remote-tests.lock", O_CREAT | O_RDWR, 0o600)
        if Self.turn >= 0 { flock(Self.turn, LOCK_EX) }
        try super.setUpWithError()
        if Self.sshHost == nil {
            if let missing = SSHHost.missing {
                if Tools.isCI { throw FixtureError(missing) }
                throw XCTSkip(SkipLog.record(name, missing))
            }
            Self.sshHost = try SSHHost(programs: ["pb": desktop.pb])
            let there = try Desktop()
            there.environment["XDG_RUNTIME_DIR"] = host.runtime
            there.environment["HOME"] = host.home
            try there.startDaemon(logging: true)
            Self.hostDesktop = there
        }
        if there.daemon?.isRunning != true { try there.startDaemon(logging: true) }
        // Each test starts unpeered (a failed one may have left its peer).
        for line in try pb("peer", "list").text.split(separator: "\n") where !line.hasPrefix("(accepted)") {
            try pb("peer", "remove", String(line.split(separator: "\t")[0]))
        }
    }

    override func tearDownWithError() throws {
        if Self.turn >= 0 {
            flock(Self.turn, LOCK_UN)
            close(Self.turn)
            Self.turn = -1
        }
        try super.tearDownWithError()
    }

    override class func tearDown() {
        hostDesktop?.stop()
        hostDesktop = nil
        sshHost?.stop()
        sshHost = nil
        super.tearDown()
    }

    func xclipOut(on desktop: Desktop) throws -> RunResult {
        try desktop.runner.run("xclip", ["-o", "-selection", "clipboard", "-t", "UTF8_STRING"])
    }

    func countOn(_ desktop: Desktop) throws -> UInt64 {
        try XCTUnwrap(UInt64(try desktop.runner.run(desktop.pb, ["count"]).text.trimmingCharacters(in: .whitespacesAndNewlines)))
    }

    /// ssh (or pb ssh) in the background, stopped by its PID at the end.
    func background(_ argv: [String]) throws -> BackgroundSession {
        try BackgroundSession(["/bin/sh", "-c", "exec \"$@\" >\"$OUT\" 2>\"$ERR\" </dev/null", "sh"] + argv,
                              environment: desktop.environment, directory: host.directory)
    }

    /// Copies cross both ways with one count each.
    func assertCopiesCrossBothWays() throws {
        let (home, away) = (try countOn(desktop), try countOn(there))
        let owner = try desktop.runner.start("xclip", ["-quiet", "-i", "-selection", "clipboard"], stdin: Array("copied at home".utf8))
        defer { stop(owner) }
        try waitUntil(10, "the host serves home's copy") { try xclipOut(on: there).text == "copied at home" }
        let back = try there.runner.start("xclip", ["-quiet", "-i", "-selection", "clipboard"], stdin: Array("copied on the host".utf8))
        defer { stop(back) }
        try waitUntil(10, "home serves the host's copy") { try xclipOut(on: desktop).text == "copied on the host" }
        try pb("copy", "sentinel")
        try waitUntil(10, "the host serves the sentinel") { try xclipOut(on: there).text == "sentinel" }
        XCTAssertEqual(try countOn(desktop), home + 3)
        XCTAssertEqual(try countOn(there), away + 3)
    }

    func testPeeredThroughSSHLocalForwardCopiesCrossBothWaysAndADroppedForwardIsRetried() throws {
        let local = desktop.home + "/runtime/pasteboard/peer-test.sock"
        let ssh = try background(["ssh"] + ["-F", host.configPath, "-N", "-o", "ExitOnForwardFailure=yes", "-o", "StreamLocalBindUnlink=yes",
                                            "-L", "\(local):\(hostSocket)", "remote"])
        defer { kill(ssh.processID, SIGTERM); _ = ssh.finish() }
        try waitUntil(30, "ssh listens") { (try? FileSystem.status(local, followSymbolicLinks: false).kind) == .socket }
        try pb("peer", "add", local)
        try waitUntil(20, "peered through ssh") { try pb("peer", "list").text.hasPrefix("\(local)\tconnected") }
        try assertCopiesCrossBothWays()

        // The ssh client dies: the peer is listed disconnected and retried; home goes on serving its display.
        XCTAssertEqual(kill(ssh.processID, SIGKILL), 0)
        _ = ssh.finish()
        try waitUntil(10, "the peer is disconnected") { try pb("peer", "list").text.hasPrefix("\(local)\tdisconnected\t") }
        try pb("copy", "alone")
        XCTAssertEqual(try pb("paste").text, "alone")
        XCTAssertTrue(desktop.daemon?.isRunning == true && there.daemon?.isRunning == true)
        try pb("peer", "remove", local)
    }

    func testPBSSHPeerPeersForTheSessionsLifeAndCleansUp() throws {
        let stopFile = host.home + "/stop-session"
        try? FileManager.default.removeItem(atPath: stopFile)
        let sessionFile = host.home + "/peer-session"
        try? FileManager.default.removeItem(atPath: sessionFile)
        let session = try background([desktop.pb, "ssh", "--peer"] + host.sshArguments
                                     + ["echo $LC_PASTEBOARD_SESSION > '\(sessionFile)'; while [ ! -e '\(stopFile)' ]; do sleep 0.1; done; pb count"])
        defer { _ = FileManager.default.createFile(atPath: stopFile, contents: nil); _ = session.finish(timeout: 30) }   // a failed check's too
        try waitUntil(30, "pb ssh --peer peered the host") {
            try pb("peer", "list").text.split(separator: "\n").contains { $0.contains("/peer-") && $0.contains("\tconnected") }
        }
        if !(try pb("peer", "list").text.contains("/peer-")) {
            kill(session.processID, SIGTERM)
            let ended = session.finish(timeout: 5)
            return XCTFail("pb ssh --peer said: \(ended.stderr) (status \(ended.status)); peers: \(try pb("peer", "list").text)")
        }
        let socket = try XCTUnwrap(try pb("peer", "list").text.split(separator: "\n").first { $0.contains("/peer-") }?.split(separator: "\t").first.map(String.init))
        try assertCopiesCrossBothWays()
        let named = try String(contentsOfFile: sessionFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertFalse(named.isEmpty, "the session is named to the host's shell")
        let forwarded = sshSession(named)
        let master = try XCTUnwrap(forwarded.master, "\(forwarded.processes)")
        XCTAssertTrue(FileManager.default.fileExists(atPath: forwarded.hostSocket), "home's pasteboard is forwarded for pb on the host")
        XCTAssertTrue(FileManager.default.createFile(atPath: stopFile, contents: nil))
        let finished = session.finish(timeout: 30)
        XCTAssertEqual(finished.status, 0, finished.stderr)
        XCTAssertFalse(finished.text.isEmpty, "the session's command ran on the host: \(finished.stderr)")
        XCTAssertFalse(try pb("peer", "list").text.contains(socket), "the peer is removed with the session")
        XCTAssertFalse(FileManager.default.fileExists(atPath: socket), "and its socket")
        assertLeavesNothing(forwarded, "pb ssh --peer ended")
        XCTAssertFalse(master.isRunning)
    }

    func testPBSSHPeerToAHostWithoutAPasteboarddSaysSoAndStartsNothing() throws {
        XCTAssertEqual(there.stopDaemon(), 0)
        defer { try? there.startDaemon(logging: true) }
        let before = try FileManager.default.contentsOfDirectory(atPath: "/tmp").filter { $0.hasPrefix("pasteboard-ssh-") }
        let result = try desktop.runner.run(desktop.pb, ["ssh", "--peer"] + host.sshArguments + ["true"], timeout: 60)
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.contains("no pasteboardd listens on the host"), result.stderr)
        XCTAssertFalse(try pb("peer", "list").text.contains("/peer-"))
        try waitUntil(10, "the master connection is closed") { sshProcesses.isEmpty }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: "/tmp").filter { $0.hasPrefix("pasteboard-ssh-") }, before,
                       "its forward's socket on the host is removed")
    }
}
