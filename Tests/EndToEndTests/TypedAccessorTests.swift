// SPDX-License-Identifier: Apache-2.0
import Foundation
import Pasteboard
import TestSupport
import XCTest

/// UIPasteboard's and NSPasteboard's typed accessors and expiry through the library, against pasteboardd and real X
/// owners and readers (xclip, pb copy --files): strings, URLs, pictures, the cheap has… checks, unique
/// named pasteboards (X selections: docs/selections.md and PasteboardModelTests) and their removal.
final class TypedAccessorTests: DesktopTestCase {
    func board(_ name: PasteboardName = .general) -> Pasteboard {
        Pasteboard(name: name, environment: desktop.environment)
    }

    func testStringsAreOneChangeAndEveryXClientReadsThem() throws {
        let general = board()
        try general.clear()
        XCTAssertNil(try general.string, "an empty pasteboard has no string")
        XCTAssertEqual(try general.strings, [])
        XCTAssertFalse(try general.hasStrings)
        let before = try general.changeCount
        XCTAssertEqual(try general.setString("naïve € 日本"), before + 1)
        XCTAssertEqual(try run("xclip", ["-o", "-selection", "clipboard"]).text, "naïve € 日本")
        XCTAssertEqual(try general.string, "naïve € 日本")
        XCTAssertTrue(try general.hasStrings)
        XCTAssertEqual(try general.setStrings(["first", "second"]), before + 2, "two strings, one change")
        XCTAssertEqual(try general.strings, ["first", "second"])
        XCTAssertEqual(try general.string, "first", "X peers and string see the first item's")

        // Another application's rich text: its text, converted.
        let owner = try startOwner("xclip", ["-quiet", "-i", "-selection", "clipboard", "-t", "text/html"],
                                   input: Array("<p>Some <b>bold</b> words</p>".utf8))
        defer { stop(owner) }
        XCTAssertEqual(try general.string?.trimmingCharacters(in: .whitespacesAndNewlines), "Some bold words")
        XCTAssertEqual(try general.availableType(from: [.png, .rtf, .utf8PlainText]), .rtf, "the first that converts")
        XCTAssertNil(try general.availableType(from: [.png, .jpeg]))
    }

    func testURLsFromAURIListFilesOrTextThatIsOneURL() throws {
        let general = board()
        XCTAssertThrowsError(try general.setURL("see https://example.org")) { error in
            XCTAssertTrue("\(error)".contains("is not a URL"), "\(error)")
        }
        try general.setURL("https://example.org/a?b=c")
        XCTAssertEqual(try run("xclip", ["-o", "-selection", "clipboard", "-t", "text/uri-list"]).text, "https://example.org/a?b=c\r\n")
        XCTAssertEqual(try run("xclip", ["-o", "-selection", "clipboard"]).text, "https://example.org/a?b=c")
        XCTAssertEqual(try general.url, "https://example.org/a?b=c")
        XCTAssertTrue(try general.hasURLs)

        // Files a file manager copied: their URIs.
        let a = desktop.home + "/a file.txt", b = desktop.home + "/b.txt"
        for path in [a, b] { try "x".write(toFile: path, atomically: true, encoding: .utf8) }
        try pb("copy", "--files", a, b)
        XCTAssertEqual(try general.urls, ["file://" + desktop.home.replacingOccurrences(of: " ", with: "%20") + "/a%20file.txt",
                                          "file://" + desktop.home + "/b.txt"])

        // Another application's plain text: a URL only when it is one and nothing else; hasURLs reads no content.
        let link = try startOwner("xclip", ["-quiet", "-i", "-selection", "clipboard"], input: Array("  https://example.org/x\n".utf8))
        XCTAssertEqual(try general.url, "https://example.org/x")
        XCTAssertFalse(try general.hasURLs, "TARGETS alone say text, not a URL")
        stop(link)
        let words = try startOwner("xclip", ["-quiet", "-i", "-selection", "clipboard"], input: Array("visit https://example.org".utf8))
        defer { stop(words) }
        XCTAssertNil(try general.url)
        XCTAssertEqual(try general.urls, [])
    }

    func testPicturesInAndOutInTheTypeAsked() throws {
        let general = board()
        let made = try run("/usr/bin/python3", [peer("images.py"), "make", "png", desktop.home + "/p.png"])
        XCTAssertEqual(made.status, 0, made.stderr)
        let png = try [UInt8](Data(contentsOf: URL(fileURLWithPath: desktop.home + "/p.png")))
        XCTAssertThrowsError(try general.setImage(Array("not a picture".utf8)))
        XCTAssertThrowsError(try general.setImage(png, type: .jpeg), "PNG bytes are no JPEG")
        try general.setImage(png)
        XCTAssertTrue(try general.hasImages)
        XCTAssertFalse(try general.hasStrings)
        XCTAssertEqual(try general.image(), png, "the picture as given")
        let jpeg = try XCTUnwrap(try general.image(as: .jpeg))
        XCTAssertEqual(Array(jpeg.prefix(3)), [0xFF, 0xD8, 0xFF], "converted by pasteboardd")
        XCTAssertEqual(try run("xclip", ["-o", "-selection", "clipboard", "-t", "image/png"]).stdout, png)
        XCTAssertThrowsError(try general.image(as: .html), "not a picture type")
        try general.setString("words")
        XCTAssertNil(try general.image())
        XCTAssertFalse(try general.hasImages)
    }

