// SPDX-License-Identifier: Apache-2.0
import Foundation
import SystemSupport
import TestSupport
import XCTest

/// Nothing a misbehaving X client or a stopped daemon does goes unhandled.
final class RobustnessTests: DesktopTestCase {
    func testThousandRequestorsThatDestroyTheirWindowLeaveTheDaemonServing() throws {
        try pb("copy", input: [UInt8]("still here"))
        XCTAssertEqual(try requestor("destroy-storm", "1000")["sent"] as? Int, 1000)
        XCTAssertTrue(desktop.daemon?.isRunning == true, "pasteboardd survived the BadWindow storm")
        XCTAssertEqual(try run("xclip", ["-o", "-selection", "clipboard"]).text, "still here")
        try pb("copy", input: [UInt8]("and still serving"))
        XCTAssertEqual(try run("xsel", ["-b", "-o"]).text, "and still serving")
    }

    func testThousandsOfBackToBackPastesAreAllAnswered() throws {
        try pb("copy", input: Array("round trip".utf8))
        let reply = try requestor("roundtrips", "1500")
        XCTAssertEqual(reply["missed"] as? Int, 0, "every request got its SelectionNotify within 2 s")
        XCTAssertEqual(reply["wrong"] as? Int, 0)
    }

    func testAClientThatNeverReadsHoldsOneAnswerAndStallsNobody() throws {
        let big = [UInt8](repeating: UInt8(ascii: "b"), count: 8 << 20)
        try pb("copy", input: big)
        try waitUntil(10, "the copy is in the history") { try pb("history", "show", "0").stdout.count == big.count }
        // hello, then 40 historyItem(0) requests in one write (docs/protocol.md), and never a read: each
        // answer is read from disk afresh, so each pending one would cost its own 8 MiB.
        func frame(_ body: [UInt8]) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: body.count >> (8 * $0)) } + body }
        var bytes = frame([1, 0x01, 0x00, 1, 1, 0, 0, 0, UInt8(ascii: "t")])
        for _ in 0..<40 { bytes += frame([1, 0x0B, 0x00, 0, 0, 0, 0]) }
        let fd = try UnixSocket.connect(path: desktop.home + "/runtime/pasteboard/control.sock")
        defer { try? fd.close() }
        try fd.writeAll(bytes)
        let started = Date()
        XCTAssertEqual(try pb("paste").stdout.count, big.count, "another client is served meanwhile")
        XCTAssertLessThan(Date().timeIntervalSince(started), 10)
        let status = try String(contentsOfFile: "/proc/\(desktop.daemon!.processIdentifier)/status", encoding: .utf8)
        let rss = try XCTUnwrap(status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }.flatMap { Int($0.split(separator: " ")[1]) },
                                "VmRSS in /proc/PID/status")
        XCTAssertLessThan(rss, 150 << 10, "one unread 8 MiB answer is kept (KiB), not 40")
    }

    func testCopyReturnsAtOnceHoldingNoPipeOpen() throws {
        // If pb kept stdout open (as xclip does), reading its output to the end would hang; the run
        // helper's timeout would kill it and the status would be negative.
        let result = try desktop.runner.run(desktop.pb, ["copy"], input: [UInt8]("detached"), timeout: 10)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try pb("paste").text, "detached")
    }
}

/// Start, stop and absence of the daemon.
final class DaemonLifecycleTests: DesktopTestCase {
    override class var startsDaemon: Bool { false }

    func testWithoutADaemonCopyExplainsHowToStartIt() throws {
        let result = try run(desktop.pb, ["copy"], input: [UInt8]("x"))
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.contains("pasteboardd is not running"), result.stderr)
        XCTAssertTrue(result.stderr.contains("systemctl --user start pasteboardd"), result.stderr)
    }

    func testSIGTERMReleasesTheSelectionAndRemovesTheSocket() throws {
        try desktop.startDaemon()
        try pb("copy", input: [UInt8]("owned"))
        let socket = desktop.home + "/runtime/pasteboard/control.sock"
        XCTAssertTrue(FileManager.default.fileExists(atPath: socket))
        XCTAssertEqual(desktop.stopDaemon(signal: SIGTERM), 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: socket), "the socket is removed at exit")
        XCTAssertEqual(try run(desktop.pb, ["paste"]).status, 2, "the selection was released")
    }

    func testASecondDaemonRefusesToStartWhileOneRuns() throws {
        try desktop.startDaemon()
        defer { desktop.stopDaemon() }
        let second = try run(desktop.pasteboardd, [], timeout: 20)
        XCTAssertEqual(second.status, 1)
        XCTAssertTrue(second.stderr.contains("cannot listen"), second.stderr)
    }

    func testTheCountContinuesAcrossARestart() throws {
        try desktop.startDaemon()
        try pb("copy", input: [UInt8]("one"))
        try pb("copy", input: [UInt8]("two"))
        let before = try count()
        desktop.stopDaemon()
        try desktop.startDaemon()
        defer { desktop.stopDaemon() }
        XCTAssertGreaterThanOrEqual(try count(), before, "the count never goes back")
        try pb("copy", input: [UInt8]("three"))
        XCTAssertGreaterThan(try count(), before)
    }

    func testUsageErrorsExitWith64AndHelpWith0() throws {
        let bad = try run(desktop.pb, ["copy", "--no-such-option"])
        XCTAssertEqual(bad.status, 64)
        XCTAssertTrue(bad.stderr.contains("unknown option --no-such-option"), bad.stderr)
        for command in ["copy", "paste", "types", "count", "clear", "convert"] {
            let help = try run(desktop.pb, [command, "--help"])
            XCTAssertEqual(help.status, 0)
            XCTAssertTrue(help.text.hasPrefix("usage: pb \(command)"), help.text)
        }
        XCTAssertEqual(try run(desktop.pasteboardd, ["--help"]).status, 0)
        XCTAssertEqual(try run(desktop.pasteboardd, ["--bogus"]).status, 64)
    }
}
