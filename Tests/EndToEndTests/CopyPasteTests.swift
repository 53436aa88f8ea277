// SPDX-License-Identifier: Apache-2.0
import Foundation
import TestSupport
import XCTest

/// `pb copy` makes pasteboardd own CLIPBOARD; real peers (xclip, xsel, a python-xlib requestor) read
/// exactly what was copied, and `pb paste` reads whatever owner there is.
final class CopyPasteTests: DesktopTestCase {
    let unicode = "naïve € 日本"

    func testXclipAndXselReadWhatPbCopiedByteExact() throws {
        for text in ["plain ASCII text", unicode, "line one\nline two\n", ""] {
            try pb("copy", input: [UInt8](text))
            XCTAssertEqual(try run("xclip", ["-o", "-selection", "clipboard"]).stdout, [UInt8](text), "xclip, \(text)")
            XCTAssertEqual(try run("xsel", ["-b", "-o"]).stdout, [UInt8](text), "xsel, \(text)")
            XCTAssertEqual(try pb("paste").stdout, [UInt8](text), "pb paste, \(text)")
        }
    }

    func testBinaryTypeWithNULBytesIsServedExactly() throws {
        let bytes: [UInt8] = [0, 1, 2, 0, 255, 0x89, 0x50, 0x4E, 0x47, 0, 0, 10, 13, 0]
        let file = desktop.home + "/binary.bin"
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        try pb("copy", "-t", "application/x-test-binary=\(file)")
        XCTAssertEqual(try run("xclip", ["-o", "-selection", "clipboard", "-t", "application/x-test-binary"]).stdout, bytes)
        XCTAssertEqual(try pb("paste", "-t", "application/x-test-binary").stdout, bytes)
    }

    func testSeveralTypesInOneCopy() throws {
        let html = desktop.home + "/a.html", text = desktop.home + "/a.txt"
        try "<b>bold</b>".write(toFile: html, atomically: true, encoding: .utf8)
        try "bold".write(toFile: text, atomically: true, encoding: .utf8)
        let before = try count()
        try pb("copy", "-t", "text/html=\(html)", "-t", "text/plain;charset=utf-8=\(text)")
        XCTAssertEqual(try count(), before + 1, "one copy with two representations is one change")
        XCTAssertEqual(try run("xclip", ["-o", "-selection", "clipboard", "-t", "text/html"]).text, "<b>bold</b>")
        XCTAssertEqual(try pb("paste", "-t", "html").text, "<b>bold</b>")
        XCTAssertEqual(try pb("paste").text, "bold")
        let types = try pb("types").text.split(separator: "\n").map(String.init)
        XCTAssertEqual(Array(types.prefix(4)), ["TARGETS", "TIMESTAMP", "MULTIPLE", "text/html"])
        XCTAssertTrue(types.contains("UTF8_STRING") && types.contains("STRING"))
    }

    /// A file that cannot be read costs its type only: the other types are copied, the one left out named on
    /// standard error, status 1; a type name as long as LibreOffice's descriptor is copied and served whole.
    /// (A type given twice is a usage error: nothing is copied.)
    func testAFileThatCannotBeReadCostsItsTypeOnlyAndLongTypeNamesAreKept() throws {
        let html = desktop.home + "/first.html", text = desktop.home + "/t.txt", missing = desktop.home + "/missing.rtf"
        try "<b>first</b>".write(toFile: html, atomically: true, encoding: .utf8)
        try "words".write(toFile: text, atomically: true, encoding: .utf8)
        let long = #"application/x-openoffice-objectdescriptor-xml;displayname="file:///"# + String(repeating: "dir/", count: 100) + #"a.fodt""#
        let before = try count()
        let copied = try run(desktop.pb, ["copy", "-t", "html=\(html)", "-t", "rtf=\(missing)", "-t", "text=\(text)", "-t", "\(long)=\(text)"])
        XCTAssertEqual(copied.status, 1, copied.stderr)
        XCTAssertTrue(copied.stderr.hasPrefix("pb: not copied: text/rtf: cannot read \(missing): "), copied.stderr)
        XCTAssertEqual(copied.stderr.split(separator: "\n").count, 1, copied.stderr)
        XCTAssertEqual(try count(), before + 1, "one change")
        XCTAssertEqual(try pb("paste", "-t", "html").text, "<b>first</b>")
        XCTAssertEqual(try pb("paste").text, "words")
        XCTAssertTrue(try pb("types").text.split(separator: "\n").contains { $0 == long })
        XCTAssertEqual(try run("xclip", ["-o", "-selection", "clipboard", "-t", long]).text, "words")

        let twice = try run(desktop.pb, ["copy", "-t", "html=\(html)", "-t", "text/html=\(text)"])
        XCTAssertEqual(twice.status, 64, "a usage error: \(twice.stderr)")
        XCTAssertEqual(try count(), before + 1, "nothing copied")
        let none = try run(desktop.pb, ["copy", "-t", "rtf=\(missing)"])
        XCTAssertEqual(none.status, 1)
        XCTAssertTrue(none.stderr.contains("nothing to copy"), none.stderr)
        XCTAssertEqual(try count(), before + 1, "nothing copied")
    }

