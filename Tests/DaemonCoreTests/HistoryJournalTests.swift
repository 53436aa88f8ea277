// SPDX-License-Identifier: Apache-2.0
import ControlProtocol
@testable import DaemonCore
import Foundation
import PasteboardCore
import SystemSupport
import TestSupport
import XCTest

/// The history's journal: frames read back whole or not at all, whatever a crash or a failed write left; the
/// history on disk read back as it was, in a journal that stays within twice what it holds; an older version's
/// index taken over.
final class HistoryJournalTests: XCTestCase {
    private func entry(_ id: UInt64, _ preview: String = "a line") -> HistoryStore.Entry {
        HistoryStore.Entry(id: id, time: 1_700_000_000 + Int64(id), pasteboard: .general, types: ["UTF8_STRING", "a b%"],
                           size: 6, preview: preview, digest: 0xfeed_0000 + id, source: ContentSource(application: "xterm", processID: 42))
    }

    func testAFrameReadsBackAsWrittenAndNamesWhereEachArchiveIs() {
        let records: [HistoryJournal.Record] = [.next(9), .entry(entry(3), archive: [1, 2, 3, 4]), .entry(entry(4), archive: nil),
                                                .drop(2), .kept(3), .kept(nil)]
        let (bytes, archives) = HistoryJournal.frame(records, at: 0)
        XCTAssertEqual(archives, [HistoryJournal.InlineArchive(id: 3, offset: archives[0].offset, count: 4)])
        XCTAssertEqual(Array(bytes[archives[0].offset..<archives[0].offset + 4]), [1, 2, 3, 4])
        let second = HistoryJournal.frame(records, at: bytes.count).bytes
        XCTAssertEqual(second.count, bytes.count)
        let contents = HistoryJournal.read(bytes + second)
        XCTAssertEqual(contents.records, records + records)
        XCTAssertEqual(contents.archives[3]?.offset, bytes.count + archives[0].offset, "the newest place of each")
        XCTAssertEqual(contents.damagedBytes, 0)
        XCTAssertEqual(contents.end, 2 * bytes.count)
    }

    func testATornFrameAHoleAndAChangedByteCostOnlyTheirOwnFrame() {
        let a = HistoryJournal.frame([.entry(entry(1), archive: Array("one".utf8))], at: 0).bytes
        let b = HistoryJournal.frame([.entry(entry(2), archive: Array("two".utf8)), .kept(2)], at: a.count).bytes
        let c = HistoryJournal.frame([.drop(1)], at: a.count + b.count).bytes
        // Torn at every length: the whole frames before it, nothing of it.
        for cut in 0..<b.count {
            let contents = HistoryJournal.read(a + b[0..<cut])
            XCTAssertEqual(contents.records, [.entry(entry(1), archive: Array("one".utf8))], "cut at \(cut)")
            XCTAssertEqual(contents.end, a.count)
            XCTAssertEqual(contents.damagedBytes, cut)
        }
        // An append that never happened (zeros where it should be), then one that did, where it was written.
        let hole = HistoryJournal.read(a + [UInt8](repeating: 0, count: 100) + HistoryJournal.frame([.drop(1)], at: a.count + 100).bytes)
        XCTAssertEqual(hole.records, [.entry(entry(1), archive: Array("one".utf8)), .drop(1)])
        XCTAssertEqual(hole.damagedBytes, 100)
        // Any one byte of the middle frame changed: that frame, and only it, is gone.
        for index in stride(from: 0, to: b.count, by: 7) {
            var changed = b
            changed[index] ^= 0x5A
            let contents = HistoryJournal.read(a + changed + c)
            XCTAssertEqual(contents.records, [.entry(entry(1), archive: Array("one".utf8)), .drop(1)], "byte \(index)")
            XCTAssertEqual(contents.damagedBytes, b.count, "byte \(index)")
        }
        // A frame whose digest holds but whose payload is no record (an unknown kind) is not taken either, and costs
        // only itself.
        let unparsable = HistoryJournal.frame(payload: [0xFF], at: a.count)
        let contents = HistoryJournal.read(a + unparsable + HistoryJournal.frame([.drop(1)], at: a.count + unparsable.count).bytes)
        XCTAssertEqual(contents.records, [.entry(entry(1), archive: Array("one".utf8)), .drop(1)])
        XCTAssertEqual(contents.damagedBytes, unparsable.count)
    }

