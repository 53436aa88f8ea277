// SPDX-License-Identifier: Apache-2.0
import Foundation
import SystemSupport
import TestSupport
import XCTest

/// pb without pasteboardd on a Wayland session: `pb types` and `pb paste` read a real headless sway's seat through
/// data-control (wl-copy owning it), as they read X without the daemon — types as wl-copy lists them, bytes as
/// sent, conversions through the table, PRIMARY, an empty selection, an owner that never answers — and `pb copy`
/// says how to start the daemon. No pasteboardd runs in this suite.
final class WaylandDirectReadTests: DesktopTestCase {
    override class var startsDaemon: Bool { false }
    nonisolated(unsafe) static var sway: Sway?

    override func setUpWithError() throws {
        try super.setUpWithError()
        if Self.sway == nil { Self.sway = try startSway() }
        XCTAssertNil(desktop.daemon, "no pasteboardd in this suite")
    }

    override class func tearDown() {
        super.tearDown()
        sway?.stop()
        sway = nil
    }

    /// A runner whose programs see the compositor and, with `x`, the suite's X display too.
    func wayland(x: Bool = false) -> Runner {
        var environment = desktop.environment
        environment["WAYLAND_DISPLAY"] = Self.sway!.socket
        if !x { environment["DISPLAY"] = nil }
        return Runner(environment: environment)
    }

    func pbOnWayland(_ arguments: [String], x: Bool = false, input: [UInt8] = []) throws -> RunResult {
        try wayland(x: x).run(desktop.pb, arguments, input: input, timeout: 30)
    }

    /// `wl-copy --foreground` owning the seat's selection until stopped by its PID; returns once wl-paste sees it.
    func wlCopy(_ bytes: [UInt8], _ arguments: [String] = []) throws -> Process {
        let process = try wayland().start("wl-copy", ["--foreground"] + arguments, stdin: bytes)
        addTeardownBlock {
            kill(process.processIdentifier, SIGCONT)
            if process.isRunning { kill(process.processIdentifier, SIGTERM); process.waitUntilExit() }
        }
        let primary = arguments.contains("--primary") ? ["--primary"] : []
        try waitUntil(5, "wl-copy owns the selection") {
            try self.wayland().run("wl-paste", ["--list-types"] + primary, timeout: 5).status == 0
        }
        return process
    }

    func testTypesListWlCopysMIMETypesAndPasteGivesTheText() throws {
        let owner = try wlCopy(Array("read from the seat ✓".utf8))
        let listed = try wayland().run("wl-paste", ["--list-types"], timeout: 5).text
        let types = try pbOnWayland(["types"])
        XCTAssertEqual(types.status, 0, types.stderr)
        XCTAssertEqual(types.text, listed, "pb types lists what wl-paste does")
        XCTAssertTrue(types.text.split(separator: "\n").contains("text/plain;charset=utf-8"), types.text)
        let paste = try pbOnWayland(["paste"])
        XCTAssertEqual(paste.status, 0, paste.stderr)
        XCTAssertEqual(paste.text, "read from the seat ✓")
        stop(owner)
    }

    func testHTMLPastesAsItIsAsRTFAndAsItsText() throws {
        let html = "<p>rich <b>bold</b> words</p>"
        let owner = try wlCopy(Array(html.utf8), ["--type", "text/html"])
        let asHTML = try pbOnWayland(["paste", "-t", "text/html"])
        XCTAssertEqual(asHTML.status, 0, asHTML.stderr)
        XCTAssertEqual(asHTML.text, html, "the HTML as wl-copy sent it")
        let rtf = try pbOnWayland(["paste", "-t", "rtf"])
        XCTAssertEqual(rtf.status, 0, rtf.stderr)
        XCTAssertTrue(rtf.text.hasPrefix("{\\rtf1") && rtf.text.contains("bold"), "RTF made from the HTML: \(rtf.text)")
        let text = try pbOnWayland(["paste"])
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertTrue(text.text.contains("rich bold words") && !text.text.contains("<"),
                      "the HTML's text, not its markup under wl-copy's text/plain alias: \(text.text)")
        stop(owner)
    }

    func testALargeCopyPastesWhole() throws {
        let big = (0..<(6 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) }
        let owner = try wlCopy(big, ["--type", "application/octet-stream"])
        let paste = try pbOnWayland(["paste", "-t", "application/octet-stream"])
        XCTAssertEqual(paste.status, 0, paste.stderr)
        XCTAssertEqual(paste.stdout.count, big.count)
        XCTAssertTrue(paste.stdout == big, "every byte, in order")
        stop(owner)
    }

    func testPrimarySelection() throws {
        let clipboard = try wlCopy(Array("on the clipboard".utf8))
        let primary = try wlCopy(Array("selected with the mouse".utf8), ["--primary"])
        let paste = try pbOnWayland(["paste", "-p"])
        XCTAssertEqual(paste.status, 0, paste.stderr)
        XCTAssertEqual(paste.text, "selected with the mouse")
        XCTAssertEqual(try pbOnWayland(["paste"]).text, "on the clipboard", "CLIPBOARD is the seat's selection")
        stop(primary)
        stop(clipboard)
    }

