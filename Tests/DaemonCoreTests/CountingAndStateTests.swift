// SPDX-License-Identifier: Apache-2.0
import ControlProtocol
@testable import DaemonCore
import Foundation
import PasteboardCore
import TestSupport
import XCTest
import XTypes

/// Change counts, named pasteboards, what survives a restart, configuration.
final class CountingAndStateTests: XCTestCase {
    func testEveryChangeCountsOnceAndIsPublishedBeforeTheClientHearsIt() throws {
        let h = try Harness()
        let start = try XCTUnwrap(h.count())
        XCTAssertEqual(try h.copy([(.utf8PlainText, "a")]), start + 1)
        XCTAssertEqual(h.publishedCount().map(UInt64.init), start + 1, "the root property, as pb count reads it")
        XCTAssertEqual(try h.copy([(.utf8PlainText, "b"), (.html, "<b>b</b>")]), start + 2, "one write, one change")
        let owner = h.owner([("UTF8_STRING", Array("c".utf8))])
        owner.own()
        h.settle()
        XCTAssertEqual(h.count(), start + 3, "another owner: one change")
        guard case .changeCount(_, let cleared)? = h.send(.clear(pasteboard: "CLIPBOARD")).first else { return XCTFail() }
        XCTAssertEqual(cleared, start + 4)
        XCTAssertEqual(h.count(), start + 4, "the daemon's own clear is not counted again when XFixes echoes it")
        XCTAssertEqual(h.count("PRIMARY"), 0, "counts are per pasteboard")
    }

    func testAddItemsIsOneChangePerCallAndKeepsTheItems() throws {
        let h = try Harness()
        let first = try h.copy([(.utf8PlainText, "one")])
        let item = try PasteboardItem([(PasteboardType.html, Array("<i>two</i>".utf8))])
        guard case .changeCount(_, let count)? = h.send(.addItems(pasteboard: "CLIPBOARD", items: [item])).first else { return XCTFail() }
        XCTAssertEqual(count, first + 1)
        guard case .items(let items)? = h.send(.items(pasteboard: "CLIPBOARD")).first else { return XCTFail() }
        XCTAssertEqual(items.map(\.types), [[.utf8PlainText], [.html]])
    }

    func testLookingAPasteboardUpNeverStartsWatchingIt() throws {
        let h = try Harness()
        XCTAssertEqual(h.count("find"), 0)
        guard case .error(let code, _)? = h.send(.items(pasteboard: "find")).first else { return XCTFail() }
        XCTAssertEqual(code, .notFound)
        guard case .pasteboards(let all)? = h.send(.pasteboards).first else { return XCTFail() }
        XCTAssertEqual(all.map(\.name), ["CLIPBOARD", "PRIMARY"], "nothing was created by looking")
        XCTAssertEqual(try h.copy([(.utf8PlainText, "x")], to: "find"), 1, "a write starts watching it")
        guard case .pasteboards(let after)? = h.send(.pasteboards).first else { return XCTFail() }
        XCTAssertEqual(after.map(\.name), ["CLIPBOARD", "PRIMARY", "find"])
        XCTAssertEqual(h.paste("UTF8_STRING", from: "find").text, "x", "a named pasteboard is the X selection of that name")
    }

    func testARemovedPasteboardKeepsItsCountForWhenItComesBack() throws {
        let h = try Harness()
        try h.copy([(.utf8PlainText, "1")], to: "board")
        try h.copy([(.utf8PlainText, "2")], to: "board")
        XCTAssertEqual(h.send(.removePasteboard(name: "board")).first, .ok)
        XCTAssertFalse(h.daemonOwns("board"), "released")
        XCTAssertEqual(h.count("board"), 2, "looked up, not watched")
        XCTAssertEqual(try h.copy([(.utf8PlainText, "3")], to: "board"), 3, "never repeats a value")
    }

    func testThePasteboardCapIsALimitWithAClearError() throws {
        let h = try Harness()
        for index in 0..<(PasteboardLimits.maximumPasteboards - 2) { try h.copy([(.utf8PlainText, "x")], to: "b\(index)") }
        guard case .error(let code, let message)? = h.send(.createPasteboard(name: "one-too-many", persistent: false)).first else {
            return XCTFail()
        }
        XCTAssertEqual(code, .tooLarge)
        XCTAssertTrue(message.contains("\(PasteboardLimits.maximumPasteboards)"), message)
    }

    func testKeptContentCountsAndHistorySurviveARestart() throws {
        let first = try Harness(keepState: true)
        let directory = try XCTUnwrap(first.stateDirectory)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try first.copy([(.utf8PlainText, "one")])
        let count = try first.copy([(.utf8PlainText, "two"), (.html, "<b>two</b>")])
        XCTAssertEqual(first.send(.createPasteboard(name: "notes", persistent: true)).count, 1)
        try first.copy([(.utf8PlainText, "a note")], to: "notes")
        first.engine.stop()

        // A new server: the root properties are gone; the state directory holds what counts.
        let second = try Harness(keepState: true, directory: directory)
        XCTAssertTrue(second.daemonOwns(), "restored")
        XCTAssertEqual(second.count(), count, "exact after a clean stop, never back")
        XCTAssertEqual(second.paste("text/html").text, "<b>two</b>")
        XCTAssertEqual(second.paste("UTF8_STRING", from: "notes").text, "a note", "a persistent pasteboard's content too")
        guard case .history(let entries)? = second.send(.history(limit: 0)).first else { return XCTFail() }
        XCTAssertEqual(entries.map(\.preview), ["two", "one"])
    }

