// SPDX-License-Identifier: Apache-2.0
import Foundation
import Pasteboard
import TestSupport
import XCTest

/// Apple's pasteboard model on X11: items with typed representations, one change per write, named
/// pasteboards any X client can read, and the Swift library.
final class PasteboardModelTests: DesktopTestCase {
    func board(_ name: PasteboardName = .general) -> Pasteboard {
        Pasteboard(name: name, environment: desktop.environment)
    }

    func flatRTFD(_ rtf: String) throws -> [UInt8] {
        let result = try desktop.runner.run(desktop.pb, ["convert", "--from", "rtf", "--to", "rtfd"], input: Array(rtf.utf8))
        XCTAssertEqual(result.status, 0, result.stderr)
        return result.stdout
    }

    func testSeedScenarioOneChangePerWrite() throws {
        let general = board()
        let text = Array("Hello".utf8), html = Array("<b>Hello</b>".utf8)
        let rtfd = try flatRTFD(#"{\rtf1\ansi {\b Hello}\par}"#)
        let start = try general.changeCount
        // Plain text and HTML, then RTFD added in a second call: two changes, as on macOS.
        try general.setItems([PasteboardItem([(.utf8PlainText, text), (.html, html)])])
        try general.addItems([PasteboardItem([(.flatRTFD, rtfd)])])
        XCTAssertEqual(try general.changeCount, start + 2)
        XCTAssertEqual(try general.items.count, 2)
        // All three in one write: one change.
        try general.setItems([PasteboardItem([(.utf8PlainText, text), (.html, html), (.flatRTFD, rtfd)])])
        XCTAssertEqual(try general.changeCount, start + 3)
        // pb copy with two representations: one change.
        let a = desktop.home + "/a.html", b = desktop.home + "/a.txt"
        try "<i>x</i>".write(toFile: a, atomically: true, encoding: .utf8)
        try "x".write(toFile: b, atomically: true, encoding: .utf8)
        try pb("copy", "-t", "text/html=\(a)", "-t", "text/plain=\(b)")
        XCTAssertEqual(try general.changeCount, start + 4)
    }

    func testItemsAreVisibleToXAsOneSelectionAndToPbItemByItem() throws {
        let general = board()
        try general.setItems([
            PasteboardItem([(.utf8PlainText, Array("first".utf8)), (.uriList, Array("file:///a\r\n".utf8))]),
            PasteboardItem([(.utf8PlainText, Array("second".utf8)), (.html, Array("<p>second</p>".utf8)), (.uriList, Array("file:///b\r\n".utf8))]),
        ])
        // X peers see the union of types; the first item that has a type provides it.
        XCTAssertEqual(try run("xclip", ["-o", "-selection", "clipboard"]).text, "first")
        XCTAssertEqual(try run("xclip", ["-o", "-selection", "clipboard", "-t", "text/html"]).text, "<p>second</p>")
        XCTAssertEqual(try run("xclip", ["-o", "-selection", "clipboard", "-t", "text/uri-list"]).text, "file:///a\r\nfile:///b\r\n",
                       "text/uri-list joins the URIs of every item")
        // pb addresses items.
        XCTAssertEqual(try pb("paste", "--item", "1").text, "second")
        let listing = try pb("types", "--items").text
        XCTAssertTrue(listing.contains("item 0") && listing.contains("item 1"), listing)
        XCTAssertEqual(try run(desktop.pb, ["paste", "--item", "5"]).status, 3)
        // The library reads them back as written.
        let items = try general.items
        XCTAssertEqual(items.count, 2)
        XCTAssertEqual(items[1].data(for: .html), Array("<p>second</p>".utf8))
        XCTAssertEqual(try general.data(forType: .html, inItemSet: [0, 1]), [Array("<p>second</p>".utf8)])
        XCTAssertTrue(try general.contains(types: [.html], inItemSet: [1]))
        XCTAssertFalse(try general.contains(types: [.html], inItemSet: [0]))
        XCTAssertTrue(try general.contains(types: [.html]))
        XCTAssertFalse(try general.contains(types: [.png]))
        XCTAssertEqual(try general.data(forType: .utf8PlainText), Array("first".utf8))
        XCTAssertNil(try general.data(forType: .png))
    }

    func testLibraryReadsAnyOwnerAndReportsTypedErrors() throws {
        let owner = try startOwner("xclip", ["-quiet", "-i", "-selection", "clipboard", "-t", "text/html"], input: Array("<b>x</b>".utf8))
        defer { stop(owner) }
        let general = board()
        XCTAssertTrue(try general.types.contains(PasteboardType("text/html")))
        XCTAssertEqual(try general.data(forType: .html), Array("<b>x</b>".utf8))
        XCTAssertEqual(try general.items.first?.data(for: .html), Array("<b>x</b>".utf8), "one item for a foreign owner")
        XCTAssertThrowsError(try board(PasteboardName(rawValue: "_PB_TEST_NOBODY")).data(forType: .html)) { error in
            XCTAssertEqual(error as? PasteboardError, .empty)
        }
        XCTAssertThrowsError(try Pasteboard(name: "_PB_TEST_UNKNOWN", create: false, environment: desktop.environment)) { error in
            XCTAssertEqual(error as? PasteboardError, .noSuchPasteboard("_PB_TEST_UNKNOWN"))
        }
    }

    func testWaitForChangeIsPushedNotPolled() throws {
        let general = board()
        let before = try general.changeCount
        let copier = Thread { [desktop] in
            // Copy once the daemon reports the watcher (pb status), not after a guess at how long that takes.
            let deadline = Date().addingTimeInterval(10)
            while Date() < deadline {
                let status = (try? desktop.runner.run(desktop.pb, ["status"]).text) ?? ""
                if status.split(separator: "\n").contains("watchers: 1") { break }
            }
            _ = try? desktop.runner.run(desktop.pb, ["copy"], input: Array("wake up".utf8))
        }
        copier.start()
        let change = try general.waitForChange(timeoutMilliseconds: 10_000)
        XCTAssertEqual(change.changeCount, before + 1)
        XCTAssertEqual(change.state, "data")
        XCTAssertTrue(change.types.contains(.utf8PlainText))
        XCTAssertThrowsError(try general.waitForChange(timeoutMilliseconds: 200)) { error in
            XCTAssertEqual(error as? PasteboardError, .timedOut)
        }
    }

    /// A zero timeout asks "has a change come?": it returns one that has arrived (it once answered timedOut
    /// without looking, so a program polling its watchers never saw a change), and `.timedOut` only when none has.
    func testAWatcherWithAZeroTimeoutReturnsAChangeThatHasArrived() throws {
        let watcher = try PasteboardWatcher(pasteboards: [.general], environment: desktop.environment)
        XCTAssertThrowsError(try watcher.next(timeoutMilliseconds: 0)) { XCTAssertEqual($0 as? PasteboardError, .timedOut) }
        let before = try count()
        try pb("copy", input: Array("arrived".utf8))
        var change: PasteboardChange?
        try waitUntil(10, "the change is returned without waiting") {
            change = try? watcher.next(timeoutMilliseconds: 0)
            return change != nil
        }
        XCTAssertEqual(change?.changeCount, before + 1)
        XCTAssertThrowsError(try watcher.next(timeoutMilliseconds: 0)) { XCTAssertEqual($0 as? PasteboardError, .timedOut) }
    }

    func testNamedPasteboardIsAnXSelectionGTKAndTkRead() throws {
        let name = "_PB_TEST_BOARD"
        try pb("pasteboard", "create", name)
        let clipboardBefore = try count()
        let namedBefore = try count("-P", name)
        try pb("copy", "-P", name, input: Array("named ✓".utf8))
        XCTAssertEqual(try count("-P", name), namedBefore + 1)
        XCTAssertEqual(try count(), clipboardBefore, "CLIPBOARD is untouched")
        let script = peer("toolkits.py")
        for toolkit in ["gtk", "tk"] {
            let result = try run("/usr/bin/python3", [script, toolkit, name], timeout: 60)
            let reply = try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [String: Any]
            XCTAssertEqual(reply?["text"] as? String, "named ✓", "\(toolkit) reads the selection by name: \(result.stderr)")
        }
        let listed = try pb("pasteboard", "list").text
        XCTAssertTrue(listed.contains(name), listed)
        try pb("pasteboard", "remove", name)
        XCTAssertFalse(try pb("pasteboard", "list").text.contains(name))
        XCTAssertEqual(try run(desktop.pb, ["pasteboard", "remove", "CLIPBOARD"]).status, 64, "standard selections cannot be removed")
    }

    func testNamedPasteboardWrittenByGTKIsReadByPbAndCounted() throws {
        let name = "_PB_TEST_GTK_OWNED"
        try pb("pasteboard", "create", name)
        let before = try count("-P", name)
        let (process, output) = try startReading("/usr/bin/python3", [peer("toolkits.py"), "gtk-own", name, "from GTK"])
        defer { stop(process) }
        XCTAssertEqual(try output.line(), "ready")
        try waitUntil(10, "the GTK owner is counted") { try count("-P", name) == before + 1 }
        XCTAssertEqual(try pb("paste", "-P", name).text, "from GTK")
    }

    func testWatchPrintsOneJSONRecordPerChange() throws {
        let (process, reader) = try startReading(desktop.pb, ["watch", "--json", "-b"])
        defer { stop(process) }
        // The watch is registered once pb has said hello; a status round trip orders us after it.
        try waitUntil(10, "pb watch is registered") { try pb("status").text.contains("watchers: 1\n") }
        try pb("copy", input: Array("one".utf8))
        try pb("clear")
        let lines = [try reader.line(), try reader.line()].compactMap { $0 }
        XCTAssertEqual(lines.count, 2, "two records arrived")
        let records = try lines.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        XCTAssertEqual(records[0]?["pasteboard"] as? String, "CLIPBOARD")
        XCTAssertEqual(records[0]?["state"] as? String, "data")
        XCTAssertEqual(records[1]?["state"] as? String, "clear")
        XCTAssertEqual((records[1]?["changeCount"] as? Int).map { $0 - 1 }, records[0]?["changeCount"] as? Int)
    }
}