    /// A copy's bytes may hold `PBH1` headers, each claiming the rest of the file: once the frame holding them is
    /// damaged, the search past it weighs every one. A few cost little and the frames after the damage are read; many
    /// stop the search at its budget (the rest of the file read as damage), where weighing them all would cost the
    /// square of their bytes at every start.
    func testHeadersACopysBytesCarryCostTheSearchPastDamageAtMostItsBudget() {
        let a = HistoryJournal.frame([.entry(entry(1), archive: Array("one".utf8))], at: 0).bytes
        func journal(fakes: Int) -> (bytes: [UInt8], damaged: Int) {
            let size = HistoryJournal.headerBytes
            var (b, archives) = HistoryJournal.frame([.entry(entry(2), archive: [UInt8](repeating: 0, count: fakes * size))], at: a.count)
            let c = HistoryJournal.frame([.drop(1)], at: a.count + b.count).bytes
            let total = a.count + b.count + c.count
            for fake in 0..<fakes {
                let at = archives[0].offset + fake * size
                var header = WireWriter()
                for byte in HistoryJournal.magic { header.u8(byte) }
                header.u32(UInt32(total - (a.count + at) - size))
                header.u64(0x5eed_0000 + UInt64(fake))
                // The archive's bytes changed after the frame's digest was taken: the frame is damaged.
                b.replaceSubrange(at..<(at + size), with: header.joined)
            }
            return (a + b + c, b.count)
        }

        let few = journal(fakes: 8)
        let read = HistoryJournal.read(few.bytes)
        XCTAssertEqual(read.records, [.entry(entry(1), archive: Array("one".utf8)), .drop(1)])
        XCTAssertEqual(read.damagedBytes, few.damaged)
        XCTAssertGreaterThan(read.searchedBytes, 0)
        XCTAssertLessThan(read.searchedBytes, 9 * few.bytes.count, "each header weighed once")

        let many = journal(fakes: 20_000)
        let budget = HistoryJournal.searchBudget(many.bytes.count)
        let stopped = HistoryJournal.read(many.bytes)
        XCTAssertEqual(stopped.records, [.entry(entry(1), archive: Array("one".utf8))], "the frames before the damage")
        XCTAssertEqual(stopped.damagedBytes, many.bytes.count - a.count, "the rest read as damage")
        XCTAssertGreaterThanOrEqual(stopped.searchedBytes, budget)
        XCTAssertLessThanOrEqual(stopped.searchedBytes, budget + many.bytes.count, "stopped at the budget, not past it")
        XCTAssertLessThan(budget, 20_000 * 20_000 * HistoryJournal.headerBytes / 4, "far below weighing every header")
    }

