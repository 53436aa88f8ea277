// SPDX-License-Identifier: Apache-2.0
import Foundation
import SystemSupport
import TestSupport
import XCTest

/// pasteboardd on a Wayland session without X: `DISPLAY` unset for the daemon and for every pb, `WAYLAND_DISPLAY`
/// a headless sway's socket. The daemon serves the seat alone (its pasteboards kept on an in-memory display of
/// its own), and every pb command works through it: copy, paste, types, count, watch, history, pause and resume,
/// named pasteboards, conversions; wl-clipboard's copies are counted once each, kept after wl-copy exits and
/// restored after a restart. The suite's Xvfb runs, unused: nothing here can reach it.
final class WaylandOnlyTests: DesktopTestCase {
    override class var startsDaemon: Bool { false }
    nonisolated(unsafe) static var sway: Sway?

    override func setUpWithError() throws {
        try super.setUpWithError()
        if Self.sway == nil { Self.sway = try startSway() }
        desktop.environment["DISPLAY"] = nil
        desktop.environment["WAYLAND_DISPLAY"] = Self.sway!.socket
        if desktop.daemon?.isRunning != true { try desktop.startDaemon(logging: true) }
    }

    override class func tearDown() {
        super.tearDown()
        sway?.stop()
        sway = nil
    }

    /// `wl-copy --foreground` owning the seat's selection until stopped by its PID.
    func wlCopy(_ bytes: [UInt8], _ arguments: [String] = []) throws -> Process {
        let process = try desktop.runner.start("wl-copy", ["--foreground"] + arguments, stdin: bytes)
        addTeardownBlock { if process.isRunning { kill(process.processIdentifier, SIGTERM); process.waitUntilExit() } }
        return process
    }

    /// What `pb paste ARGUMENTS` prints, whatever its status (to wait on: an empty pasteboard is not a failure yet).
    func pasted(_ arguments: String...) throws -> String {
        try desktop.runner.run(desktop.pb, ["paste"] + arguments).text
    }

    func wlPaste(_ arguments: String...) throws -> RunResult {
        try desktop.runner.run("wl-paste", arguments, timeout: 10)
    }

    func testTheDaemonServesTheSeatAloneAndSaysSo() throws {
        XCTAssertNil(desktop.environment["DISPLAY"])
        XCTAssertTrue(desktop.daemonLog.contains("serving CLIPBOARD and PRIMARY on the Wayland seat of \(Self.sway!.socket)"), desktop.daemonLog)
        let pairs = try status()
        XCTAssertEqual(pairs["display"], "", "no X display")
        XCTAssertEqual(pairs["wayland"], Self.sway!.socket + " (wlr-data-control-unstable-v1 version 2)")
        XCTAssertEqual(try pb("displays").text, "\(Self.sway!.socket)\tconnected\n", "pb displays lists the seat")
    }

    func testPbCopyPastesOnWaylandAndAWaylandCopyPastesWithPbCountedOnceEach() throws {
        let before = try count()
        try pb("copy", input: Array("from pb ✓".utf8))
        XCTAssertEqual(try count(), before + 1)
        try waitUntil(5, "wl-paste reads pb's copy") { try self.wlPaste("--no-newline").text == "from pb ✓" }
        XCTAssertEqual(try pb("paste").text, "from pb ✓")
        XCTAssertTrue(try pb("types").text.split(separator: "\n").contains("text/plain;charset=utf-8"))

        let owner = try wlCopy(Array("from wl-copy".utf8))
        try waitUntil(5, "the Wayland copy is counted") { try count() == before + 2 }
        XCTAssertEqual(try pb("paste").text, "from wl-copy")
        XCTAssertEqual(try count(), before + 2, "reading is not a change")
        stop(owner)
    }

    /// pb talks to the one daemon whatever its own `$DISPLAY`: on an X display the daemon does not serve (here the
    /// suite's Xvfb), no count is published, and `pb count` asks the daemon rather than saying it is not running.
    func testPbCountOnAnXDisplayTheDaemonDoesNotServeAsksTheDaemon() throws {
        let before = try count()
        try pb("copy", input: Array("counted on the seat".utf8))
        var elsewhere = desktop.runner
        elsewhere.environment["DISPLAY"] = desktop.xvfb.display
        let counted = try elsewhere.run(desktop.pb, ["count"])
        XCTAssertEqual(counted.status, 0, counted.stderr)
        XCTAssertEqual(counted.text, "\(before + 1)\n")
        XCTAssertEqual(try elsewhere.run(desktop.pb, ["paste"]).text, "counted on the seat")
    }

