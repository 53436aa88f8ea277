// SPDX-License-Identifier: Apache-2.0
import Foundation
import TestSupport
import XCTest

/// `pb history pick` with the menus clipmenu and greenclip users have: real rofi and dmenu on the suite's
/// Xvfb, driven by keystrokes through xdotool (XTEST, as a person's typing reaches the menu's keyboard
/// grab), and fzf as a filter. The chosen entry becomes the clipboard again, as one change.
final class HistoryPickerTests: DesktopTestCase {
    let entries = ["first apple", "second banana", "third cherry"]

    /// Clears the history and copies `entries` in order (the last is the newest), each recorded.
    func fillHistory() throws {
        try pb("history", "clear")
        for text in entries { try pb("copy", text) }
        try waitUntil(10, "every copy is in the history") {
            try pb("history", "list").text.split(separator: "\n").count == entries.count
        }
    }

    /// Waits until a window of class `windowClass` is mapped (xdotool polls the server), then types `text`
    /// and presses Return.
    func choose(in windowClass: String, typing text: String) throws {
        let xdotool = try requireTool("xdotool", package: "xdotool")
        let found = try run(xdotool, ["search", "--sync", "--onlyvisible", "--classname", windowClass], timeout: 20)
        XCTAssertEqual(found.status, 0, "no \(windowClass) window appeared: \(found.stderr)")
        XCTAssertEqual(try run(xdotool, ["type", "--delay", "20", text]).status, 0)
        XCTAssertEqual(try run(xdotool, ["key", "Return"]).status, 0)
    }

    func testRofiChoosesAnEntryAndItBecomesTheClipboardAsOneChange() throws {
        _ = try requireTool("rofi", package: "rofi")
        try fillHistory()
        let before = try count()
        let picker = try startPB(["history", "pick", "--menu", "rofi"])
        try choose(in: "rofi", typing: "banana")
        let result = picker.finish()
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try pb("paste").text, "second banana")
        XCTAssertEqual(try count(), before + 1, "one change")
    }

    func testAutoFallsBackToDmenuAndALineTypedThatIsNoEntryChangesNothing() throws {
        let dmenu = try requireTool("dmenu", package: "suckless-tools")
        try fillHistory()
        // A search path with dmenu and no rofi: auto takes dmenu.
        let bin = desktop.home + "/dmenu-only"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        try? FileManager.default.createSymbolicLink(atPath: bin + "/dmenu", withDestinationPath: dmenu)
        var environment = desktop.environment
        environment["PATH"] = bin

        let picker = try startPB(["history", "pick"], environment: environment)
        try choose(in: "dmenu", typing: "first")
        let result = picker.finish()
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try pb("paste").text, "first apple")

        // dmenu prints what was typed when nothing matches: not an entry, so nothing is copied.
        let before = try count()
        let typed = try startPB(["history", "pick"], environment: environment)
        try choose(in: "dmenu", typing: "no such entry")
        let refused = typed.finish()
        XCTAssertEqual(refused.status, 1)
        XCTAssertEqual(refused.stderr, "pb: the menu printed a line that is not one of the entries; the clipboard is unchanged\n")
        XCTAssertEqual(try count(), before)
    }

    func testFzfAsAFilterChoosesTheOneMatch() throws {
        _ = try requireTool("fzf", package: "fzf")
        try fillHistory()
        try pb("history", "pick", "--menu-command", "fzf --filter cherry")
        XCTAssertEqual(try pb("paste").text, "third cherry")
        // An entry copied back is the newest again, once.
        let list = try pb("history", "list").text.split(separator: "\n")
        XCTAssertTrue(list.first?.hasSuffix("third cherry") == true, "\(list)")
    }

    func testAMenuThatPrintsNothingUsefulChangesNothingAndSaysWhy() throws {
        try fillHistory()
        let before = try count()
        let cases: [(String, String)] = [
            ("true", "pb: no entry was chosen; the clipboard is unchanged\n"),
            ("exit 1", "pb: no entry was chosen (/bin/sh exited with status 1); the clipboard is unchanged\n"),
            ("cat", "pb: the menu printed 3 lines; choose one entry; the clipboard is unchanged\n"),
            ("printf 'second banana\\n'", "pb: the menu printed a line that is not one of the entries; the clipboard is unchanged\n"),
            ("yes", "pb: /bin/sh printed more than 65536 bytes; nothing was copied\n"),
        ]
        for (command, message) in cases {
            let result = try run(desktop.pb, ["history", "pick", "--menu-command", command])
            XCTAssertEqual(result.status, 1, command)
            XCTAssertEqual(result.stderr, message, command)
        }
        var bare = desktop.environment
        bare["PATH"] = desktop.home + "/nothing-here"
        let none = try Runner(environment: bare).run(desktop.pb, ["history", "pick"])
        XCTAssertEqual(none.status, 1)
        XCTAssertTrue(none.stderr.contains("no menu program: install rofi or dmenu"), none.stderr)
        XCTAssertEqual(try count(), before, "the clipboard did not change")

        try pb("history", "clear")
        let empty = try run(desktop.pb, ["history", "pick", "--menu-command", "cat"])
        XCTAssertEqual(empty.status, 2)
        XCTAssertEqual(empty.stderr, "pb: the history is empty\n")
    }
}
