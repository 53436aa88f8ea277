// SPDX-License-Identifier: Apache-2.0
import Foundation
import TestSupport
import XCTest

/// Real applications paste what the X CLIPBOARD holds and copy into it: Chromium, Firefox and LibreOffice
/// Writer, each on the class's private Xvfb with pasteboardd, driven by its driver in Peers/ (the commands
/// and answers are in Peers/appdriver.py; docs/testing.md says what each application does). One
/// application runs per test class, started when a test first needs it and again after a test quit it.
/// Outside CI the tests are skipped when the application is not installed; in CI they run and fail.
class RealApplicationTestCase: DesktopTestCase {
    /// The driver in Peers/.
    class var driver: String { preconditionFailure("a subclass names its driver") }
    /// The program the driver starts, and the Debian package it comes in.
    class var program: (executable: String, package: String) { preconditionFailure("a subclass names its program") }
    /// Whether the application serves the same bytes for a type each time it is asked (it keeps what it
    /// copied), rather than rendering them anew for each request.
    class var servesFixedBytes: Bool { true }

    nonisolated(unsafe) static var applications: [ObjectIdentifier: JSONLinePeer] = [:]

    let plainText = "line one\nline two\n\nline four\n\tindented  two spaces\n"

    override func setUpWithError() throws {
        try super.setUpWithError()
        if Tools.path(of: Self.program.executable) == nil && !Tools.isCI {
            throw XCTSkip(SkipLog.record(name, "\(Self.program.executable) is not installed; `make test` installs \(Self.program.package)"))
        }
    }

    override class func tearDown() {
        applications.removeValue(forKey: ObjectIdentifier(self))?.stop()
        super.tearDown()
    }

    /// The application's driver, started (and the application ready) if it is not running.
    func application() throws -> JSONLinePeer {
        if let running = Self.applications[ObjectIdentifier(Self.self)], running.process.isRunning { return running }
        let driver = try JSONLinePeer("/usr/bin/python3", ["-B", peer(Self.driver)], environment: desktop.environment,
                                      errorsPath: desktop.home + "/\(Self.driver)-\(UUID().uuidString.prefix(6)).err")
        Self.applications[ObjectIdentifier(Self.self)] = driver
        // A first start on a cold disk, with the other worker's application starting too, can be slow.
        let ready = try driver.read(timeout: 180)
        guard ready["ready"] != nil else { throw FixtureError("\(Self.driver) did not start: \(ready)") }
        return driver
    }

    /// Sends `command` to the driver; an {"error": ...} answer is thrown.
    func command(_ command: [String: Any]) throws -> [String: Any] {
        let answer = try application().send(command, timeout: 120)
        if let error = answer["error"] {
            throw FixtureError("\(Self.driver) \(command["do"] ?? ""): \(error)\n\(answer["log"] ?? "")")
        }
        return answer
    }

    /// Empties the application's editor and pastes CLIPBOARD into it with Ctrl+V (or its equivalent).
    func paste(_ options: [String: Any] = [:]) throws -> [String: Any] {
        try command(options.merging(["do": "paste"]) { $1 })
    }

    /// Runs `copy` (pb copy or a test owner) and waits until the changeCount moved: CLIPBOARD has changed.
    func changingClipboard(_ copy: () throws -> Void) throws {
        let before = try count()
        try copy()
        try waitUntil(10, "the clipboard changed") { try count() != before }
    }

    /// What the application pastes when CLIPBOARD holds `plainText`: held by xclip (UTF8_STRING only),
    /// by a test owner offering every text target pasteboardd offers and nothing else, and by pasteboardd
    /// after `pb copy`.
    func pastesOfPlainText(_ options: [String: Any] = [:]) throws
        -> (xclip: [String: Any], textOnlyOwner: [String: Any], pasteboardd: [String: Any]) {
        let bytes = [UInt8](plainText)
        let xclip = try startOwner("xclip", ["-quiet", "-i", "-selection", "clipboard"], input: bytes)
        let fromXclip = try paste(options)
        stop(xclip)
        let textTargets = ["UTF8_STRING", "text/plain;charset=utf-8", "text/plain", "STRING", "COMPOUND_TEXT"]
        var owner: TestOwner?
        try changingClipboard { owner = try startTestOwner(targets: textTargets.map { ($0, bytes) }) }
        let fromTextOnlyOwner = try paste(options)
        owner?.exit()
        try changingClipboard { try pb("copy", input: bytes) }
        let fromPasteboardd = try paste(options)
        return (fromXclip, fromTextOnlyOwner, fromPasteboardd)
    }

