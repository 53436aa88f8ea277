// SPDX-License-Identifier: Apache-2.0
import Foundation
import TestSupport
import XCTest

/// Desktop toolkits read what pasteboardd serves: GTK 3, Qt 5 and Tk, each through its own clipboard API.
final class ToolkitTests: DesktopTestCase {
    let text = "naïve € 日本 — toolkit test"

    func toolkit(_ name: String) throws -> [String: Any] {
        let result = try run("/usr/bin/python3", [peer("toolkits.py"), name], timeout: 60)
        XCTAssertEqual(result.status, 0, result.stderr)
        return (try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [String: Any]) ?? [:]
    }

    /// Copies `text` plus `html` with pb, then checks that `toolkit` reads both and lists text/html
    /// among the types it reports under `typesKey`.
    func assertReadsTextAndHTML(_ toolkit: String, html: String, typesKey: String) throws {
        let htmlFile = desktop.home + "/\(toolkit).html", plainFile = desktop.home + "/\(toolkit).txt"
        try html.write(toFile: htmlFile, atomically: true, encoding: .utf8)
        try text.write(toFile: plainFile, atomically: true, encoding: .utf8)
        try pb("copy", "-t", "text/html=\(htmlFile)", "-t", "text=\(plainFile)")
        let reply = try self.toolkit(toolkit)
        XCTAssertEqual(reply["text"] as? String, text)
        XCTAssertEqual(reply["html"] as? String, html)
        XCTAssertTrue((reply[typesKey] as? [String] ?? []).contains("text/html"))
    }

    func testGTKReadsTextAndHTML() throws {
        try assertReadsTextAndHTML("gtk", html: "<p>\(text)</p>", typesKey: "targets")
    }

    func testQtReadsTextAndHTML() throws {
        try assertReadsTextAndHTML("qt", html: "<b>\(text)</b>", typesKey: "formats")
    }

    func testTkReadsText() throws {
        try pb("copy", input: [UInt8](text))
        XCTAssertEqual(try toolkit("tk")["text"] as? String, text)
    }
}
