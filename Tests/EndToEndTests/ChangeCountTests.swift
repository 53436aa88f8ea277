// SPDX-License-Identifier: Apache-2.0
import Foundation
import TestSupport
import XCTest

/// The changeCount moves by exactly one per change, whoever makes it, and is readable by any X client
/// as a root-window property.
final class ChangeCountTests: DesktopTestCase {
    func testPbCopyBumpsTheCountByExactlyOne() throws {
        let start = try count()
        for i in 1...5 {
            try pb("copy", input: [UInt8]("copy \(i)"))
            XCTAssertEqual(try count(), start + UInt64(i))
        }
    }

    func testAnotherOwnerBumpsTheCountByExactlyOne() throws {
        let start = try count()
        let owner = try startOwner("xclip", ["-quiet", "-i", "-selection", "clipboard"], input: [UInt8]("xclip owns"))
        defer { stop(owner) }
        XCTAssertEqual(try count(), start + 1, "xclip -i is one change")
        // Reading does not change anything.
        _ = try pb("paste")
        XCTAssertEqual(try count(), start + 1)
        // Taking it back from xclip is one more change (not two: the daemon's own echo is not counted).
        try pb("copy", input: [UInt8]("back"))
        XCTAssertEqual(try count(), start + 2)
        owner.waitUntilExit()  // xclip exits once it lost the selection
    }

    func testClearIsOneChangeAndEmptiesTheSelection() throws {
        try pb("copy", input: [UInt8]("to be cleared"))
        let before = try count()
        try pb("clear")
        XCTAssertEqual(try count(), before + 1)
        XCTAssertEqual(try run(desktop.pb, ["paste"]).status, 2)
    }

    func testPrimaryAndClipboardCountIndependently() throws {
        let clipboard = try count(), primary = try count("-p")
        try pb("copy", "-p", input: [UInt8]("primary"))
        XCTAssertEqual(try count("-p"), primary + 1)
        XCTAssertEqual(try count(), clipboard)
    }

    func testTheCountIsARootWindowPropertyAnyClientCanRead() throws {
        try pb("copy", input: [UInt8]("visible"))
        let expected = try count()
        let xprop = try run("xprop", ["-root", "_PASTEBOARD_CHANGE_COUNT_CLIPBOARD"])
        XCTAssertEqual(xprop.text.trimmingCharacters(in: .whitespacesAndNewlines),
                       "_PASTEBOARD_CHANGE_COUNT_CLIPBOARD(CARDINAL) = \(expected)")
    }

    /// Where the display shows no count: a named pasteboard nothing wrote yet counts 0 (the daemon is asked; it said
    /// "is pasteboardd running on this display?" while it ran); a display the daemon does not serve says which it
    /// serves and how to add it; with no daemon, that it is not running.
    func testACountNotPublishedIsTheDaemonsOrSaysWhyThereIsNone() throws {
        XCTAssertEqual(try pb("count", "-P", "never.written.here").text, "0\n")
        let other = try Xvfb()
        defer { other.stop() }
        var elsewhere = desktop.environment
        elsewhere["DISPLAY"] = other.display
        let unserved = try Runner(environment: elsewhere).run(desktop.pb, ["count"])
        XCTAssertNotEqual(unserved.status, 0)
        XCTAssertTrue(unserved.stderr.contains("pasteboardd serves \(desktop.xvfb.display)")
                      && unserved.stderr.contains("pb displays add \(other.display)"), unserved.stderr)
        elsewhere["DISPLAY"] = desktop.xvfb.display
        elsewhere["XDG_RUNTIME_DIR"] = desktop.home + "/no-daemon-here"
        let none = try Runner(environment: elsewhere).run(desktop.pb, ["count", "-P", "never.written.here"])
        XCTAssertTrue(none.stderr.contains("pasteboardd is not running"), none.stderr)
    }
}
