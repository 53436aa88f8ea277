// SPDX-License-Identifier: Apache-2.0
import Foundation
import TestSupport
import XCTest

/// The conversion table end to end: pb converts from whatever an owner offers and checks what it is
/// given; the daemon lists what never makes a paste worse, makes the rest on request, and converts on its
/// worker thread while it serves everything else.
final class ConversionTests: DesktopTestCase {
    let rtf = #"{\rtf1\ansi plain {\b bold} {\i italic}\par}"#

    func testPbPasteConvertsFromWhatAnotherOwnerOffers() throws {
        // xclip offers text/rtf only; pb reads it and makes HTML and text of it.
        let owner = try startOwner("xclip", ["-quiet", "-i", "-selection", "clipboard", "-t", "text/rtf"], input: [UInt8](rtf))
        defer { stop(owner) }
        let html = try pb("paste", "-t", "html").text
        XCTAssertTrue(html.contains("<b>bold</b>") && html.contains("<i>italic</i>"), html)
        XCTAssertFalse(html.contains("\\rtf1"), "not the RTF passed off as HTML")
        XCTAssertEqual(try pb("paste").text.trimmingCharacters(in: .newlines), "plain bold italic")
        XCTAssertTrue(try pb("paste", "-t", "rtfd").stdout.starts(with: Array("rtfd".utf8)))
        let png = try desktop.runner.run(desktop.pb, ["paste", "-t", "image/png"])
        XCTAssertEqual(png.status, 3, "nothing converts to PNG: \(png.stderr)")
        XCTAssertTrue(png.stderr.contains("image/png"), png.stderr)
    }

    func testAnOwnerPassingOneFormatOffAsAnotherIsReportedNotBelieved() throws {
        // Lists text/html but answers it with its RTF, typed text/rtf.
        let owner = try startTestOwner(mode: "liar", targets: [("text/rtf", [UInt8](rtf)), ("text/html", [UInt8]("<b>x</b>"))])
        defer { owner.exit() }
        let result = try desktop.runner.run(desktop.pb, ["paste", "-t", "html"])
        XCTAssertEqual(result.status, 3, "stdout: \(result.text)")
        XCTAssertTrue(result.stderr.contains("answered text/html with text/rtf"), result.stderr)
        XCTAssertTrue(result.stdout.isEmpty, "nothing written")
    }

    func testPlainTextListsNoRichTypeButMakesOneWhenAskedByName() throws {
        try pb("copy", input: [UInt8]("line one\n\n\tline three"))
        let targets = try pb("types").text.split(separator: "\n").map(String.init)
        XCTAssertFalse(targets.contains("text/html") || targets.contains("text/rtf"), "\(targets)")
        XCTAssertTrue(targets.contains("com.apple.flat-rtfd"))
        let html = try run("xclip", ["-o", "-selection", "clipboard", "-t", "text/html"])
        XCTAssertEqual(html.status, 0, html.stderr)
        XCTAssertTrue(html.text.contains("line one"), "an X requestor asking by name gets HTML: \(html.text)")
        XCTAssertEqual(try pb("paste", "-t", "html").stdout, html.stdout, "pb gets the same from the daemon's socket")
        let rtf = try pb("paste", "-t", "rtf").text
        XCTAssertTrue(rtf.hasPrefix("{\\rtf1") && rtf.contains("line three"), rtf)
    }

    /// A document whose conversion to HTML takes seconds in the debug build the tests run.
    func largeRTF() -> [UInt8] {
        var text = #"{\rtf1\ansi\deff0{\fonttbl{\f0 Helvetica;}}"#
        for index in 0..<120_000 { text += #"{\b bold \#(index)} plain text with some words and {\i italic} parts\par"# + "\n" }
        return [UInt8](text + "}")
    }

    func testWhileALargeDocumentConvertsOtherPastesAreAnswered() throws {
        let document = largeRTF()
        let file = desktop.home + "/large.rtf"
        try Data(document).write(to: URL(fileURLWithPath: file))
        try pb("copy", "-t", "text/rtf=\(file)")
        try pb("copy", "--primary", input: [UInt8]("primary text"))

        // The HTML is not converted yet: an X requestor asks for it and waits.
        let received = desktop.home + "/received.html"
        let slow = try desktop.runner.start("/bin/sh", ["-c", "exec xclip -o -selection clipboard -t text/html > \"$0\"", received])
        defer { stop(slow) }
        try waitUntil(30, "the daemon reports the conversion under way") { try status()["conversions"] == "1" }

        // A requestor already connected measures from its request to the answer (no process start-up in it).
        let measured = try run("/usr/bin/python3", [peer("requestor.py"), "timed", "PRIMARY:UTF8_STRING", "CLIPBOARD:text/rtf", "CLIPBOARD:TARGETS"])
        XCTAssertEqual(measured.status, 0, measured.stderr)
        let answers = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(measured.stdout)) as? [[String: Any]])
        let stillConverting = try status()["conversions"]
        XCTAssertEqual(answers.count, 3)
        XCTAssertTrue(answers.allSatisfy { ($0["ms"] as? Double ?? .infinity) < 1000 },
                      "answered long before the conversion (seconds) ends: \(answers)")
        for answer in answers {
            let ms = try XCTUnwrap(answer["ms"] as? Double)
            print("while converting \(document.count) bytes of RTF to HTML: \(answer["spec"] ?? "") answered in \(String(format: "%.1f", ms)) ms (\(answer["size"] ?? 0) bytes)")
            XCTAssertEqual(answer["answered"] as? Bool, true, "\(answer)")
        }
        XCTAssertEqual(answers[0]["size"] as? Int, "primary text".utf8.count)
        XCTAssertEqual(answers[1]["type"] as? String, "INCR", "the original RTF, by INCR")
        XCTAssertEqual(answers[2]["type"] as? String, "ATOM")
        XCTAssertEqual(stillConverting, "1", "all were answered while the conversion still ran")
        XCTAssertTrue(slow.isRunning, "the HTML requestor still waits")

        slow.waitUntilExit()
        XCTAssertEqual(slow.terminationStatus, 0)
        let viaX = try Data(contentsOf: URL(fileURLWithPath: received))
        XCTAssertTrue(String(decoding: viaX, as: UTF8.self).contains("<b>bold 119999</b>"), "the whole document")
        XCTAssertEqual(try status()["conversions"], "0")
        XCTAssertTrue(try pb("paste", "-t", "html").stdout == Array(viaX), "served again from the cache")
    }
}