    func testAnEmptySelectionSaysSoWithPbsStatus() throws {
        let owner = try wlCopy(Array("soon gone".utf8))
        stop(owner)
        XCTAssertEqual(try wayland().run("wl-copy", ["--clear"], timeout: 5).status, 0)
        try waitUntil(5, "the selection is empty") { try self.wayland().run("wl-paste", ["--list-types"], timeout: 5).status != 0 }
        let paste = try pbOnWayland(["paste"])
        XCTAssertEqual(paste.status, 2, "pb's status for an empty pasteboard, as on X: \(paste.stderr)")
        XCTAssertTrue(paste.stderr.contains("CLIPBOARD is empty"), paste.stderr)
        XCTAssertEqual(try pbOnWayland(["types"]).status, 2)
    }

    func testATypeNotOfferedIsRefusedWithPbsStatus() throws {
        let owner = try wlCopy(Array("only text".utf8))
        let paste = try pbOnWayland(["paste", "-t", "image/png"])
        XCTAssertEqual(paste.status, 3, paste.stderr)
        XCTAssertTrue(paste.stderr.contains("does not offer image/png"), paste.stderr)
        stop(owner)
    }

    /// An owner that never writes (wl-copy stopped by its PID) costs pb its timeout, then a clear error.
    func testAnOwnerThatNeverAnswersTimesOut() throws {
        let owner = try wlCopy(Array("never sent".utf8))
        kill(owner.processIdentifier, SIGSTOP)
        let paste = try pbOnWayland(["paste", "--timeout", "700"])
        kill(owner.processIdentifier, SIGCONT)
        XCTAssertEqual(paste.status, 4, "pb's status for an owner that did not answer: \(paste.status) \(paste.stderr)")
        XCTAssertTrue(paste.stderr.contains("did not answer in time"), paste.stderr)
        XCTAssertEqual(paste.stdout, [], "nothing written")
        stop(owner)
    }

    /// With DISPLAY set too (XWayland's, say), the seat is read: it holds the user's copy.
    func testTheSeatComesFirstWhenDISPLAYIsSetToo() throws {
        let x = try desktop.runner.start("xclip", ["-quiet", "-i", "-selection", "clipboard"], stdin: Array("held on X".utf8))
        addTeardownBlock { if x.isRunning { kill(x.processIdentifier, SIGTERM); x.waitUntilExit() } }
        try waitUntil(5, "xclip owns CLIPBOARD") { try run("xclip", ["-o", "-selection", "clipboard"]).text == "held on X" }
        let owner = try wlCopy(Array("held on Wayland".utf8))
        let paste = try pbOnWayland(["paste"], x: true)
        XCTAssertEqual(paste.status, 0, paste.stderr)
        XCTAssertEqual(paste.text, "held on Wayland")
        XCTAssertEqual(try pbOnWayland(["types"], x: true).text,
                       try wayland().run("wl-paste", ["--list-types"], timeout: 5).text, "the seat's types")
        stop(owner)
        stop(x)
    }

    /// A seat that cannot be read (no compositor at WAYLAND_DISPLAY) gives way to X when DISPLAY is set, and is a clear
    /// error when it is not.
    func testASeatThatCannotBeReadGivesWayToXOrSaysWhy() throws {
        let x = try desktop.runner.start("xclip", ["-quiet", "-i", "-selection", "clipboard"], stdin: Array("only on X".utf8))
        addTeardownBlock { if x.isRunning { kill(x.processIdentifier, SIGTERM); x.waitUntilExit() } }
        try waitUntil(5, "xclip owns CLIPBOARD") { try run("xclip", ["-o", "-selection", "clipboard"]).text == "only on X" }
        var environment = desktop.environment
        environment["WAYLAND_DISPLAY"] = desktop.home + "/no-compositor-here"
        let paste = try Runner(environment: environment).run(desktop.pb, ["paste"], timeout: 30)
        XCTAssertEqual(paste.status, 0, paste.stderr)
        XCTAssertEqual(paste.text, "only on X", "read through X")
        environment["DISPLAY"] = nil
        let alone = try Runner(environment: environment).run(desktop.pb, ["paste"], timeout: 30)
        XCTAssertEqual(alone.status, 1, alone.stderr)
        XCTAssertTrue(alone.stderr.contains("cannot reach the Wayland compositor at \(desktop.home)/no-compositor-here"), alone.stderr)
        stop(x)
    }

    func testCopyWithoutTheDaemonSaysHowToStartIt() throws {
        let owner = try wlCopy(Array("left alone".utf8))
        let copy = try pbOnWayland(["copy", "new text"])
        XCTAssertEqual(copy.status, 1, copy.stderr)
        XCTAssertTrue(copy.stderr.contains("pasteboardd is not running"), copy.stderr)
        XCTAssertTrue(copy.stderr.contains("import-environment WAYLAND_DISPLAY") && copy.stderr.contains("pasteboardd &"),
                      "how to start it on Wayland: \(copy.stderr)")
        XCTAssertEqual(try pbOnWayland(["paste"]).text, "left alone", "nothing was copied")
        stop(owner)
    }
}