    /// Copies `content` to CLIPBOARD as `type` with `pb copy -t TYPE=FILE`.
    func pbCopy(_ type: String, _ content: String) throws {
        let path = desktop.home + "/copy-\(UUID().uuidString.prefix(6))"
        try content.write(toFile: path, atomically: true, encoding: .utf8)
        try changingClipboard { try pb("copy", "-t", "\(type)=\(path)") }
    }

    let richHTML = "<p>Some <b>bold</b> and <i>italic</i> text</p><ul><li>first</li><li>second</li></ul>"
    let richRTF = #"{\rtf1\ansi{\fonttbl{\f0\fswiss Helvetica;}}\f0 Plain {\b bold} and {\i italic}\par}"#

    /// `pb copy -t html` of `richHTML` pastes with bold, italic and the list.
    func assertHTMLPastesRich(file: StaticString = #filePath, line: UInt = #line) throws {
        try pbCopy("html", richHTML)
        assertLooksRich(try paste(), list: true, file: file, line: line)
    }

    /// `pb copy -t rtf` of `richRTF` pastes with bold and italic.
    func assertRTFPastesRich(file: StaticString = #filePath, line: UInt = #line) throws {
        try pbCopy("rtf", richRTF)
        assertLooksRich(try paste(), list: false, file: file, line: line)
    }

    /// Asserts that the pasted `answer` shows "bold" bold, "italic" italic and, with `list`, "first" and
    /// "second" in a list, and plain text plain.
    func assertLooksRich(_ answer: [String: Any], list: Bool, file: StaticString = #filePath, line: UInt = #line) {
        let runs = Run.all(in: answer)
        func run(_ text: String) -> Run? { runs.first { $0.text.contains(text) } }
        XCTAssertEqual(run("bold")?.bold, true, "bold in \(runs)", file: file, line: line)
        XCTAssertEqual(run("bold")?.italic, false, "bold in \(runs)", file: file, line: line)
        XCTAssertEqual(run("italic")?.italic, true, "italic in \(runs)", file: file, line: line)
        XCTAssertEqual(run("italic")?.bold, false, "italic in \(runs)", file: file, line: line)
        XCTAssertEqual(run(" and ")?.bold, false, "plain text in \(runs)", file: file, line: line)
        if list {
            XCTAssertEqual(run("first")?.list, true, "list in \(runs)", file: file, line: line)
            XCTAssertEqual(run("second")?.list, true, "list in \(runs)", file: file, line: line)
        }
    }

    /// Copies rich text in the application, quits it, and checks that pasteboardd still serves its text,
    /// HTML and RTF (derived from the HTML where the application offered none), the same bytes the
    /// application served where it serves fixed bytes. Then a new instance of the application pastes it
    /// with bold, italic and the list.
    func assertCopyOutlivesTheApplication(file: StaticString = #filePath, line: UInt = #line) throws {
        let copied = "<p>Plain <b>bold</b> and <i>italic</i></p><ul><li>first</li><li>second</li></ul>"
        try changingClipboard { _ = try command(["do": "copy", "html": copied]) }
        let whileRunning = try pasteAll()
        // As a user who quits a moment after copying: pasteboardd has read the new content by then.
        try waitForSnapshot(containing: "Plain bold")
        let quit = try command(["do": "quit"])
        XCTAssertEqual(quit["quit"] as? Int, 0, "\(Self.program.executable) exit status", file: file, line: line)
        Self.applications.removeValue(forKey: ObjectIdentifier(Self.self))?.stop()
        try waitUntil(30, "pasteboardd took CLIPBOARD over") { try status()["owned.CLIPBOARD"] == "yes" }

        let afterQuit = try pasteAll()
        XCTAssertEqual(afterQuit.text, whileRunning.text, "text", file: file, line: line)
        XCTAssertTrue(afterQuit.text.contains("Plain bold and italic"), afterQuit.text, file: file, line: line)
        let html = afterQuit.html ?? "", rtf = afterQuit.rtf ?? ""
        for part in ["<b>bold</b>", "<i>italic</i>", "<li>"] {
            XCTAssertTrue(html.contains(part), "\(part) in the HTML: \(html)", file: file, line: line)
        }
        for part in [#"{\rtf1"#, #"\b"#, #"\i"#, "bold", #"\ls1"#] {
            XCTAssertTrue(rtf.contains(part), "\(part) in the RTF: \(rtf)", file: file, line: line)
        }
        if Self.servesFixedBytes {
            XCTAssertEqual(afterQuit.html, whileRunning.html, "HTML", file: file, line: line)
            if whileRunning.rtf != nil { XCTAssertEqual(afterQuit.rtf, whileRunning.rtf, "RTF", file: file, line: line) }
        }
        assertLooksRich(try paste(), list: true, file: file, line: line)
    }

