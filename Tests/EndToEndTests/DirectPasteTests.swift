// SPDX-License-Identifier: Apache-2.0
import Foundation
import TestSupport
import XCTest

/// `pb paste` of content pasteboardd holds itself comes from the daemon's socket, streamed: the same
/// bytes an X requestor gets, never stale after another application copies, never from a daemon
/// serving another display, and a reader that goes away early does not hang it.
final class DirectPasteTests: DesktopTestCase {
    func testHeldContentPastesByteExactAtAnySize() throws {
        var generator = SeededGenerator.forTest(name)
        // Several socket reads' worth (pb reads 256 KiB at a time) and a size that is not a multiple of it.
        let binary = (0..<(3 << 20) + 12_345).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let file = desktop.home + "/direct.bin"
        try Data(binary).write(to: URL(fileURLWithPath: file))
        try pb("copy", "-t", "application/octet-stream=\(file)")
        let pasted = try pb("paste", "-t", "application/octet-stream").stdout
        XCTAssertEqual(pasted.count, binary.count)
        XCTAssertTrue(pasted == binary, "the streamed paste is byte-exact")
        XCTAssertTrue(try run("xclip", ["-o", "-selection", "clipboard", "-t", "application/octet-stream"]).stdout == binary,
                      "and the same as through X")
    }

    func testTextRichTextAndTrimmingMatchWhatXRequestorsGet() throws {
        try pb("copy", input: [UInt8]("naïve line\r\n"))
        XCTAssertEqual(try pb("paste").stdout, [UInt8]("naïve line\r\n"))
        XCTAssertEqual(try pb("paste", "-n").stdout, [UInt8]("naïve line"), "-n drops one CRLF")
        try pb("copy", input: [UInt8]("naïve € line"))
        let latin1 = try run("xclip", ["-o", "-selection", "clipboard", "-t", "STRING"]).stdout
        XCTAssertEqual(try pb("paste", "-t", "STRING").text, String(latin1.map { Character(Unicode.Scalar($0)) }),
                       "STRING is what X requestors get (Latin-1, ? for the rest), as UTF-8")
        XCTAssertEqual(try pb("paste", "-t", "STRING").text, "naïve ? line")
        XCTAssertEqual(try pb("paste", "-t", "COMPOUND_TEXT").text, "naïve € line")

        try pb("copy", "-t", "rtf", input: [UInt8](#"{\rtf1\ansi {\b bold} plain}"#))
        let viaSocket = try pb("paste", "-t", "html").stdout
        let viaX = try run("xclip", ["-o", "-selection", "clipboard", "-t", "text/html"]).stdout
        XCTAssertEqual(viaSocket, viaX, "derived HTML is the one X requestors get")
        XCTAssertTrue(String(decoding: viaSocket, as: UTF8.self).contains("<b>bold</b>"))
        XCTAssertEqual(try pb("paste").text, "bold plain")

        let missing = try desktop.runner.run(desktop.pb, ["paste", "-t", "image/png"])
        XCTAssertEqual(missing.status, 3, "a type the content lacks: \(missing.stderr)")
    }

    func testAnotherApplicationsCopyIsNeverAnsweredWithStaleContent() throws {
        for round in 0..<5 {
            try pb("copy", input: [UInt8]("held \(round)"))
            // owner.py prints "ready" once it owns CLIPBOARD; pasteboardd may not have seen SelectionClear yet.
            let owner = try startTestOwner(targets: [("UTF8_STRING", [UInt8]("owner \(round)"))])
            defer { owner.exit() }
            XCTAssertEqual(try pb("paste").text, "owner \(round)", "round \(round)")
        }
    }

    func testADaemonServingAnotherDisplayIsNotAsked() throws {
        try pb("copy", input: [UInt8]("on the daemon's display"))
        let other = try Xvfb()
        defer { other.stop() }
        var environment = desktop.environment
        environment["DISPLAY"] = other.display
        let result = try Runner(environment: environment).run(desktop.pb, ["paste"])
        XCTAssertEqual(result.status, 2, "nobody owns CLIPBOARD on \(other.display): \(result.stderr)")
        XCTAssertEqual(result.text, "")
    }

    /// A `DISPLAY` that names no X server (a terminal multiplexer's session kept from an X session since gone) is as
    /// none: pb pastes, lists and counts through the daemon — what it holds, and another application's copy on the
    /// display it serves — where it said it cannot open the display; what the daemon does not hold is empty (status
    /// 2), as with no `DISPLAY`; with no daemon to ask, the display is named.
    func testADisplayThatCannotBeOpenedIsAsNone() throws {
        XCTAssertFalse(FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X4242"), "no X server on :4242")
        try pb("copy", input: [UInt8]("held, pasted through a stale DISPLAY"))
        var environment = desktop.environment
        environment["DISPLAY"] = ":4242"
        let stale = Runner(environment: environment)
        let pasted = try stale.run(desktop.pb, ["paste"])
        XCTAssertEqual(pasted.text, "held, pasted through a stale DISPLAY", pasted.stderr)
        XCTAssertTrue(try stale.run(desktop.pb, ["types"]).text.split(separator: "\n").contains("UTF8_STRING"))
        let before = try count()
        XCTAssertEqual(try stale.run(desktop.pb, ["count"]).text, "\(before)\n")
        let owner = try startTestOwner(targets: [("UTF8_STRING", [UInt8]("another application's"))])
        defer { owner.exit() }
        try waitUntil(5, "the daemon saw the new owner") { try count() > before }
        let theirs = try stale.run(desktop.pb, ["paste"])
        XCTAssertEqual(theirs.text, "another application's", theirs.stderr)
        let nothing = try stale.run(desktop.pb, ["paste", "-P", "never.copied.here"])
        XCTAssertEqual(nothing.status, 2, "the daemon holds nothing of it, and there is no display to read: empty (\(nothing.stderr))")
        var none = desktop.environment
        none["DISPLAY"] = nil
        XCTAssertEqual(try Runner(environment: none).run(desktop.pb, ["paste", "-P", "never.copied.here"]).status, 2, "with no DISPLAY too")
        XCTAssertEqual(try Runner(environment: none).run(desktop.pb, ["types", "-P", "never.copied.here"]).status, 2, "and its types")
        none["XDG_RUNTIME_DIR"] = desktop.home + "/no-daemon-here"
        environment["XDG_RUNTIME_DIR"] = none["XDG_RUNTIME_DIR"]
        let unreachable = try Runner(environment: environment).run(desktop.pb, ["paste"])
        XCTAssertTrue(unreachable.stderr.contains(":4242"), "with no daemon to ask, the display is named: \(unreachable.stderr)")
    }

    func testAReaderThatStopsEarlyEndsThePaste() throws {
        let file = desktop.home + "/big.bin"
        try Data(count: 8 << 20).write(to: URL(fileURLWithPath: file))
        try pb("copy", "-t", "application/octet-stream=\(file)")
        let result = try run("/bin/bash", ["-c", "set -o pipefail; '\(desktop.pb)' paste -t application/octet-stream | head -c 10 | wc -c"],
                             timeout: 20)
        XCTAssertEqual(result.text.trimmingCharacters(in: .whitespacesAndNewlines), "10")
        XCTAssertNotEqual(result.status, 0, "pb reports that standard output closed")
        XCTAssertEqual(try pb("paste", "-t", "application/octet-stream").stdout.count, 8 << 20, "the daemon serves on")
    }
}