    func testTargetsListsProtocolAndTextTargetsAndRTFDButNoRichTypeThatWouldWinOverTheText() throws {
        try pb("copy", input: [UInt8](unicode))
        let reply = try requestor("targets")
        XCTAssertEqual(reply["type"] as? String, "ATOM")
        XCTAssertEqual(reply["format"] as? Int, 32)
        let targets = reply["targets"] as? [String] ?? []
        // Browsers and LibreOffice prefer HTML and RTF to text: listed for plain text, they would paste
        // paragraphs where the user copied lines (docs/formats.md). Asked for by name, they are made.
        XCTAssertEqual(targets, ["TARGETS", "TIMESTAMP", "MULTIPLE", "UTF8_STRING", "text/plain;charset=utf-8",
                                 "text/plain", "STRING", "TEXT", "COMPOUND_TEXT", "com.apple.flat-rtfd"])
        XCTAssertEqual(Set(targets).count, targets.count)
    }

    func testTimestampIsTheAcquisitionTimeAndOlderRequestsAreServed() throws {
        try pb("copy", input: [UInt8]("stamp"))
        let reply = try requestor("timestamp")
        XCTAssertEqual(reply["type"] as? String, "INTEGER")
        let value = try XCTUnwrap((reply["value"] as? [Int])?.first, "TIMESTAMP's value")
        XCTAssertGreaterThan(value, 1)
        let old = try requestor("old-time")
        XCTAssertEqual(old["notify_property"] as? String, "REQ_PROP", "a request timed before the acquisition is served")
        XCTAssertEqual(old["value"] as? String, "stamp")
        // Requests with CurrentTime are served.
        XCTAssertEqual(try run("xclip", ["-o", "-selection", "clipboard"]).text, "stamp")
    }

    func testMultipleFillsGoodPairsAndRewritesFailedOnesToNone() throws {
        try pb("copy", input: [UInt8](unicode))
        let reply = try requestor("multiple")
        XCTAssertEqual(reply["notify_property"] as? String, "MULTI_PROP")
        XCTAssertEqual(reply["extra_notifies"] as? Int, 0, "exactly one SelectionNotify")
        let pairs = try XCTUnwrap(reply["pairs_back"] as? [Any], "the pairs written back")
        guard pairs.count == 6 else { return XCTFail("\(pairs.count) pairs written back: \(pairs)") }
        XCTAssertEqual(pairs[1] as? String, "P1")
        XCTAssertTrue(pairs[3] is NSNull, "the failed pair's property is None")
        XCTAssertEqual(pairs[5] as? String, "P3")
        XCTAssertEqual((reply["p1"] as? [String: Any])?["type"] as? String, "UTF8_STRING")
        XCTAssertEqual((reply["p3"] as? [String: Any])?["type"] as? String, "STRING")
        XCTAssertEqual((reply["p3"] as? [String: Any])?["value"] as? String, "naïve ? ??", "STRING is Latin-1, ? for the rest")
        XCTAssertTrue(reply["p2"] is NSNull)
        XCTAssertTrue(try requestor("multiple-none")["notify_property"] is NSNull, "MULTIPLE without a property is refused")
    }

