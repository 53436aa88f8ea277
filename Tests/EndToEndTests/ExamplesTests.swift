// SPDX-License-Identifier: Apache-2.0
import Foundation
import TestSupport
import XCTest

/// The example programs of docs/library.md (docs/examples), a package of their own that depends on this one by
/// path, built as a user's program is (`Examples.program` runs `swift build --package-path docs/examples`) and
/// run against pasteboardd with xclip and GTK as the other applications: what the documentation shows works.
final class ExamplesTests: DesktopTestCase {
    /// Starts example `name` on the desktop with `input` on its standard input; its output is read once it exits.
    private func startExample(_ name: String, _ arguments: [String] = [], input: String? = nil) throws -> (Process, Pipe) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try Examples.program(name))
        process.arguments = arguments
        process.environment = desktop.environment
        let output = Pipe(), stdin = Pipe()
        process.standardOutput = output
        process.standardInput = stdin
        try process.run()
        addTeardownBlock { if process.isRunning { kill(process.processIdentifier, SIGTERM); process.waitUntilExit() } }
        if let input { stdin.fileHandleForWriting.write(Data(input.utf8)) }
        try stdin.fileHandleForWriting.close()
        return (process, output)
    }

    /// Waits (at most `seconds`) for `process` to exit, then returns its output and asserts it exited 0.
    private func finished(_ process: Process, _ output: Pipe, within seconds: Double = 30,
                          file: StaticString = #filePath, line: UInt = #line) throws -> String {
        try waitUntil(seconds, "the example exits") { !process.isRunning }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(process.terminationStatus, 0, text, file: file, line: line)
        return text
    }

    /// A password manager's copy (docs/examples/CopyPassword): xclip and GTK paste the password and the program
    /// names each of them as they read; it is in no history, on no disk and not pasteable over the remote
    /// socket; pasteboardd clears it at the time (one change), and the program exits saying so.
    func testCopyPasswordIsReadByXclipAndGTKNamedAsTheyReadAndClearedAtExpiry() throws {
        let before = try count()
        let (process, output) = try startExample("CopyPassword", ["3"], input: "correct horse battery\n")
        try waitUntil(20, "the password is copied") { try count() == before + 1 }
        XCTAssertEqual(try run("xclip", ["-o", "-selection", "clipboard"]).text, "correct horse battery")
        let gtk = try run("/usr/bin/python3", [peer("toolkits.py"), "gtk"], timeout: 60)
        let reply = (try JSONSerialization.jsonObject(with: Data(gtk.stdout)) as? [String: Any]) ?? [:]
        XCTAssertEqual(reply["text"] as? String, "correct horse battery", gtk.stderr)
        XCTAssertFalse(try pb("history", "list").text.contains("horse"), "sensitive: never in history")
        var forwarded = desktop.environment
        forwarded["PASTEBOARD_SOCKET"] = desktop.home + "/runtime/pasteboard/remote.sock"
        let remote = try Runner(environment: forwarded).run(desktop.pb, ["paste"])
        XCTAssertNotEqual(remote.status, 0, "local-only: not pasteable through the remote socket")
        XCTAssertFalse(remote.text.contains("horse"))
        let text = try finished(process, output)
        XCTAssertTrue(text.contains("copied: changeCount \(before + 1)"), text)
        XCTAssertTrue(text.contains("read as UTF8_STRING by xclip (pid "), "xclip named as it read: \(text)")
        XCTAssertTrue(text.contains(" by toolkits.py (pid "), "GTK named as it read: \(text)")
        XCTAssertTrue(text.contains("cleared at expiry: changeCount \(before + 2)"), text)
        XCTAssertEqual(try count(), before + 2, "the expiry is one change")
        XCTAssertNotEqual(try desktop.runner.run(desktop.pb, ["paste"]).status, 0, "nothing left to paste")
        let state = desktop.home + "/state"
        for path in try FileManager.default.subpathsOfDirectory(atPath: state) {
            let bytes = (try? Data(contentsOf: URL(fileURLWithPath: state + "/" + path))) ?? Data()
            XCTAssertNil(bytes.range(of: Data("correct horse".utf8)), "the password is in \(path)")
        }
    }

    /// The same program when something else is copied before the time: the newer copy is left alone.
    func testCopyPasswordLeavesANewerCopyAlone() throws {
        let before = try count()
        let (process, output) = try startExample("CopyPassword", ["2"], input: "hunter2\n")
        try waitUntil(20, "the password is copied") { try count() == before + 1 }
        try pb("copy", input: Array("a newer copy".utf8))
        let text = try finished(process, output)
        XCTAssertTrue(text.contains("replaced before expiry by pb (pid "), text)
        Thread.sleep(forTimeInterval: 2.5)  // past the password's time: the newer copy must still be there
        XCTAssertEqual(try pb("paste").text, "a newer copy")
        XCTAssertEqual(try count(), before + 2)
    }

    /// The typed accessors (docs/examples/TypedAccessors) on a unique named pasteboard, then on what GTK copies
    /// (a URL: its text, its patterns, who copied) and on what xclip copies (a JPEG, read as PNG).
    func testTypedAccessorsOnANamedPasteboardThenOnGTKsURLAndXclipsJPEG() throws {
        let (first, firstOutput) = try startExample("TypedAccessors")
        try waitUntil(20, "the example waits for a copy") { try status()["watchers"] == "1" }
        let gtk = try startReading("/usr/bin/python3", [peer("toolkits.py"), "gtk-own", "CLIPBOARD", "https://example.org/from-gtk"])
        defer { stop(gtk.0) }
        let url = try finished(first, firstOutput)
        XCTAssertTrue(url.contains(#"strings on _PASTEBOARD_UNIQUE_"#) && url.contains(#": ["first", "second"]"#), url)
        XCTAssertTrue(url.contains("url: https://example.org/pasteboard, hasURLs: true, hasImages: false"), url)
        XCTAssertTrue(url.contains("richest of HTML, RTF and text: text/html"), "plain text converts to HTML when asked by name: \(url)")
        XCTAssertTrue(url.contains("removed _PASTEBOARD_UNIQUE_"), url)
        XCTAssertFalse(try pb("pasteboards").text.contains("_PASTEBOARD_UNIQUE_"), "the unique pasteboard is gone")
        XCTAssertTrue(url.contains(#"copied by toolkits.py (pid "#) && url.contains(#"patterns: ["url"]"#), url)
        XCTAssertTrue(url.contains("hasStrings: true, hasURLs: false, hasImages: false"), "a URL as text lists no URI list: \(url)")
        XCTAssertTrue(url.contains("url: https://example.org/from-gtk"), url)
        XCTAssertFalse(url.contains("picture:"), url)

        let jpeg = desktop.home + "/photo.jpg"
        let made = try run("/usr/bin/python3", ["-c", "import sys; from PIL import Image; Image.new('RGB', (40, 30), (200, 30, 10)).save(sys.argv[1], 'JPEG')", jpeg])
        XCTAssertEqual(made.status, 0, made.stderr)
        let (second, secondOutput) = try startExample("TypedAccessors")
        try waitUntil(20, "the example waits for a copy") { try status()["watchers"] == "1" }
        let xclip = try desktop.runner.start("xclip", ["-quiet", "-selection", "clipboard", "-t", "image/jpeg", "-i", jpeg], stdin: [])
        defer { if xclip.isRunning { kill(xclip.processIdentifier, SIGTERM); xclip.waitUntilExit() } }
        let picture = try finished(second, secondOutput)
        XCTAssertTrue(picture.contains("copied by xclip"), picture)
        XCTAssertTrue(picture.contains("hasStrings: false, hasURLs: false, hasImages: true"), picture)
        XCTAssertTrue(picture.contains(" bytes of PNG"), "the JPEG read as PNG: \(picture)")
    }

    /// The lazy-provider example (docs/examples/ProvideLazily) announces plain text and HTML; xclip and GTK
    /// read them, each type made once in that process when first asked for; a new copy ends it. Then the same
    /// program killed (SIGKILL) after one type was provided: that type stays pasteable, the count does not move.
    func testALazyProviderInAnotherProcessAnswersXclipAndGTK() throws {
        let (process, output) = try startProvider()
        let before = try count()
        let made = "made by process \(process.processIdentifier)"
        XCTAssertEqual(try run("xclip", ["-o", "-selection", "clipboard", "-t", "text/html"]).text, "<p>made by <b>process \(process.processIdentifier)</b></p>")
        let gtk = try run("/usr/bin/python3", [peer("toolkits.py"), "gtk"], timeout: 60)
        let reply = (try JSONSerialization.jsonObject(with: Data(gtk.stdout)) as? [String: Any]) ?? [:]
        XCTAssertEqual(reply["text"] as? String, made, gtk.stderr)
        XCTAssertEqual(reply["html"] as? String, "<p>made by <b>process \(process.processIdentifier)</b></p>")
        XCTAssertEqual(try pb("paste").text, made, "pb paste too")
        XCTAssertEqual(try count(), before, "reading is not a change")
        try pb("copy", input: Array("next".utf8))
        process.waitUntilExit()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(process.terminationStatus, 0, text)
        XCTAssertEqual(text.components(separatedBy: "asked for text/html").count - 1, 1, "HTML made once: \(text)")
        XCTAssertEqual(text.components(separatedBy: "asked for text/plain;charset=utf-8").count - 1, 1, "text made once: \(text)")
        XCTAssertTrue(text.contains("changed to \(before + 1): data"), text)

        let (killed, _) = try startProvider()
        let html = try run("xclip", ["-o", "-selection", "clipboard", "-t", "text/html"]).text
        let countThen = try count()
        kill(killed.processIdentifier, SIGKILL)
        killed.waitUntilExit()
        try waitUntil(10, "the daemon holds what was provided, the provider gone") {
            // What was provided, in memory (with the marker naming who copied it, which the daemon adds standing in).
            (Int(try status()["memory-bytes.CLIPBOARD"] ?? "") ?? 0) >= html.utf8.count
        }
        XCTAssertEqual(try run("xclip", ["-o", "-selection", "clipboard", "-t", "text/html"]).text, html, "what was provided stays")
        XCTAssertEqual(try pb("paste").text.trimmingCharacters(in: .whitespacesAndNewlines), "made by process \(killed.processIdentifier)",
                       "plain text is now made from the HTML")
        XCTAssertEqual(try count(), countThen, "withdrawing what was never provided is not a change")
    }

    private func startProvider() throws -> (Process, Pipe) {
        let before = try count()
        let (process, output) = try startExample("ProvideLazily")
        try waitUntil(20, "the provider's copy is served") { try count() == before + 1 && status()["watchers"] == "1" }
        return (process, output)
    }

    /// docs/library.md's first example: one write of three representations, read back; the next copy's source and patterns.
    func testCopyRichWritesOneChangeAndSaysWhoCopiedNext() throws {
        let before = try count()
        let (process, output) = try startExample("CopyRich")
        defer { stop(process) }
        // The example writes, reads back, then waits for the next change (its output is buffered
        // until it exits, since standard output is a pipe).
        try waitUntil(20, "the example waits for a change") { try status()["watchers"] == "1" }
        XCTAssertEqual(try count(), before + 1, "one write with three representations is one change")
        XCTAssertEqual(try pb("paste").text, "Hello, pasteboard")
        XCTAssertEqual(try pb("paste", "-t", "rtf").text, #"{\rtf1\ansi Hello, {\b pasteboard}\par}"#)
        try pb("copy", input: Array("https://example.org/next".utf8))
        process.waitUntilExit()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(process.terminationStatus, 0, text)
        XCTAssertTrue(text.contains("changeCount is now \(before + 1)"), text)
        XCTAssertTrue(text.contains("<p>Hello, <b>pasteboard</b></p>"), text)
        XCTAssertTrue(text.contains(#"copied by pb, patterns: ["url"]"#), "the change says who copied and what the text is: \(text)")
        XCTAssertTrue(text.contains("com.apple.flat-rtfd"), text)
        XCTAssertTrue(text.contains("changed to \(before + 2): data"), text)
    }
}