    func testItemSetsByType() throws {
        let general = board()
        try general.setItems([
            PasteboardItem([(.utf8PlainText, Array("plain".utf8))]),
            PasteboardItem([(.html, Array("<b>rich</b>".utf8))]),
        ])
        XCTAssertEqual(try general.itemSet(withTypes: [.html]), [1])
        XCTAssertEqual(try general.itemSet(withTypes: [.rtf]), [1], "RTF is listed for the HTML item")
        XCTAssertEqual(try general.itemSet(withTypes: [.utf8PlainText]), [0, 1])
        XCTAssertEqual(try general.itemSet(withTypes: [.png]), [])
        XCTAssertEqual(try general.data(forType: .html, inItemSet: try general.itemSet(withTypes: [.html])), [Array("<b>rich</b>".utf8)])
    }

    /// `pb copy --expire` and `PasteboardOptions(expiresAfter:)`: cleared at the time (+1), unless the
    /// pasteboard changed meanwhile; offered with the transient marker; never in history.
    func testExpiringContentIsClearedAtItsTimeUnlessThePasteboardChanged() throws {
        let general = board()
        let before = try general.changeCount
        try pb("copy", "--expire", "0.4", input: Array("hunter2".utf8))
        XCTAssertEqual(try run("xclip", ["-o", "-selection", "clipboard"]).text, "hunter2")
        XCTAssertTrue(try pb("types").text.split(separator: "\n").contains("org.nspasteboard.TransientType"))
        try waitUntil(10, "the expiring copy is cleared") { try run(desktop.pb, ["paste"]).status == 2 }
        XCTAssertEqual(try general.changeCount, before + 2, "the copy and its clearing")
        XCTAssertFalse(try pb("history").text.contains("hunter2"), "never in history")

        // A copy made meanwhile is not cleared: a named pasteboard expiring later shows the time has passed.
        try general.setItems([PasteboardItem([(.utf8PlainText, Array("first".utf8))])],
                             options: PasteboardOptions(expiresAfter: .milliseconds(300)))
        try general.setString("second")
        let marker = try Pasteboard.withUniqueName(environment: desktop.environment)
        defer { try? marker.remove() }
        try marker.setItems([PasteboardItem([(.utf8PlainText, Array("marker".utf8))])], options: PasteboardOptions(expiresAfter: .milliseconds(600)))
        try waitUntil(10, "the later expiry came") { try run(desktop.pb, ["paste", "-P", marker.name.rawValue]).status == 2 }
        XCTAssertEqual(try general.string, "second", "the newer copy stays")

        for bad in ["0", "-2", "604801", "soon"] {
            XCTAssertEqual(try run(desktop.pb, ["copy", "--expire", bad], input: Array("x".utf8)).status, 64, bad)
        }
        XCTAssertThrowsError(try general.setItems([], options: PasteboardOptions(expiresAfter: .zero)))
        XCTAssertThrowsError(try general.setItems([], options: PasteboardOptions(expiresAfter: .seconds(8 * 24 * 3600))))
    }

    func testAUniquelyNamedPasteboardIsAnXSelectionUntilRemovedAndItsWatchersHearIt() throws {
        let unique = try Pasteboard.withUniqueName(environment: desktop.environment)
        let other = try Pasteboard.withUniqueName(environment: desktop.environment)
        XCTAssertNotEqual(unique.name, other.name)
        XCTAssertTrue(unique.name.rawValue.hasPrefix("_PASTEBOARD_UNIQUE_"), unique.name.rawValue)
        try unique.setString("private")
        XCTAssertEqual(try pb("paste", "-P", unique.name.rawValue).text, "private")
        let watcher = try PasteboardWatcher(pasteboards: [unique.name], environment: desktop.environment)
        try unique.remove()
        let change = try watcher.next(timeoutMilliseconds: 10_000)
        XCTAssertEqual(change.state, "removed")
        XCTAssertEqual(change.pasteboard, unique.name)
        XCTAssertFalse(try pb("pasteboard", "list").text.contains(unique.name.rawValue))
        XCTAssertThrowsError(try board().remove()) { error in
            XCTAssertTrue("\(error)".contains("cannot be removed"), "\(error)")
        }
        try other.remove()
    }
}