    /// Any application can put a frame's bytes in a copy, and a small copy's archive is inside its own frame: once
    /// that frame is torn by a crash or damaged, the search past it reads those bytes. A frame's digest holds only
    /// at the offset it was made for, so one found anywhere else is damage, its records never taken (here: one that
    /// would empty the history and name the kept clipboard); an older version's frame likewise, in a file of this
    /// version's.
    func testAFrameFoundAnywhereButWhereItWasWrittenIsDamage() {
        let a = HistoryJournal.frame([.entry(entry(1), archive: Array("one".utf8))], at: 0).bytes
        let planted: [HistoryJournal.Record] = [.drop(1), .entry(entry(9, "planted"), archive: Array("x".utf8)), .kept(9)]
        let payload = Array(HistoryJournal.frame(planted, at: 0).bytes.dropFirst(HistoryJournal.headerBytes))
        for (label, inner) in [("made for another offset", HistoryJournal.frame(planted, at: 4096).bytes),
                               ("of an older version", HistoryJournal.frame(payload: payload, at: nil))] {
            let (b, archives) = HistoryJournal.frame([.entry(entry(2), archive: inner), .kept(2)], at: a.count)
            let innerAt = a.count + archives[0].offset
            XCTAssertEqual(Array(b[archives[0].offset..<(archives[0].offset + inner.count)]), inner)
            // Torn just after the planted bytes: the copy's frame is not whole, the planted one is.
            let torn = HistoryJournal.read(a + b[0..<(archives[0].offset + inner.count + 1)])
            XCTAssertEqual(torn.records, [.entry(entry(1), archive: Array("one".utf8))], label)
            XCTAssertEqual(torn.damagedBytes, archives[0].offset + inner.count + 1, label)
            // A byte of the copy's frame changed (not of the planted bytes), a frame after it.
            var damaged = b
            damaged[HistoryJournal.headerBytes + 2] ^= 0x20
            let c = HistoryJournal.frame([.drop(2)], at: a.count + b.count).bytes
            let read = HistoryJournal.read(a + damaged + c)
            XCTAssertEqual(read.records, [.entry(entry(1), archive: Array("one".utf8)), .drop(2)], label)
            XCTAssertEqual(read.damagedBytes, b.count, label)
            // Had it been made for where it lies, it would be read (what binds it is the offset alone).
            if label == "made for another offset" {
                let exact = HistoryJournal.frame(planted, at: innerAt).bytes
                let (whole, places) = HistoryJournal.frame([.entry(entry(2), archive: exact), .kept(2)], at: a.count)
                let b = whole[0..<(places[0].offset + exact.count + 1)]
                XCTAssertEqual(HistoryJournal.read(a + b).records, [.entry(entry(1), archive: Array("one".utf8))] + planted)
            }
        }
    }

    /// A journal an older version wrote (`PBH1` frames, their digest the payload's alone) is read whole, and written
    /// again as this version's at start: after it, an older frame is damage.
    func testAnOlderVersionsFramesAreReadAndWrittenAgainAsThisOnes() throws {
        func legacy(_ records: [HistoryJournal.Record]) -> [UInt8] {
            HistoryJournal.frame(payload: Array(HistoryJournal.frame(records, at: 0).bytes.dropFirst(HistoryJournal.headerBytes)), at: nil)
        }
        let archive = ContentArchive(pasteboard: .general, changeCount: 1, time: 1_700_000_000, content: try text("from before"))
        var before = entry(3, "from before")
        before.digest = HistoryStore.digest(of: try text("from before"))
        let older = legacy([.next(4), .entry(before, archive: archive.encode())]) + legacy([.kept(3)])
        let contents = HistoryJournal.read(older)
        XCTAssertEqual(contents.records, [.next(4), .entry(before, archive: archive.encode()), .kept(3)])
        XCTAssertEqual(contents.legacyFrames, 2)
        XCTAssertEqual(contents.damagedBytes, 0)
        let current = HistoryJournal.frame([.drop(7)], at: 0).bytes
        let mixed = HistoryJournal.read(current + legacy([.kept(3)]))
        XCTAssertEqual(mixed.records, [.drop(7)], "an older frame after this version's is not read")
        XCTAssertEqual(mixed.legacyFrames, 0)

        try AtomicFile.write(older, to: directory + "/journal")
        let writer = BackgroundWriter()
        let history = store(writer: writer)
        XCTAssertEqual(texts(history), ["from before"])
        XCTAssertEqual(history.keptID, 3)
        writer.drain()
        let rewritten = try FileSystem.readFile(directory + "/journal", limit: 1 << 20)
        XCTAssertEqual(Array(rewritten.prefix(4)), HistoryJournal.magic, "written again as this version's")
        XCTAssertEqual(HistoryJournal.read(rewritten).legacyFrames, 0)
        history.add(try text("new"), pasteboard: .general, time: 2)
        writer.drain()
        let again = store()
        XCTAssertEqual(texts(again), ["new", "from before"])
        XCTAssertEqual(again.entries.map(\.id), [4, 3])
    }