    /// Read early, own late with no X at all: the copy is recorded; when wl-copy exits the daemon sets the selection
    /// again (no change), and wl-paste and pb still paste it.
    func testAWaylandCopyOutlivesItsClientAndCountsExactly() throws {
        let before = try count()
        let owner = try wlCopy(Array("survives wl-copy alone".utf8))
        try waitUntil(5, "the daemon read the copy") { try pb("history", "list").text.contains("survives wl-copy alone") }
        XCTAssertEqual(try count(), before + 1)
        stop(owner)
        try waitUntil(5, "the daemon took over on Wayland") { self.desktop.daemonLog.contains("took over CLIPBOARD on") }
        XCTAssertEqual(try wlPaste("--no-newline").text, "survives wl-copy alone")
        XCTAssertEqual(try pb("paste").text, "survives wl-copy alone")
        XCTAssertEqual(try count(), before + 1, "taking it over is not a change")
        XCTAssertFalse(desktop.daemonLog.contains("survives wl-copy alone"), "never content in the log")
    }

    func testWatchSeesPbAndWaylandCopies() throws {
        let (process, reader) = try startReading(desktop.pb, ["watch", "--json", "-b"])
        defer { stop(process) }
        try waitUntil(10, "pb watch is registered") { try self.status()["watchers"] == "1" }
        try pb("copy", input: Array("watched".utf8))
        let owner = try wlCopy(Array("watched on Wayland".utf8))
        defer { stop(owner) }
        let lines = [try reader.line(), try reader.line()].compactMap { $0 }
        XCTAssertEqual(lines.count, 2, "two records arrived")
        let records = try lines.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        XCTAssertEqual(records[0]?["state"] as? String, "data")
        XCTAssertEqual(records[1]?["state"] as? String, "foreign", "another application's copy")
        XCTAssertEqual((records[1]?["changeCount"] as? Int).map { $0 - 1 }, records[0]?["changeCount"] as? Int, "one change each")
    }

    func testPauseStopsRecordingWaylandCopiesUntilResume() throws {
        try pb("pause")
        XCTAssertEqual(try status()["recording"], "paused")
        let paused = try wlCopy(Array("not recorded while paused".utf8))
        try waitUntil(5, "the daemon saw it") { try self.pasted() == "not recorded while paused" }
        stop(paused)
        XCTAssertFalse(try pb("history", "list").text.contains("not recorded while paused"))
        try pb("resume")
        let resumed = try wlCopy(Array("recorded again".utf8))
        try waitUntil(5, "recorded after resume") { try self.pb("history", "list").text.contains("recorded again") }
        stop(resumed)
        try pb("history", "copy", "0")
        try waitUntil(5, "history copy reaches the seat") { try self.wlPaste("--no-newline").text == "recorded again" }
    }

    /// Named pasteboards are the daemon's alone on Wayland (no Wayland selection carries them): they are copied,
    /// pasted, listed and counted through it, and one it does not hold is empty (status 2), not an X error.
    func testNamedPasteboardsLiveInTheDaemon() throws {
        try pb("pasteboard", "create", "wl-notes")
        try pb("copy", "-P", "wl-notes", input: Array("a note".utf8))
        XCTAssertEqual(try pb("paste", "-P", "wl-notes").text, "a note")
        XCTAssertTrue(try pb("types", "-P", "wl-notes").text.split(separator: "\n").contains("UTF8_STRING"))
        XCTAssertEqual(try count("-P", "wl-notes"), 1)
        XCTAssertNotEqual(try wlPaste("--no-newline").text, "a note", "not the seat's selection")
        try pb("clear", "-P", "wl-notes")
        let empty = try desktop.runner.run(desktop.pb, ["paste", "-P", "wl-notes"])
        XCTAssertEqual(empty.status, 2, empty.stderr)
        let types = try desktop.runner.run(desktop.pb, ["types", "-P", "wl-notes"])
        XCTAssertEqual(types.status, 2, types.stderr)
        XCTAssertFalse(empty.stderr.contains("X display"), empty.stderr)
    }