    func testObsoleteRequestorWithPropertyNoneGetsDataInTheTargetProperty() throws {
        try pb("copy", input: [UInt8](unicode))
        let reply = try requestor("obsolete")
        XCTAssertEqual(reply["notify_property"] as? String, "UTF8_STRING")
        XCTAssertEqual(reply["value"] as? String, unicode)
    }

    func testTextTargetsAreEncodedAsTheirNamesSay() throws {
        try pb("copy", input: [UInt8]("café"))
        let latin = try requestor("text-as", "STRING")
        XCTAssertEqual(latin["type"] as? String, "STRING")
        XCTAssertEqual(latin["bytes"] as? [Int], [0x63, 0x61, 0x66, 0xE9], "STRING carries ISO-8859-1")
        XCTAssertEqual(try requestor("text-as", "TEXT")["type"] as? String, "STRING", "TEXT is typed STRING when Latin-1 fits")
        try pb("copy", input: [UInt8](unicode))
        XCTAssertEqual(try requestor("text-as", "TEXT")["type"] as? String, "UTF8_STRING", "and UTF8_STRING otherwise, never TEXT")
        XCTAssertEqual(try requestor("compound-text")["type"] as? String, "COMPOUND_TEXT")
        XCTAssertEqual(try pb("paste", "-t", "COMPOUND_TEXT").text, unicode, "COMPOUND_TEXT decodes back to the same text")
        XCTAssertEqual(try pb("paste", "-t", "STRING").text, "naïve ? ??")
    }

    func testPasteReadsOtherOwnersAndExitCodesSayWhatHappened() throws {
        let owner = try startOwner("xsel", ["-b", "-i", "-n"], input: [UInt8]("from xsel"))
        defer { stop(owner) }
        XCTAssertEqual(try pb("paste").text, "from xsel")
        XCTAssertEqual(try pb("types").text.contains("UTF8_STRING"), true)
        let missing = try run(desktop.pb, ["paste", "-t", "image/png"])
        XCTAssertEqual(missing.status, 3, "type not offered")
        XCTAssertTrue(missing.stderr.contains("does not offer"), missing.stderr)
        let empty = try run(desktop.pb, ["paste", "-P", "_PASTEBOARD_TEST_NOBODY"])
        XCTAssertEqual(empty.status, 2, "an unowned selection is empty")
    }

    func testPasteTimesOutOnAnOwnerThatNeverAnswersWithStatus4() throws {
        // A stopped xclip owns the selection but answers nothing.
        let owner = try startOwner("xclip", ["-quiet", "-i", "-selection", "clipboard"], input: [UInt8]("frozen"))
        kill(owner.processIdentifier, SIGSTOP)
        defer { kill(owner.processIdentifier, SIGCONT); stop(owner) }
        let result = try run(desktop.pb, ["paste", "--timeout", "300"])
        XCTAssertEqual(result.status, 4, result.stderr)
        XCTAssertTrue(result.stderr.contains("did not answer"), result.stderr)
    }

    func testPrimaryIsSeparateFromClipboard() throws {
        try pb("copy", input: [UInt8]("on clipboard"))
        try pb("copy", "-p", input: [UInt8]("on primary"))
        XCTAssertEqual(try run("xclip", ["-o", "-selection", "primary"]).text, "on primary")
        XCTAssertEqual(try run("xclip", ["-o", "-selection", "clipboard"]).text, "on clipboard")
        XCTAssertEqual(try pb("paste", "--primary").text, "on primary")
    }

    func testTrimNewlineOnCopyAndPaste() throws {
        try pb("copy", "-n", input: [UInt8]("date output\n"))
        XCTAssertEqual(try run("xclip", ["-o", "-selection", "clipboard"]).text, "date output")
        try pb("copy", input: [UInt8]("kept\n"))
        XCTAssertEqual(try pb("paste").text, "kept\n", "paste adds and removes nothing by default")
        XCTAssertEqual(try pb("paste", "-n").text, "kept")
    }
}
