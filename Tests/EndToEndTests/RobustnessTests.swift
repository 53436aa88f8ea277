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

    /// A client's copy is judged piece by piece: a representation whose type no item may carry (a NUL in its
    /// name, which the library never sends) costs only itself, for every request that writes; a copy with
    /// nothing left is refused with the reason, and the clipboard is left as it was.
    func testAClientCopyKeepsWhatCanBeKeptAndOneWithNothingLeftIsRefused() throws {
        try pb("copy", input: Array("before".utf8))
        let fd = try UnixSocket.connect(path: desktop.home + "/runtime/pasteboard/control.sock")
        defer { try? fd.close() }
        func le(_ value: UInt64, _ bytes: Int) -> [UInt8] { (0..<bytes).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        func string(_ text: String) -> [UInt8] { le(UInt64(text.utf8.count), 4) + Array(text.utf8) }
        func frame(_ body: [UInt8]) -> [UInt8] { le(UInt64(body.count), 4) + body }
        func item(_ representations: [(String, String)]) -> [UInt8] {
            le(UInt64(representations.count), 4) + representations.flatMap { string($0.0) + string($0.1) }
        }
        var pending: [UInt8] = []
        /// The next answer's body (kind and fields), within 10 s.
        func answer() throws -> [UInt8] {
            let deadline = Date().addingTimeInterval(10)
            while Date() < deadline {
                if pending.count >= 4 {
                    let length = Int(pending[0]) | Int(pending[1]) << 8 | Int(pending[2]) << 16 | Int(pending[3]) << 24
                    if pending.count >= 4 + length {
                        defer { pending.removeFirst(4 + length) }
                        return Array(pending[4..<(4 + length)])
                    }
                }
                _ = try Poller.wait([PollRequest(fd, .readable)], timeoutMilliseconds: 200)
                if case .data(let bytes) = try fd.readAvailable() { pending += bytes }
            }
            throw FixtureError("no answer from pasteboardd")
        }
        try fd.writeAll(frame([1, 0x01, 0x00, 1] + string("test")))
        XCTAssertEqual(try answer().prefix(3), [1, 0x01, 0x80], "hello")
        // setExpiringItems (0x0014) whose one representation no item may carry.
        try fd.writeAll(frame([1, 0x14, 0x00] + string("CLIPBOARD") + le(1, 4) + item([("a\u{0}b", "lost")]) + le(0, 4) + le(60_000, 8)))
        let refused = try answer()
        XCTAssertEqual(Array(refused.prefix(3)), [1, 0x04, 0x80], "an error")
        XCTAssertTrue(String(decoding: refused, as: UTF8.self).contains("nothing of the copy can be kept: a"), "\(refused)")
        XCTAssertEqual(try pb("paste").text, "before", "left as it was")
        // setItems and addItems keep the rest.
        try fd.writeAll(frame([1, 0x02, 0x00] + string("CLIPBOARD") + le(1, 4) + item([("a\u{0}b", "lost"), ("UTF8_STRING", "kept")]) + le(0, 4)))
        XCTAssertEqual(Array(try answer().prefix(3)), [1, 0x02, 0x80], "a changeCount")
        XCTAssertEqual(try run("xclip", ["-o", "-selection", "clipboard"]).text, "kept")
        try fd.writeAll(frame([1, 0x03, 0x00] + string("CLIPBOARD") + le(1, 4) + item([("text/html", "<b>added</b>"), ("c\u{0}d", "lost")])))
        XCTAssertEqual(Array(try answer().prefix(3)), [1, 0x02, 0x80], "a changeCount")
        XCTAssertEqual(try run("xclip", ["-o", "-selection", "clipboard", "-t", "text/html"]).text, "<b>added</b>")
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
