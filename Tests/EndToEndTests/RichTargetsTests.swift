// SPDX-License-Identifier: Apache-2.0
import Foundation
import TestSupport
import XCTest

/// Rich text copied in one format is served in every rich and plain format, derived on demand from the
/// richest representation; the source's own bytes are returned for the types it gave.
final class RichTargetsTests: DesktopTestCase {
    let rtf = #"{\rtf1\ansi\ansicpg1252{\fonttbl{\f0\fswiss Helvetica;}}\f0 Hello {\b bold} caf\'e9\par}"#

    func file(_ name: String, _ content: String) throws -> String {
        let path = desktop.home + "/" + name
        try content.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func testRTFCopyIsServedAsTextHTMLAndFlatRTFD() throws {
        try pb("copy", "-t", "rtf=\(try file("a.rtf", rtf))")
        let types = try pb("types").text.split(separator: "\n").map(String.init)
        for expected in ["text/rtf", "application/rtf", "text/richtext", "text/html", "com.apple.flat-rtfd", "UTF8_STRING", "STRING"] {
            XCTAssertTrue(types.contains(expected), "\(expected) in \(types)")
        }
        XCTAssertEqual(try run("xclip", ["-o", "-selection", "clipboard", "-t", "text/rtf"]).text, rtf, "original bytes")
        XCTAssertEqual(try run("xclip", ["-o", "-selection", "clipboard", "-t", "application/rtf"]).text, rtf, "same RTF under each name")
        XCTAssertEqual(try run("xclip", ["-o", "-selection", "clipboard"]).text, "Hello bold café\n")
        let html = try run("xclip", ["-o", "-selection", "clipboard", "-t", "text/html"]).text
        XCTAssertTrue(html.contains("<b>bold</b>"), html)
        let flat = try run("xclip", ["-o", "-selection", "clipboard", "-t", "com.apple.flat-rtfd"]).stdout
        XCTAssertEqual(Array(flat.prefix(4)), Array("rtfd".utf8))
        let back = try desktop.runner.run(desktop.pb, ["convert", "--from", "rtfd", "--to", "txt"], input: flat)
        XCTAssertEqual(back.text, "Hello bold café\n")
    }

    func testTextDerivedFromAnRTFDOnlyCopyReachesGTKAndQt() throws {
        let flat = try desktop.runner.run(desktop.pb, ["convert", "--from", "rtf", "--to", "rtfd"], input: Array(rtf.utf8)).stdout
        let path = desktop.home + "/only.rtfd"
        try Data(flat).write(to: URL(fileURLWithPath: path))
        try pb("copy", "-t", "com.apple.flat-rtfd=\(path)")
        let script = peer("toolkits.py")
        for toolkit in ["gtk", "qt"] {
            let result = try run("/usr/bin/python3", [script, toolkit], timeout: 60)
            let reply = try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [String: Any]
            XCTAssertEqual(reply?["text"] as? String, "Hello bold café\n", "\(toolkit): \(result.stderr)")
        }
    }

    func testHTMLCopyGainsRTF() throws {
        try pb("copy", "-t", "html=\(try file("a.html", "<p>Some <i>italic</i> &amp; more</p>"))")
        let derived = try run("xclip", ["-o", "-selection", "clipboard", "-t", "text/rtf"]).text
        XCTAssertTrue(derived.hasPrefix("{\\rtf1"), derived)
        XCTAssertTrue(derived.contains("italic"), derived)
        XCTAssertEqual(try pb("paste").text.trimmingCharacters(in: .newlines), "Some italic & more")
    }

    func testAConversionThatFailsIsRefusedNotGarbage() throws {
        let hostile = desktop.home + "/bad.rtfd"
        try Data(Array("rtfd".utf8) + [0, 0, 0, 0, 3, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0x7F]).write(to: URL(fileURLWithPath: hostile))
        try pb("copy", "-t", "com.apple.flat-rtfd=\(hostile)")
        let refused = try run(desktop.pb, ["paste", "-t", "text/html"])
        XCTAssertEqual(refused.status, 5, "a failed conversion is refused, with its own status")
        XCTAssertTrue(refused.stderr.contains("could not be converted to text/html") && refused.stderr.contains("RTFD"),
                      "and pb says why: \(refused.stderr)")
        XCTAssertEqual(try run(desktop.pb, ["paste", "-t", "com.apple.flat-rtfd"]).stdout.count, 16, "the original is still served")
        XCTAssertTrue(desktop.daemon?.isRunning == true)
    }
}