    /// `pb paste` as text, HTML and RTF (nil where the owner offers no such type).
    func pasteAll() throws -> (text: String, html: String?, rtf: String?) {
        func paste(_ arguments: [String]) throws -> String? {
            let result = try run(desktop.pb, ["paste"] + arguments)
            return result.status == 0 ? result.text : nil
        }
        return (try paste([]) ?? "", try paste(["-t", "html"]), try paste(["-t", "rtf"]))
    }

    /// The answer as JSON with sorted keys: two pastes compare equal when they look the same.
    func json(_ answer: [String: Any]) -> String {
        let data = try? JSONSerialization.data(withJSONObject: answer, options: [.sortedKeys, .withoutEscapingSlashes])
        return data.map { String(decoding: $0, as: UTF8.self) } ?? "\(answer)"
    }
}

/// A piece of pasted text and how it looks, from a driver's "runs".
struct Run: Equatable, CustomStringConvertible {
    var text: String
    var bold: Bool
    var italic: Bool
    var list: Bool

    static func all(in answer: [String: Any]) -> [Run] {
        (answer["runs"] as? [[String: Any]] ?? []).map {
            Run(text: $0["text"] as? String ?? "", bold: $0["bold"] as? Bool ?? false,
                italic: $0["italic"] as? Bool ?? false, list: $0["list"] as? Bool ?? false)
        }
    }

    var description: String {
        "\(text.debugDescription)\(bold ? " bold" : "")\(italic ? " italic" : "")\(list ? " list" : "")"
    }
}

/// A browser pastes plain text as plain text whoever holds it, and rich text with its look.
class BrowserTestCase: RealApplicationTestCase {
    /// Plain text pastes the same, in innerHTML and innerText, from xclip, from a text-only owner and from
    /// pasteboardd. (With rich types derived from plain text and offered beside it, pasteboardd's copy
    /// pastes as HTML paragraphs instead: the blank line, the tab and the double space are lost.)
    func assertPlainTextPastesAlikeWhoeverHoldsIt() throws {
        let pastes = try pastesOfPlainText()
        let text = pastes.xclip["text"] as? String ?? ""
        for line in ["line one", "line two", "line four", "indented"] {
            XCTAssertTrue(text.contains(line), "xclip's text pasted: \(json(pastes.xclip))")
        }
        XCTAssertEqual(json(pastes.textOnlyOwner), json(pastes.xclip), "an owner of text targets only pastes as xclip does")
        XCTAssertEqual(json(pastes.pasteboardd), json(pastes.xclip), "pb copy pastes as xclip does")
    }

