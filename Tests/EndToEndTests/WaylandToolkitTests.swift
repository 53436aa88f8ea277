// SPDX-License-Identifier: Apache-2.0
import Foundation
import SystemSupport
import TestSupport
import XCTest

/// A GTK 3 application on the Wayland backend reads what pasteboardd serves on the seat — an X copy (text, and an
/// HTML copy as RTF, converted), a Wayland copy kept once its copier exited — and copies: its copy pastes in X and
/// is kept once it exits. GTK uses the seat's core data-device, as Wayland applications do, not data-control. A
/// Wayland copy needs an input event's serial: wtype's virtual keyboard presses the key GTK copies on.
final class WaylandToolkitTests: SeatTestCase {
    /// What the GTK 3 reader on Wayland read: backend, targets, text, html, rtf.
    func gtkRead() throws -> [String: Any] {
        let result = try wayland.run("/usr/bin/python3", [peer("toolkits.py"), "gtk-wayland"], timeout: 20)
        XCTAssertEqual(result.status, 0, result.stderr)
        return try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [String: Any] ?? [:]
    }

    func testAGTKWaylandAppPastesAnXCopyAndAnXHTMLCopyAsRTF() throws {
        let text = try startOwner("xclip", ["-quiet", "-i", "-selection", "clipboard"], input: Array("copied on X, pasted in GTK".utf8))
        var read = try gtkRead()
        XCTAssertEqual(read["backend"] as? String, "GdkWaylandDisplay", "GTK ran on Wayland")
        XCTAssertEqual(read["text"] as? String, "copied on X, pasted in GTK")
        stop(text)
        let html = try startOwner("xclip", ["-quiet", "-i", "-selection", "clipboard", "-t", "text/html"],
                                  input: Array("<p>rich <b>bold</b></p>".utf8))
        try waitUntil(5, "the HTML copy is on the seat") {
            (try self.wayland.run("wl-paste", ["-l"]).text).contains("text/rtf")
        }
        read = try gtkRead()
        XCTAssertTrue((read["targets"] as? [String] ?? []).contains("text/rtf"), "\(read)")
        XCTAssertEqual(read["html"] as? String, "<p>rich <b>bold</b></p>")
        let rtf = try XCTUnwrap(read["rtf"] as? String, "\(read)")
        XCTAssertTrue(rtf.hasPrefix("{\\rtf1"), rtf)
        XCTAssertTrue(rtf.contains("\\b bold") || rtf.contains("\\b\\") || rtf.contains("{\\b "), rtf)
        stop(html)
    }

    func testAGTKWaylandCopyPastesInXCountedOnceAndIsKeptOnceItExits() throws {
        _ = try requireTool("wtype", package: "wtype")
        let before = try count()
        let gtk = try wayland.start("/usr/bin/python3", [peer("toolkits.py"), "gtk-wayland-own", "copied in GTK on Wayland"], stdin: [])
        addTeardownBlock { if gtk.isRunning { kill(gtk.processIdentifier, SIGTERM); gtk.waitUntilExit() } }
        // The key press reaches the window once it is mapped and focused: pressed again until GTK copied.
        try waitUntil(15, "GTK copied on a key press") {
            _ = try? self.wayland.run("wtype", ["-s", "200", "c"], timeout: 5)
            return try self.count() > before
        }
        try waitUntil(5, "xclip reads GTK's copy") { (try? self.run("xclip", ["-o", "-selection", "clipboard"], timeout: 5).text) == "copied in GTK on Wayland" }
        XCTAssertEqual(try count(), before + 1, "one change for GTK's copy")
        try waitUntil(5, "the copy was read") { self.desktop.daemonLog.contains("read CLIPBOARD on") }
        stop(gtk)
        try waitUntil(5, "the daemon took the seat over") { self.desktop.daemonLog.contains("took over CLIPBOARD on") }
        XCTAssertEqual(try wayland.run("wl-paste", ["--no-newline"]).text, "copied in GTK on Wayland")
        XCTAssertEqual(try run("xclip", ["-o", "-selection", "clipboard"]).text, "copied in GTK on Wayland")
        XCTAssertEqual(try count(), before + 1, "kept, not changed")
    }

    func testAGTKWaylandAppPastesAWaylandCopyKeptAfterItsCopierExited() throws {
        let before = try count()
        let copier = try wayland.start("wl-copy", ["--foreground"], stdin: Array("kept for GTK".utf8))
        try waitUntil(5, "the copy is counted") { try count() == before + 1 }
        try waitUntil(5, "the copy was read") { self.desktop.daemonLog.contains("read CLIPBOARD on") }
        stop(copier)
        try waitUntil(5, "the daemon took the seat over") { self.desktop.daemonLog.contains("took over CLIPBOARD on") }
        let read = try gtkRead()
        XCTAssertEqual(read["text"] as? String, "kept for GTK")
        XCTAssertEqual(try count(), before + 1, "kept, not changed")
    }
}
