// SPDX-License-Identifier: Apache-2.0
import Foundation
import SystemSupport
import TestSupport
import XCTest

/// A mixed session: a headless sway with XWayland, and one pasteboardd serving both XWayland's X display and the
/// seat (`--display` the XWayland display, `--wayland` the socket), as on a Wayland desktop with X applications.
/// xclip copies on X paste with wl-paste and wl-copy copies paste with xclip, each counted once, and a few seconds
/// of copies both ways leave no echo: the count stays put afterwards and the last copier still owns its copy.
///
/// No X window was ever focused here: sway has not given XWayland's window manager the seat, so its own
/// X↔Wayland bridge does nothing and the daemon is the one bridge. With the bridge at work: `XWaylandBridgeTests`
/// (docs/architecture.md, "The XWayland bridge").
final class MixedSessionTests: DesktopTestCase {
    override class var startsDaemon: Bool { false }
    nonisolated(unsafe) static var sway: Sway?
    nonisolated(unsafe) static var xwayland: String?

    override func setUpWithError() throws {
        try super.setUpWithError()
        if Self.sway == nil {
            let sway = try startSway(xwayland: true)
            Self.xwayland = try sway.xwaylandDisplay()
            Self.sway = sway
        }
        desktop.environment["DISPLAY"] = Self.xwayland
        desktop.environment["WAYLAND_DISPLAY"] = Self.sway!.socket
        if desktop.daemon?.isRunning != true {
            try desktop.startDaemon(arguments: ["--display", Self.xwayland!, "--wayland", Self.sway!.socket], logging: true)
        }
    }

    override class func tearDown() {
        super.tearDown()
        sway?.stop()
        sway = nil
    }

    func owner(_ tool: String, _ arguments: [String], _ text: String) throws -> Process {
        let process = try desktop.runner.start(tool, arguments, stdin: Array(text.utf8))
        addTeardownBlock { if process.isRunning { kill(process.processIdentifier, SIGTERM); process.waitUntilExit() } }
        return process
    }

    func xclipOut() throws -> String { try run("xclip", ["-o", "-selection", "clipboard"], timeout: 10).text }
    func wlPaste() throws -> String { try desktop.runner.run("wl-paste", ["--no-newline"], timeout: 10).text }

    func testTheDaemonServesXWaylandAndTheSeat() throws {
        XCTAssertTrue(desktop.daemonLog.contains("serving the Wayland seat of \(Self.sway!.socket)"), desktop.daemonLog)
        XCTAssertTrue(try pb("displays").text.hasPrefix("\(Self.xwayland!)\tconnected\n"))
    }

    func testCopiesCrossBothWaysCountedOnceWithNoEchoOverChurn() throws {
        let start = try count()
        var owners: [Process] = []
        for round in 0..<3 {
            let x = try owner("xclip", ["-quiet", "-i", "-selection", "clipboard"], "x copy \(round)")
            owners.append(x)
            try waitUntil(5, "xclip's copy \(round) pastes on Wayland") { try self.wlPaste() == "x copy \(round)" }
            XCTAssertEqual(try count(), start + UInt64(2 * round + 1), "one change for xclip's copy \(round)")
            let w = try owner("wl-copy", ["--foreground"], "wayland copy \(round)")
            owners.append(w)
            try waitUntil(5, "wl-copy's copy \(round) pastes in X") { try self.xclipOut() == "wayland copy \(round)" }
            XCTAssertEqual(try count(), start + UInt64(2 * round + 2), "one change for wl-copy's copy \(round)")
        }
        let settled = try count()
        Thread.sleep(forTimeInterval: 2)
        XCTAssertEqual(try count(), settled, "no echo: nothing changes once the copies stop")
        XCTAssertTrue(owners.last!.isRunning, "the last copier still owns its copy: nobody took it from it")
        XCTAssertEqual(try wlPaste(), "wayland copy 2")
        XCTAssertEqual(try xclipOut(), "wayland copy 2")
        XCTAssertEqual(try pb("paste").text, "wayland copy 2")
        for process in owners { stop(process) }
    }
}