    /// A JPEG-only copy (`pb copy photo.jpg`) pastes into a web page as a picture: the browser reads the PNG
    /// pasteboardd derives (Chromium reads no other image type), and the page's canvas holds the JPEG's
    /// pixels as PIL decodes them (both are libjpeg-turbo; 2 levels of slack for the canvas).
    func assertAJPEGCopyPastesAsAPictureIntoAPage() throws {
        let photo = desktop.home + "/photo.jpg"
        let made = try run("/usr/bin/python3", [peer("images.py"), "make", "jpeg", photo])
        XCTAssertEqual(made.status, 0, made.stderr)
        try changingClipboard { try pb("copy", photo) }
        let pasted = try command(["do": "paste-image"])
        let image = try XCTUnwrap(pasted["image"] as? [String: Any], "the page got no picture: \(pasted)")
        XCTAssertEqual(image["width"] as? Int, 320)
        XCTAssertEqual(image["height"] as? Int, 200)
        let png = try XCTUnwrap(Data(base64Encoded: image["png"] as? String ?? ""))
        let canvas = desktop.home + "/canvas.png"
        try png.write(to: URL(fileURLWithPath: canvas))
        let verdict = try run("/usr/bin/python3", [peer("images.py"), "compare", photo, canvas])
        let judged = (try? JSONSerialization.jsonObject(with: Data(verdict.stdout)) as? [String: Any]) ?? [:]
        XCTAssertLessThanOrEqual(judged["max"] as? Int ?? 255, 2, "the page's pixels: \(judged) (file type \(image["type"] ?? ""))")
    }
}

final class RealApplicationChromiumTests: BrowserTestCase {
    override class var driver: String { "chromium.py" }
    override class var program: (executable: String, package: String) { ("chromium", "chromium") }

    func testPlainTextPastesAlikeFromXclipAndFromPasteboardd() throws {
        try assertPlainTextPastesAlikeWhoeverHoldsIt()
    }

    func testHTMLPastesBoldItalicAndAList() throws {
        try assertHTMLPastesRich()
    }

    /// Chromium reads no RTF: it pastes the HTML pasteboardd derives from it.
    func testRTFPastesBoldAndItalicThroughDerivedHTML() throws {
        try assertRTFPastesRich()
    }

    func testCopyOutlivesChromium() throws {
        try assertCopyOutlivesTheApplication()
    }

    func testAJPEGCopyPastesAsAPictureIntoAPage() throws {
        try assertAJPEGCopyPastesAsAPictureIntoAPage()
    }
}

final class RealApplicationFirefoxTests: BrowserTestCase {
    override class var driver: String { "firefox.py" }
    override class var program: (executable: String, package: String) { ("firefox-esr", "firefox-esr") }

    func testPlainTextPastesAlikeFromXclipAndFromPasteboardd() throws {
        try assertPlainTextPastesAlikeWhoeverHoldsIt()
    }

    func testHTMLPastesBoldItalicAndAList() throws {
        try assertHTMLPastesRich()
    }

    /// Firefox reads no RTF: it pastes the HTML pasteboardd derives from it.
    func testRTFPastesBoldAndItalicThroughDerivedHTML() throws {
        try assertRTFPastesRich()
    }

    func testCopyOutlivesFirefox() throws {
        try assertCopyOutlivesTheApplication()
    }

    func testAJPEGCopyPastesAsAPictureIntoAPage() throws {
        try assertAJPEGCopyPastesAsAPictureIntoAPage()
    }
}

final class RealApplicationWriterTests: RealApplicationTestCase {
    override class var driver: String { "writer.py" }
    override class var program: (executable: String, package: String) { ("soffice", "libreoffice-writer") }
    /// Writer renders its HTML and RTF for each request: the first rendering, which pasteboardd reads
    /// when the copy happens, lacks metadata (the created and changed dates) that later ones have.
    override class var servesFixedBytes: Bool { false }

    /// The paragraph style at the cursor, which pasted plain text takes.
    let style = "Quotations"

