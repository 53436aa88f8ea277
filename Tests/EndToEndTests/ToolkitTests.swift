import Foundation
import TestSupport
import XCTest

/// Desktop toolkits read what pasteboardd serves: GTK 3, Qt 5 and Tk, each through its own clipboard API.
final class ToolkitTests: DesktopTestCase {
    let text = "naïve € 日本 — toolkit test"

    func toolkit(_ name: String) throws -> [String: Any] {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Peers/toolkits.py").path
        let result = try run("/usr/bin/python3", [script, name], timeout: 60)
        XCTAssertEqual(result.status, 0, result.stderr)
        return (try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [String: Any]) ?? [:]
    }

    func testGTKReadsTextAndHTML() throws {
        let html = desktop.home + "/t.html", plain = desktop.home + "/t.txt"
        try "<p>\(text)</p>".write(toFile: html, atomically: true, encoding: .utf8)
        try text.write(toFile: plain, atomically: true, encoding: .utf8)
        try pb("copy", "-t", "text/html=\(html)", "-t", "text=\(plain)")
        let reply = try toolkit("gtk")
        XCTAssertEqual(reply["text"] as? String, text)
        XCTAssertEqual(reply["html"] as? String, "<p>\(text)</p>")
        XCTAssertTrue((reply["targets"] as? [String] ?? []).contains("text/html"))
    }

    func testQtReadsTextAndHTML() throws {
        let html = desktop.home + "/q.html", plain = desktop.home + "/q.txt"
        try "<b>\(text)</b>".write(toFile: html, atomically: true, encoding: .utf8)
        try text.write(toFile: plain, atomically: true, encoding: .utf8)
        try pb("copy", "-t", "text/html=\(html)", "-t", "text=\(plain)")
        let reply = try toolkit("qt")
        XCTAssertEqual(reply["text"] as? String, text)
        XCTAssertEqual(reply["html"] as? String, "<b>\(text)</b>")
        XCTAssertTrue((reply["formats"] as? [String] ?? []).contains("text/html"))
    }

    func testTkReadsText() throws {
        try pb("copy", input: [UInt8](text))
        XCTAssertEqual(try toolkit("tk")["text"] as? String, text)
    }
}