    /// Conversions through the daemon and the seat: HTML copied with pb pastes as RTF on Wayland and through pb;
    /// a Wayland HTML copy pastes as RTF through pb.
    func testConversionsWorkForWaylandReadersAndPb() throws {
        let html = desktop.home + "/only.html"
        try "<p>only <b>Wayland</b></p>".write(toFile: html, atomically: true, encoding: .utf8)
        try pb("copy", "-t", "text/html=\(html)")
        try waitUntil(5, "wl-paste lists RTF") { try self.wlPaste("--list-types").text.split(separator: "\n").contains("text/rtf") }
        XCTAssertTrue(try wlPaste("--type", "text/rtf").text.hasPrefix("{\\rtf1"))
        XCTAssertTrue(try pb("paste", "-t", "rtf").text.contains("Wayland"))
        let owner = try wlCopy(Array("<p>from <i>wl-copy</i></p>".utf8), ["--type", "text/html"])
        try waitUntil(5, "pb sees the Wayland copy") { try self.pasted("-t", "html").contains("<i>wl-copy</i>") }
        let rtf = try pb("paste", "-t", "rtf").text
        XCTAssertTrue(rtf.hasPrefix("{\\rtf1") && rtf.contains("wl-copy"), rtf)
        stop(owner)
        let converted = try pb(["convert", "--from", "html", "--to", "txt"], input: Array("<p>a <b>b</b></p>".utf8)).text
        XCTAssertTrue(converted.contains("a b"), converted)
    }

    /// PRIMARY is one with the seat's primary selection when no X display has one of its own.
    func testPrimaryIsTheSeatsPrimarySelection() throws {
        let before = try count("-p")
        try pb("copy", "-p", input: Array("primary from pb".utf8))
        try waitUntil(5, "wl-paste --primary reads it") { try self.wlPaste("--primary", "--no-newline").text == "primary from pb" }
        let owner = try wlCopy(Array("primary from wl-copy".utf8), ["--primary"])
        try waitUntil(5, "pb paste -p reads it") { try self.pasted("-p") == "primary from wl-copy" }
        XCTAssertEqual(try count("-p"), before + 2)
        stop(owner)
    }

    /// The kept clipboard survives a restart with its count; a copy a Wayland client holds when the daemon starts is
    /// not replaced by it, nor counted.
    func testARestartRestoresTheClipboardButNotOverALiveWaylandCopy() throws {
        try pb("copy", input: Array("kept across restarts".utf8))
        let count = try count()
        try waitUntil(5, "written") { try self.status()["writes"] == "0" }
        XCTAssertEqual(desktop.stopDaemon(), 0)
        try desktop.startDaemon(logging: true)
        XCTAssertEqual(try self.count(), count, "the count continues")
        try waitUntil(5, "restored on the seat") { try self.wlPaste("--no-newline").text == "kept across restarts" }

        let owner = try wlCopy(Array("live when the daemon starts".utf8))
        try waitUntil(5, "counted") { try self.count() == count + 1 }
        XCTAssertEqual(desktop.stopDaemon(), 0)
        try desktop.startDaemon(logging: true)
        XCTAssertEqual(try wlPaste("--no-newline").text, "live when the daemon starts", "not restored over")
        XCTAssertEqual(try self.count(), count + 1, "a copy there at start is no change")
        XCTAssertTrue(desktop.daemonLog.contains("CLIPBOARD is owned; not restoring its saved content"), desktop.daemonLog)
        stop(owner)
    }

    /// With neither X nor a reachable compositor the daemon says why and keeps trying, as for an X server not up
    /// yet; SIGTERM stops it cleanly.
    func testACompositorNotThereYetIsWaitedFor() throws {
        var environment = desktop.environment
        environment["WAYLAND_DISPLAY"] = desktop.home + "/no-such-wayland"
        environment["XDG_RUNTIME_DIR"] = desktop.home + "/other-runtime"
        try FileManager.default.createDirectory(atPath: desktop.home + "/other-runtime", withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let log = desktop.home + "/waiting.log"
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let process = try Runner(environment: environment).start(desktop.pasteboardd, [], stderrPath: log)
        try waitUntil(10, "it says why") {
            ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").contains("cannot reach the Wayland compositor \(environment["WAYLAND_DISPLAY"]!) yet; retrying")
        }
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
    }

    /// On Wayland alone the compositor is what the daemon cannot run without: its loss ends the daemon with status
    /// 1, for systemd to start it again (Restart=on-failure), as the first X display's loss does.
    func testZZTheCompositorsLossEndsTheDaemonWithStatusOne() throws {
        let daemon = try XCTUnwrap(desktop.daemon)
        try Self.sway!.restart()
        daemon.waitUntilExit()
        XCTAssertEqual(daemon.terminationStatus, 1)
        XCTAssertTrue(desktop.daemonLog.contains("lost the Wayland compositor"), desktop.daemonLog)
        try desktop.startDaemon(logging: true)
        try pb("copy", input: Array("after the compositor came back".utf8))
        try waitUntil(5, "served on the new compositor") { try self.wlPaste("--no-newline").text == "after the compositor came back" }
    }
}