    /// Plain text pastes as the same paragraphs, each in the paragraph style at the cursor, from xclip, from
    /// a text-only owner and from pasteboardd. (With rich types derived from plain text and offered beside
    /// it, Writer pastes the derived RTF instead, asking for text/richtext: its paragraphs take the default
    /// paragraph style, and an empty one follows them.)
    func testPlainTextPastesAlikeFromXclipAndFromPasteboardd() throws {
        let pastes = try pastesOfPlainText(["style": style])
        let paragraphs = pastes.xclip["paragraphs"] as? [[String: Any]] ?? []
        XCTAssertEqual(paragraphs.map { $0["text"] as? String }, plainText.split(separator: "\n", omittingEmptySubsequences: false)
            .dropLast().map(String.init), "xclip's text pasted: \(json(pastes.xclip))")
        for (name, paste) in [("xclip", pastes.xclip), ("text-only owner", pastes.textOnlyOwner), ("pasteboardd", pastes.pasteboardd)] {
            let styles = Set((paste["paragraphs"] as? [[String: Any]] ?? []).map { $0["style"] as? String ?? "" })
            XCTAssertEqual(styles, [style], "\(name): pasted paragraphs keep the style at the cursor: \(json(paste))")
        }
        XCTAssertEqual(json(pastes.textOnlyOwner), json(pastes.xclip), "an owner of text targets only pastes as xclip does")
        XCTAssertEqual(json(pastes.pasteboardd), json(pastes.xclip), "pb copy pastes as xclip does")
    }

    func testHTMLPastesBoldItalicAndAList() throws {
        try assertHTMLPastesRich()
    }

    func testRTFPastesBoldAndItalic() throws {
        try assertRTFPastesRich()
    }

    func testCopyOutlivesWriter() throws {
        try assertCopyOutlivesTheApplication()
    }

    /// A copy from a document saved a few directories deep outlives Writer with every target it offered:
    /// LibreOffice's object descriptor target names the document's path (over 255 bytes, more than the
    /// type-name limit pasteboard once had, which lost the whole copy), and after Writer quits each target
    /// pastes from pasteboardd; the takeover does not move the count.
    func testACopyFromADocumentSavedUnderALongPathOutlivesWriterWithEveryTarget() throws {
        let path = desktop.home + "/Documents/projects/2026/quarterly reports/drafts/a document with a longer name.fodt"
        try changingClipboard { _ = try command(["do": "copy", "html": "<p>Saved <b>bold</b> text</p>", "save": path]) }
        let offered = try run("xclip", ["-o", "-selection", "clipboard", "-t", "TARGETS"]).text
            .split(separator: "\n").map(String.init)
        let descriptor = try XCTUnwrap(offered.first { $0.hasPrefix("application/x-openoffice-objectdescriptor-xml") }, "\(offered)")
        XCTAssertGreaterThan(descriptor.utf8.count, 255, descriptor)
        XCTAssertTrue(descriptor.contains("drafts"), "it names the document: \(descriptor)")
        let contentTargets = offered.filter { !["TARGETS", "TIMESTAMP", "MULTIPLE", "SAVE_TARGETS"].contains($0) }
        try waitForSnapshot(containing: "Saved bold text")
        let countBeforeQuit = try count()
        let quit = try command(["do": "quit"])
        XCTAssertEqual(quit["quit"] as? Int, 0, "soffice exit status")
        Self.applications.removeValue(forKey: ObjectIdentifier(Self.self))?.stop()
        try waitUntil(30, "pasteboardd took CLIPBOARD over") { try status()["owned.CLIPBOARD"] == "yes" }
        XCTAssertEqual(try count(), countBeforeQuit, "the takeover is not a change")

        let served = try pb("types").text.split(separator: "\n").map(String.init)
        for target in contentTargets {
            XCTAssertTrue(served.contains(target), "\(target) is offered after Writer quit: \(served)")
            let pasted = try run("xclip", ["-o", "-selection", "clipboard", "-t", target])
            XCTAssertEqual(pasted.status, 0, "\(target): \(pasted.stderr)")
            XCTAssertFalse(pasted.stdout.isEmpty, "\(target) pastes from pasteboardd")
        }
        XCTAssertTrue(try pb("paste").text.contains("Saved bold text"))
        XCTAssertTrue(try pb("paste", "-t", "html").text.contains("<b>bold</b>"))
        assertLooksBold(try paste())
    }

    /// The pasted `answer` shows "bold" bold.
    func assertLooksBold(_ answer: [String: Any], file: StaticString = #filePath, line: UInt = #line) {
        let runs = Run.all(in: answer)
        XCTAssertEqual(runs.first { $0.text.contains("bold") }?.bold, true, "bold in \(runs)", file: file, line: line)
    }
}
