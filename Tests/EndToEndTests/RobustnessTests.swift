import Foundation
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