    func testKeptContentIsWrittenOnceAndSharedByTheArchiveAndTheHistory() throws {
        let h = try Harness(keepState: true)
        let directory = try XCTUnwrap(h.stateDirectory)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // Larger than the journal takes: a file of its own, which the kept clipboard's archive is too.
        let large = String(repeating: "kept once ", count: 4000)
        try h.copy([(.utf8PlainText, large)])
        h.engine.manager.finishWrites()
        let archive = directory + "/clipboard.archive"
        let entries = try FileManager.default.contentsOfDirectory(atPath: directory + "/history").filter { $0.hasSuffix(".archive") }
        XCTAssertEqual(entries.count, 1)
        let entry = directory + "/history/" + entries[0]
        let inode = { (path: String) in (try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int) }
        XCTAssertEqual(try inode(archive), try inode(entry), "the archive is the history entry's file: one copy on disk")
        // Deleting the history entry keeps the clipboard's archive.
        XCTAssertEqual(h.send(.historyDelete(index: 0)).first, .ok)
        XCTAssertFalse(FileManager.default.fileExists(atPath: entry))
        h.engine.stop()
        let restarted = try Harness(keepState: true, directory: directory)
        XCTAssertEqual(restarted.paste("UTF8_STRING").text, large)
    }

    /// A small copy is one frame of the history's journal, which also says it is the kept clipboard: no file of
    /// its own, no clipboard.archive; deleting its entry writes it out first, so it is still restored.
    func testASmallKeptCopyIsOneFrameOfTheJournalAndOutlivesItsEntry() throws {
        let h = try Harness(keepState: true)
        let directory = try XCTUnwrap(h.stateDirectory)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try h.copy([(.utf8PlainText, "an older copy")])
        try h.copy([(.utf8PlainText, "kept once")])
        h.engine.manager.finishWrites()
        let archive = directory + "/clipboard.archive"
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory + "/history"), ["journal"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: archive), "the journal says which entry is kept")
        let journal = try Data(contentsOf: URL(fileURLWithPath: directory + "/history/journal"))
        XCTAssertEqual(journal.count(of: "kept once"), 2, "its preview and its bytes, once each: no second copy")
        h.engine.stop()
        do {
            let restarted = try Harness(keepState: true, directory: directory)
            XCTAssertEqual(restarted.paste("UTF8_STRING").text, "kept once")
            XCTAssertEqual(restarted.engine.manager.history.entries.map(\.preview), ["kept once", "an older copy"])
            XCTAssertEqual(restarted.send(.historyDelete(index: 0)).first, .ok)
            restarted.engine.manager.finishWrites()
            XCTAssertTrue(FileManager.default.fileExists(atPath: archive), "written out before its entry went")
            restarted.engine.stop()
        }
        let again = try Harness(keepState: true, directory: directory)
        XCTAssertEqual(again.paste("UTF8_STRING").text, "kept once")
        XCTAssertEqual(again.engine.manager.history.entries.map(\.preview), ["an older copy"])
        // A clear of the history keeps the clipboard; a clear of the clipboard keeps nothing.
        try again.copy([(.utf8PlainText, "newest")])
        XCTAssertEqual(again.send(.historyClear).first, .ok)
        again.engine.manager.finishWrites()
        XCTAssertEqual(again.engine.manager.history.entries.count, 0)
        again.engine.stop()
        let cleared = try Harness(keepState: true, directory: directory)
        XCTAssertEqual(cleared.paste("UTF8_STRING").text, "newest", "the kept clipboard outlives a history clear")
    }

    func testSecretContentIsServedButNeverKept() throws {
        let first = try Harness(keepState: true)
        let directory = try XCTUnwrap(first.stateDirectory)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try first.copy([(.utf8PlainText, "hunter2")], options: [.sensitive])
        XCTAssertEqual(first.paste("UTF8_STRING").text, "hunter2")
        XCTAssertTrue(first.targets().contains("x-kde-passwordManagerHint"), "other managers are told")
        guard case .history(let entries)? = first.send(.history(limit: 0)).first else { return XCTFail() }
        XCTAssertTrue(entries.isEmpty)
        first.engine.stop()
        let second = try Harness(keepState: true, directory: directory)
        XCTAssertFalse(second.daemonOwns(), "nothing to restore")
    }

    func testReconfiguringChangesTheCapsOfTheNextSnapshot() throws {
        let h = try Harness()
        var tight = DaemonConfiguration()
        tight.maxTextBytes = 3
        h.engine.reconfigure(tight)
        let owner = h.owner([("UTF8_STRING", Array("too long".utf8)), ("text/html", Array("<b>".utf8))])
        owner.own()
        h.settle()
        guard case .read(_, let content)? = h.engine.manager.state.phase(of: .general) else { return XCTFail() }
        XCTAssertEqual(content.types, [.html], "UTF8_STRING over the new 3-byte cap was skipped")
    }

    func testStatusReportsCountsOwnershipAndWork() throws {
        let h = try Harness()
        try h.copy([(.utf8PlainText, "x")])
        guard case .status(let pairs)? = h.send(.status).first else { return XCTFail() }
        let status = Dictionary(uniqueKeysWithValues: pairs.map { ($0.key, $0.value) })
        XCTAssertEqual(status["owned.CLIPBOARD"], "yes")
        XCTAssertEqual(status["owned.PRIMARY"], "no")
        XCTAssertEqual(status["count.CLIPBOARD"], "1")
        XCTAssertEqual(status["conversions"], "0")
        XCTAssertEqual(status["display"], ":99")
    }
}

private extension Data {
    /// How many times `text`'s UTF-8 occurs.
    func count(of text: String) -> Int {
        let needle = Data(text.utf8)
        var found = 0
        var start = startIndex
        while let range = range(of: needle, in: start..<endIndex) {
            found += 1
            start = range.upperBound
        }
        return found
    }
}