    // MARK: - The history on disk

    private var directory = ""

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "journal-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: directory)
        try? FileManager.default.removeItem(atPath: keptPath)
    }

    /// The kept clipboard's file, beside the history's directory as in the state directory.
    private var keptPath: String { directory + ".kept" }

    private func store(entries: Int = 100, writer: BackgroundWriter = BackgroundWriter(), inlineTotal: Int = 64 << 20) -> HistoryStore {
        HistoryStore(directory: directory, keptArchive: keptPath,
                     maximumEntries: entries, maximumBytes: 1 << 30, deduplicate: true, writer: writer, inlineTotalBytes: inlineTotal)
    }

    private func text(_ value: String) throws -> PasteboardContent {
        PasteboardContent(items: [try PasteboardItem([(type: PasteboardType.utf8PlainText, data: Array(value.utf8))])])
    }

    private func texts(_ history: HistoryStore) -> [String] {
        var skipped: [SkippedRepresentation] = []
        return history.entries.indices.map { index in
            history.content(at: index, skipped: &skipped)?.items.first?.representations.first.map { String(decoding: $0.data, as: UTF8.self) } ?? "(unreadable)"
        }
    }

    private var files: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted() }

    func testSmallCopiesAreFramesOfTheJournalALargeOneAFileAndBothReadBackAfterARestart() throws {
        let writer = BackgroundWriter()
        let history = store(writer: writer)
        let large = String(repeating: "x", count: HistoryStore.inlineBytes + 1)
        for value in ["one", "two", large, "three"] {
            history.add(try text(value), pasteboard: .general, time: 1)
        }
        XCTAssertEqual(texts(history), ["three", large, "two", "one"], "readable while the writer may still hold them")
        writer.drain()
        XCTAssertEqual(files, ["3.archive", "journal"])
        XCTAssertEqual(writer.takeFailures(), [])
        let again = store()
        XCTAssertEqual(texts(again), ["three", large, "two", "one"])
        XCTAssertEqual(again.entries, history.entries, "every field: types, preview, source, digest")
    }

    func testPastWhatTheJournalHoldsInAllASmallCopyGetsAFileOfItsOwn() throws {
        let writer = BackgroundWriter()
        let history = store(entries: 3, writer: writer, inlineTotal: 1000)
        let line = { (n: Int) in String(repeating: "\(n)", count: 250) }
        var placements: [HistoryStore.Placement?] = []
        for n in 1...6 { placements.append(history.add(try text(line(n)), pasteboard: .general, time: Int64(n))) }
        // Each archive is about 300 bytes: three fit in 1,000; the fourth has a file; the fifth and sixth push the
        // first two out, so there is room again.
        XCTAssertEqual(placements.map { $0 == .journal }, [true, true, true, false, true, true])
        writer.drain()
        XCTAssertEqual(files, ["4.archive", "journal"])
        XCTAssertEqual(texts(store(entries: 3, inlineTotal: 1000)), [line(6), line(5), line(4)])
    }

    /// A journal the writer cannot append to (here a directory stands where it should be) is written whole again at
    /// the next change once it can be: what could not be read back is gone, the newest copy is kept.
    func testAJournalWhoseWriteFailedIsWrittenWholeAgainWithTheNewestCopy() throws {
        let writer = BackgroundWriter()
        let history = store(writer: writer)
        let journal = directory + "/journal"
        history.add(try text("one"), pasteboard: .general, time: 1)
        writer.drain()
        try FileSystem.removeFile(journal)
        try FileSystem.createDirectory(journal, mode: 0o700, intermediate: false)
        history.add(try text("two"), pasteboard: .general, time: 2)
        writer.drain()
        XCTAssertTrue(writer.isBroken(journal))
        history.add(try text("three"), pasteboard: .general, time: 3)
        writer.drain()
        XCTAssertTrue(writer.isBroken(journal), "the whole write cannot replace a directory either")
        try FileManager.default.removeItem(atPath: journal)
        history.add(try text("four"), pasteboard: .general, time: 4)
        writer.drain()
        XCTAssertFalse(writer.isBroken(journal))
        XCTAssertEqual(texts(history), ["four"], "what no longer reads back is dropped, not listed unreadable")
        XCTAssertEqual(texts(store()), ["four"])
        XCTAssertFalse(writer.takeFailures().isEmpty, "each failure reported, for the log")
    }

    func testWithoutAHistoryNothingIsWrittenForIt() throws {
        let writer = BackgroundWriter()
        let history = store(entries: 0, writer: writer)
        XCTAssertNil(history.add(try text("not recorded"), pasteboard: .general, time: 1, keeping: true))
        writer.drain()
        XCTAssertEqual(files, [], "no journal, no archive: the caller keeps the clipboard in its own file")
    }

    func testATornLastFrameIsSkippedAndTheJournalWrittenWholeAgain() throws {
        let writer = BackgroundWriter()
        let history = store(writer: writer)
        history.add(try text("whole"), pasteboard: .general, time: 1)
        history.add(try text("torn"), pasteboard: .general, time: 2)
        writer.drain()
        let journal = directory + "/journal"
        let bytes = try FileSystem.readFile(journal, limit: 1 << 20)
        try FileSystem.removeFile(journal)
        try AtomicFile.write(bytes.dropLast(3), to: journal)
        let reloaded = store(writer: writer)
        XCTAssertEqual(texts(reloaded), ["whole"])
        writer.drain()
        let rewritten = HistoryJournal.read(try FileSystem.readFile(journal, limit: 1 << 20))
        XCTAssertEqual(rewritten.damagedBytes, 0, "the torn bytes are gone")
        reloaded.add(try text("after"), pasteboard: .general, time: 3)
        writer.drain()
        XCTAssertEqual(texts(store()), ["after", "whole"])
    }

    func testTheJournalStaysWithinTwiceWhatItHoldsAndOnlyTheNewestEntriesComeBack() throws {
        let writer = BackgroundWriter()
        let history = store(entries: 5, writer: writer)
        var largest = 0
        for n in 0..<2000 {
            history.add(try text("copy number \(n)"), pasteboard: .general, time: Int64(n), keeping: n % 2 == 0)
            if n % 100 == 99 {
                writer.drain()
                largest = max(largest, (try? FileSystem.status(directory + "/journal").size).map(Int.init) ?? 0)
            }
        }
        writer.drain()
        XCTAssertLessThan(largest, 80 << 10, "written whole again as it grows: 5 entries and 64 KiB of slack at most")
        XCTAssertEqual(files, ["journal"])
        let again = store(entries: 5)
        XCTAssertEqual(texts(again), (1995..<2000).reversed().map { "copy number \($0)" })
        XCTAssertEqual(again.keptID, again.entries[1].id, "the last copy that was kept")
    }

    /// Ids are the daemon's own, one after another from 1; a journal whose frames hold but name ids no daemon gave
    /// (a frame found inside another's bytes after damage, a hand-made file) must not stop it: those frames are read
    /// as damage, the others read, and the next copy gets an id after the last sane one.
    func testRecordsNamingIdsNoDaemonGivesAreSkippedAndTheHistoryGoesOn() throws {
        let archive = ContentArchive(pasteboard: .general, changeCount: 1, time: 1_700_000_000, content: try text("sane"))
        var sane = entry(7, "sane")
        sane.digest = HistoryStore.digest(of: try text("sane"))
        var insaneEntry = sane
        insaneEntry.id = .max
        var other = sane
        other.id = .max - 1
        for insane: [HistoryJournal.Record] in [[.next(.max)], [.entry(insaneEntry, archive: archive.encode())],
                                                [.next(.max - 1), .entry(other, archive: archive.encode()), .kept(.max - 1)]] {
            try? FileSystem.removeFile(directory + "/journal")
            let first = HistoryJournal.frame([.entry(sane, archive: archive.encode())], at: 0).bytes
            let bytes = first + HistoryJournal.frame(insane, at: first.count).bytes
            try AtomicFile.write(bytes, to: directory + "/journal")
            let writer = BackgroundWriter()
            let history = store(writer: writer)
            XCTAssertEqual(history.entries.map(\.id), [7], "\(insane)")
            XCTAssertNil(history.keptID)
            history.add(try text("next"), pasteboard: .general, time: 2)
            XCTAssertEqual(history.entries.map(\.id), [8, 7])
            writer.drain()
            XCTAssertEqual(texts(store()), ["next", "sane"])
        }
        // An older version's index likewise.
        try? FileSystem.removeFile(directory + "/journal")
        try AtomicFile.write(archive.encode(), to: directory + "/7.archive")
        try AtomicFile.write(archive.encode(), to: directory + "/18446744073709551615.archive")
        let index = "next\t18446744073709551615\n7\t1700000000\tCLIPBOARD\t4\t\(sane.digest)\tUTF8_STRING\tsane\n"
            + "18446744073709551615\t1700000001\tCLIPBOARD\t4\t\(sane.digest)\tUTF8_STRING\tsane\n"
        try AtomicFile.write(Array(index.utf8), to: directory + "/index")
        let writer = BackgroundWriter()
        let history = store(writer: writer)
        XCTAssertEqual(history.entries.map(\.id), [7])
        history.add(try text("after the index"), pasteboard: .general, time: 2)
        XCTAssertEqual(history.entries.map(\.id), [8, 7])
        writer.drain()
        XCTAssertEqual(texts(store()), ["after the index", "sane"])
    }

    /// A kept id whose entry's frame is gone (damaged) names an id already used: the next copy takes a later one,
    /// and is not read back as the kept clipboard after a restart.
    func testAKeptIdWithoutItsEntryIsNeverTakenByTheNextCopy() throws {
        try AtomicFile.write(HistoryJournal.frame([.kept(5)], at: 0).bytes, to: directory + "/journal")
        let writer = BackgroundWriter()
        let history = store(writer: writer)
        XCTAssertNil(history.keptID)
        history.add(try text("not kept"), pasteboard: .general, time: 1)
        XCTAssertEqual(history.entries.map(\.id), [6])
        writer.drain()
        let again = store()
        XCTAssertEqual(texts(again), ["not kept"])
        XCTAssertNil(again.keptID, "the copy after it is no kept clipboard")
    }

    /// Sizes are what each entry's record says: larger than the budget, or adding up past what an Int holds, they
    /// are weighed without overflowing, the entries that fit kept newest first.
    func testSizesNoCopyHasAreWeighedWithoutOverflowing() throws {
        let archive = ContentArchive(pasteboard: .general, changeCount: 1, time: 1_700_000_000, content: try text("sane"))
        var records: [HistoryJournal.Record] = []
        for (id, size) in [(1, UInt64.max), (2, UInt64(Int.max / 2 + 1)), (3, UInt64(Int.max / 2 + 1)), (4, 4)] as [(UInt64, UInt64)] {
            var each = entry(id, "sane")
            each.size = size
            each.digest = HistoryStore.digest(of: try text("sane"))
            records.append(.entry(each, archive: archive.encode()))
        }
        // A size past any Int is no copy's: its frame is read as damage, the others' entries weighed.
        let first = HistoryJournal.frame([records[0]], at: 0).bytes
        try AtomicFile.write(first + HistoryJournal.frame(Array(records[1...]), at: first.count).bytes, to: directory + "/journal")
        let writer = BackgroundWriter()
        let everything = HistoryStore(directory: directory, keptArchive: keptPath, maximumEntries: 100, maximumBytes: .max,
                                      deduplicate: true, writer: writer)
        XCTAssertEqual(everything.entries.map(\.id), [4, 3], "the newest that fit in Int.max bytes; the one past any Int gone")
        writer.drain()
        XCTAssertEqual(store().entries.map(\.id), [4], "within 1 GiB")
    }

    /// Whatever a journal holds — frames of any records (ids, sizes and times at the ends of their ranges, archives
    /// that decode, that do not, or in files that are there or not), bytes between them, a frame cut short, a byte
    /// changed — the history loads within its limits, every entry's content is asked for without harm, the next copy
    /// takes an id after every other and is the newest, and a restart reads back exactly the same history. 400
    /// journals from a seed the test prints (`PB_TEST_SEED` replays it; a failure names its iteration).
    func testAnyJournalLoadsWithinItsLimitsAndTakesTheNextCopy() throws {
        var random = SeededGenerator.forTest("testAnyJournalLoadsWithinItsLimitsAndTakesTheNextCopy")
        let good = try (0..<4).map { ContentArchive(pasteboard: .general, changeCount: 1, time: 1_700_000_000, content: try text("copy \($0)")) }
        let ids: [UInt64] = [0, 1, 2, 3, 5, 8, 13, HistoryJournal.maximumID - 1, HistoryJournal.maximumID, HistoryJournal.maximumID + 1, .max]
        let sizes: [UInt64] = [0, 6, 1 << 20, UInt64(Int.max), UInt64(Int.max) + 1, .max]
        let times: [Int64] = [0, 1_700_000_000, .min, .max, -1]
        for iteration in 0..<400 {
            for name in files { try FileSystem.removeFile(directory + "/" + name) }
            var bytes: [UInt8] = []
            for _ in 0..<random.below(6) {
                var records: [HistoryJournal.Record] = []
                for _ in 0..<random.below(5) {
                    switch random.below(4) {
                    case 0: records.append(.next(ids[random.below(ids.count)]))
                    case 1: records.append(.drop(ids[random.below(ids.count)]))
                    case 2: records.append(.kept(random.below(3) == 0 ? nil : ids[random.below(ids.count)]))
                    default:
                        let which = random.below(good.count)
                        var each = entry(1, "copy \(which)")
                        each.id = ids[random.below(ids.count)]
                        each.size = random.below(2) == 0 ? 6 : sizes[random.below(sizes.count)]
                        each.time = times[random.below(times.count)]
                        each.digest = random.below(4) == 0 ? 1 : HistoryStore.digest(of: good[which].content)
                        each.pasteboard = random.below(3) == 0 ? .primary : .general
                        let archive: [UInt8]?
                        switch random.below(4) {
                        case 0: archive = nil
                            if random.below(2) == 0, each.id <= HistoryJournal.maximumID {
                                try AtomicFile.write(good[which].encode(), to: directory + "/\(each.id).archive")
                            }
                        case 1: archive = (0..<random.below(40)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
                        default: archive = good[which].encode()
                        }
                        records.append(.entry(each, archive: archive))
                    }
                }
                bytes += HistoryJournal.frame(records, at: bytes.count).bytes
                if random.below(4) == 0 { bytes += (0..<random.below(64)).map { _ in UInt8(truncatingIfNeeded: random.next()) } }
                if random.below(8) == 0 { bytes += HistoryJournal.magic }
            }
            if !bytes.isEmpty && random.below(4) == 0 { bytes.removeLast(random.below(min(bytes.count, 40)) + 1) }
            if !bytes.isEmpty && random.below(4) == 0 { bytes[random.below(bytes.count)] ^= UInt8(truncatingIfNeeded: random.next() | 1) }
            try AtomicFile.write(bytes, to: directory + "/journal")

            let limit = 1 + random.below(6), budget = random.below(2) == 0 ? Int.max : 1 << 20
            let writer = BackgroundWriter()
            let open = { HistoryStore(directory: self.directory, keptArchive: self.keptPath, maximumEntries: limit, maximumBytes: budget,
                                      deduplicate: true, writer: writer) }
            let history = open()
            let loaded = history.entries.map(\.id)
            XCTAssertEqual(Set(loaded).count, loaded.count, "iteration \(iteration): an id twice")
            XCTAssertLessThanOrEqual(loaded.count, limit, "iteration \(iteration)")
            XCTAssertTrue(loaded.allSatisfy { $0 >= 1 && $0 <= HistoryJournal.maximumID }, "iteration \(iteration): \(loaded)")
            XCTAssertLessThanOrEqual(history.entries.reduce(UInt64(0)) { $0 + $1.size }, UInt64(budget), "iteration \(iteration)")
            if let kept = history.keptID { XCTAssertTrue(loaded.contains(kept), "iteration \(iteration): kept \(kept) is no entry") }
            var skipped: [SkippedRepresentation] = []
            for index in history.entries.indices { _ = history.content(at: index, skipped: &skipped) }

            history.add(try text("the next copy \(iteration)"), pasteboard: .general, time: 1, keeping: random.below(2) == 0)
            let after = history.entries.map(\.id)
            XCTAssertEqual(after.first.map { id in loaded.allSatisfy { $0 < id } }, true, "iteration \(iteration): \(after) after \(loaded)")
            writer.drain()
            let again = open()
            XCTAssertEqual(again.entries.map(\.id), after, "iteration \(iteration): the restart reads back the same history")
            XCTAssertEqual(texts(again).first, "the next copy \(iteration)", "iteration \(iteration)")
            XCTAssertEqual(again.keptID, history.keptID, "iteration \(iteration)")
            writer.drain()
        }
    }

    func testAnOlderVersionsIndexIsReadAndTakenOverByTheJournal() throws {
        let archive = ContentArchive(pasteboard: .general, changeCount: 4, time: 1_700_000_000, content: try text("from before"))
        try AtomicFile.write(archive.encode(), to: directory + "/3.archive")
        let index = "next\t5\n3\t1700000000\tCLIPBOARD\t11\t\(HistoryStore.digest(of: try text("from before")))\tUTF8_STRING%20x\tfrom before\txterm\t42\n"
            + "4\t1700000001\tCLIPBOARD\t3\t9\tUTF8_STRING\tits archive is gone\n"
        try AtomicFile.write(Array(index.utf8), to: directory + "/index")
        try AtomicFile.write([1], to: directory + "/9.archive")
        let writer = BackgroundWriter()
        let history = store(writer: writer)
        XCTAssertEqual(history.entries.map(\.preview), ["from before"], "an entry without its archive is dropped")
        XCTAssertEqual(history.entries.first?.types, ["UTF8_STRING x"])
        XCTAssertEqual(history.entries.first?.source, ContentSource(application: "xterm", processID: 42))
        XCTAssertEqual(texts(history), ["from before"])
        history.add(try text("new"), pasteboard: .general, time: 2)
        XCTAssertEqual(history.entries.first?.id, 5, "ids go on from the index's")
        writer.drain()
        XCTAssertEqual(files, ["3.archive", "journal"], "the index and the archive no entry names are gone")
        XCTAssertEqual(texts(store()), ["new", "from before"])
    }

    func testTheKeptEntryIsWrittenOutBeforeItLeavesTheHistory() throws {
        let kept = keptPath
        let writer = BackgroundWriter()
        let history = store(entries: 2, writer: writer)
        XCTAssertEqual(history.add(try text("the clipboard"), pasteboard: .general, time: 1, keeping: true), .journal)
        history.add(try text("a primary"), pasteboard: .primary, time: 2)
        writer.drain()
        XCTAssertFalse(FileManager.default.fileExists(atPath: kept))
        var skipped: [SkippedRepresentation] = []
        XCTAssertEqual(store(entries: 2).keptArchive(skipped: &skipped)?.content.items.first?.representations.first?.data,
                       Array("the clipboard".utf8))
        history.add(try text("another primary"), pasteboard: .primary, time: 3)
        writer.drain()
        XCTAssertNil(history.keptID)
        let archive = try ContentArchive.decode(try FileSystem.readFile(kept, limit: 1 << 20), skipped: &skipped)
        XCTAssertEqual(archive.content.items.first?.representations.first?.data, Array("the clipboard".utf8))
        XCTAssertNil(store(entries: 2).keptArchive(skipped: &skipped), "the journal no longer says so")
    }
}
