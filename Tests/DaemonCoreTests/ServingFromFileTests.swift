// SPDX-License-Identifier: Apache-2.0
import ControlProtocol
@testable import DaemonCore
import Foundation
import PasteboardCore
import Synchronization
import SystemSupport
import TestSupport
import XCTest
import XTypes

/// Large content the daemon holds that is also on disk is served from its file, not from a copy in memory:
/// a pb copy and a foreign copy kept once their file is written, content restored at start, a history entry
/// copied back. Readers get the same bytes either way (X requestors through INCR, pb through the socket);
/// what is not on disk stays in memory; a file that fails to read refuses, and costs nothing else.
final class ServingFromFileTests: XCTestCase {
    let picture = PasteboardType("image/x-test-raw")
    /// Larger than `ContentArchive.servedFromFileAbove`, not a multiple of the INCR chunk.
    let big = (0..<(3 << 20) + 12_345).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 11) }
    let small = Array("a caption".utf8)

    private func copyBig(_ h: Harness, options: CopyOptions = []) throws -> UInt64 {
        let item = try PasteboardItem([Representation(type: picture, data: big), Representation(type: .utf8PlainText, data: small)])
        guard case .changeCount(_, let count)? = h.send(.setItems(pasteboard: "CLIPBOARD", items: [item], options: options)).first else {
            XCTFail("the copy was not answered with a count")
            return 0
        }
        return count
    }

    /// What the daemon serves for CLIPBOARD now.
    private func served(_ h: Harness) -> PasteboardContent? { h.engine.service.boards.board(named: .general)?.served?.content }

    func testACopyIsServedFromItsFileOnceWrittenAndPastesTheSameBytes() throws {
        let h = try Harness(keepState: true)
        _ = try copyBig(h)
        XCTAssertNil(served(h)?.source(for: picture), "served from memory until the file is written")
        h.finishWrites()
        let source = try XCTUnwrap(served(h)?.source(for: picture), "served from the file once written")
        XCTAssertEqual(source.count, big.count)
        XCTAssertNil(served(h)?.source(for: .utf8PlainText), "a small representation stays in memory")
        XCTAssertTrue(h.log.contains { $0.contains("serving CLIPBOARD (count 1) from") }, "\(h.log)")

        let paste = h.paste(picture.rawValue)
        XCTAssertEqual(paste.result??.bytes, big, "an X requestor gets every byte, through INCR from the file")
        XCTAssertEqual(h.paste("UTF8_STRING").text, "a caption")
        guard case .items(let items)? = h.send(.read(pasteboard: "CLIPBOARD", types: [picture.rawValue], display: ":99")).first else {
            return XCTFail("pb paste was not answered")
        }
        XCTAssertEqual(items.first?.data(for: picture), big, "pb paste gets the same bytes through the socket")
    }

    func testAForeignCopyIsKeptInItsFileAndServedFromThereOnceItsOwnerExits() throws {
        let h = try Harness(keepState: true)
        let owner = h.owner([(picture.rawValue, big), ("UTF8_STRING", small)])
        owner.own()
        h.settle()
        h.finishWrites()
        guard case .read(_, let kept)? = h.engine.manager.state.phase(of: .general) else { return XCTFail("nothing kept") }
        XCTAssertNotNil(kept.source(for: picture), "what the manager keeps for a takeover is the file's")
        owner.exit()
        h.advance(by: .zero)
        XCTAssertTrue(h.daemonOwns())
        XCTAssertNotNil(served(h)?.source(for: picture), "taken over and served from the file")
        XCTAssertEqual(h.paste(picture.rawValue).result??.bytes, big)
    }

    func testContentRestoredAtStartIsServedFromTheFile() throws {
        let directory = NSTemporaryDirectory() + "serving-from-file-" + UUID().uuidString
        do {
            let h = try Harness(keepState: true, directory: directory)
            _ = try copyBig(h)
            h.finishWrites()
        }
        let h = try Harness(keepState: true, directory: directory)
        XCTAssertTrue(h.daemonOwns(), "restored")
        XCTAssertNotNil(served(h)?.source(for: picture), "restored without reading the large bytes")
        XCTAssertEqual(h.paste(picture.rawValue).result??.bytes, big)
        XCTAssertEqual(h.paste("UTF8_STRING").text, "a caption")
    }

    func testAHistoryEntryCopiedBackIsServedFromItsFile() throws {
        let h = try Harness(keepState: true)
        _ = try copyBig(h)
        try h.copy([(.utf8PlainText, "something else")])
        h.finishWrites()
        XCTAssertNil(served(h)?.source(for: picture))
        XCTAssertEqual(h.send(.historyCopy(index: 1)).count, 1)
        XCTAssertNotNil(served(h)?.source(for: picture), "the entry's file serves it")
        XCTAssertEqual(h.paste(picture.rawValue).result??.bytes, big)
    }

    /// The temporary files in a harness's history directory (a copy being read into its file, not committed).
    private func incomingFiles(_ h: Harness) throws -> [String] {
        let directory = try XCTUnwrap(h.stateDirectory) + "/history"
        return ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasPrefix(".incoming") }
    }

    /// A foreign copy read early by INCR goes to its archive's file chunk by chunk as it comes: what the manager
    /// keeps is the file's before any write was asked for, the history's entry is that file committed (no second
    /// write of its bytes), and a restart restores exactly the owner's bytes from it.
    func testAForeignCopyReadByINCRGoesStraightToItsFileAndIsKeptFromThere() throws {
        let directory = NSTemporaryDirectory() + "incoming-x-" + UUID().uuidString
        let large = PasteboardType("application/x-large")
        do {
            let h = try Harness(keepState: true, directory: directory)
            let owner = h.owner([("UTF8_STRING", small), (large.rawValue, big)])
            owner.incrThreshold = 256 << 10
            owner.announcesSize = false
            owner.own()
            h.settle(waitForConversions: false)
            guard case .read(_, let kept)? = h.engine.manager.state.phase(of: .general) else { return XCTFail("nothing kept") }
            let source = try XCTUnwrap(kept.source(for: large), "kept in its file as it was read, before any write")
            XCTAssertEqual(source.count, big.count)
            XCTAssertTrue(try source.read(0..<big.count) == big, "the file holds exactly the owner's bytes")
            XCTAssertEqual(kept.data(for: .utf8String), small, "a small representation stays in memory")
            XCTAssertEqual(h.paste(large.rawValue).result??.bytes, big, "pasted from the live owner")
            h.finishWrites()
            XCTAssertEqual(try incomingFiles(h), [], "the file is committed under its name")
            guard case .items(let entry)? = h.send(.historyItem(index: 0)).first else { return XCTFail("the history has it") }
            XCTAssertTrue(entry.first?.data(for: large) == big, "the history's entry is the owner's bytes")
            owner.exit()
            h.advance(by: .zero)
            XCTAssertTrue(h.daemonOwns())
            XCTAssertEqual(h.paste(large.rawValue).result??.bytes, big, "taken over and served from the file")
            XCTAssertEqual(h.paste("UTF8_STRING").text, "a caption")
        }
        let h = try Harness(keepState: true, directory: directory)
        XCTAssertTrue(h.daemonOwns(), "restored")
        XCTAssertEqual(h.paste(large.rawValue).result??.bytes, big, "restored byte-exact from the committed file")
        XCTAssertEqual(h.paste("UTF8_STRING").text, "a caption")
    }

    /// An owner that stops sending midway: the target is left out when it times out, the rest of the copy kept, and
    /// the file the target was being read into is gone — nothing half-read is kept or left on disk.
    func testAnINCRReadIntoItsFileThatStopsMidwayLeavesNothingOfItBehind() throws {
        let h = try Harness(keepState: true)
        let owner = h.owner([("UTF8_STRING", small), ("application/x-large", big)])
        owner.incrThreshold = 256 << 10
        owner.pausesAfterChunks = 4
        owner.own()
        h.settle(waitForConversions: false)
        XCTAssertEqual(try incomingFiles(h).count, 1, "being read into its file")
        h.advance(by: .milliseconds(h.engine.configuration.ownerTimeoutMs))
        h.finishWrites()
        guard case .read(_, let kept)? = h.engine.manager.state.phase(of: .general) else { return XCTFail("the text is kept") }
        XCTAssertEqual(kept.types, [.utf8String], "the large target left out")
        XCTAssertEqual(try incomingFiles(h), [], "its file removed")
        XCTAssertTrue(h.log.contains { $0.contains("application/x-large") && $0.contains("did not answer") }, "\(h.log)")
    }

    func testWithoutAFileContentStaysInMemory() throws {
        var configuration = DaemonConfiguration()
        configuration.ramOnly = true
        let ramOnly = try Harness(configuration: configuration, keepState: true)
        _ = try copyBig(ramOnly)
        ramOnly.finishWrites()
        XCTAssertFalse(served(ramOnly)?.hasSources ?? true, "RAM-only: nothing on disk to serve from")
        XCTAssertEqual(ramOnly.paste(picture.rawValue).result??.bytes, big)

        let secret = try Harness(keepState: true)
        _ = try copyBig(secret, options: [.sensitive])
        secret.finishWrites()
        XCTAssertFalse(served(secret)?.hasSources ?? true, "secret content is never written, so never served from a file")
        XCTAssertEqual(secret.paste(picture.rawValue).result??.bytes, big)
    }

    func testAFileThatNoLongerReadsCutsThatTransferOffAndTheDaemonServesOn() throws {
        let h = try Harness(keepState: true)
        _ = try copyBig(h)
        h.finishWrites()
        let source = try XCTUnwrap(served(h)?.source(for: picture) as? ArchiveFileBytes)
        // Truncated in place (the daemon itself only ever replaces its files by rename).
        XCTAssertEqual(truncate(source.file.path, 100), 0)
        let paste = h.paste(picture.rawValue)
        XCTAssertNotEqual(paste.result??.bytes, big, "never other bytes passed off as the content")
        XCTAssertTrue(h.log.contains { $0.contains("could not be read from its file") }, "\(h.log)")
        XCTAssertFalse(h.log.contains { $0.contains("a caption") }, "never content in the log")
        XCTAssertEqual(h.paste("UTF8_STRING").text, "a caption", "the rest is still served")
        guard case .error? = h.send(.read(pasteboard: "CLIPBOARD", types: [picture.rawValue], display: ":99")).first else {
            return XCTFail("pb paste of what cannot be read is an error, not empty bytes")
        }
    }

    // MARK: - The archive read from its file

    /// Bytes left in a file are given where they are read, chunk-sized ranges through the one buffer the process
    /// reuses, larger ones on their own: the same bytes either way, and from several threads at once.
    func testBytesInAFileAreTheFilesWhateverTheRangeAndTheThread() throws {
        let path = NSTemporaryDirectory() + "archive-bytes-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: path) }
        let contents = (0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 13) }
        try Data(contents).write(to: URL(fileURLWithPath: path))
        let file = try OpenFile(readingAt: path)
        let source = ArchiveFileBytes(file: file, offset: 4_096, count: contents.count - 4_096)
        let expected = Array(contents[4_096...])
        for range in [0..<1, 1_000..<(1_000 + ArchiveFileBytes.scratchBytes), 0..<(ArchiveFileBytes.scratchBytes + 1), 0..<source.count] {
            var got: [UInt8] = []
            try source.withBytes(range) { got = Array($0) }
            XCTAssertTrue(got == Array(expected[range]), "\(range)")
        }
        let mismatches = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 8) { n in
            let range = (n * 200_000)..<(n * 200_000 + 700_000)
            for _ in 0..<20 {
                var same = false
                try? source.withBytes(range) { same = Array($0) == Array(expected[range]) }
                if !same { mismatches.withLock { $0 += 1 } }
            }
        }
        XCTAssertEqual(mismatches.withLock { $0 }, 0, "every thread got its own range's bytes")
    }

    /// A fetch answered with bytes kept in a file is that file as a final source — never its bytes read into
    /// memory — and a reader that needs the whole value (a peer) has it read from there; bytes in memory are given
    /// as they are.
    func testAFetchAnsweredFromAFileIsAFinalSourceReadWholeOnlyWhenAsked() throws {
        let path = NSTemporaryDirectory() + "fetched-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(big).write(to: URL(fileURLWithPath: path))
        let inFile = Representation(type: picture, source: ArchiveFileBytes(file: try OpenFile(readingAt: path), offset: 0, count: big.count))
        guard case .arriving(let source) = FetchResult(inFile) else { return XCTFail("a source, not bytes") }
        XCTAssertTrue(source.isFinal)
        XCTAssertEqual(source.count, big.count)
        XCTAssertTrue(source.kept?.source is ArchiveFileBytes, "the file's own bytes")
        var whole: FetchResult?
        FetchResult.arriving(source).whole { whole = $0 }
        XCTAssertEqual(whole, .data(big), "read whole from the file when a reader needs it all")
        XCTAssertEqual(FetchResult(Representation(type: .utf8String, data: small)), .data(small), "bytes in memory as they are")
    }

    func testAnArchiveOpenedFromItsFileIsTheArchiveDecodedFromItsBytes() throws {
        let content = PasteboardContent(items: [
            try PasteboardItem([Representation(type: picture, data: big), Representation(type: .utf8PlainText, data: small)]),
            try PasteboardItem([Representation(type: .html, data: Array("<p>two</p>".utf8))]),
        ])
        let bytes = ContentArchive(pasteboard: .general, changeCount: 9, time: 1_700_000_000, content: content).encode()
        let path = NSTemporaryDirectory() + "archive-" + UUID().uuidString
        try AtomicFile.write(bytes, to: path, mode: 0o600)
        var skipped: [SkippedRepresentation] = []
        let opened = try ContentArchive.open(try OpenFile(readingAt: path), skipped: &skipped)
        XCTAssertEqual(opened, try ContentArchive.decode(bytes, skipped: &skipped))
        XCTAssertNotNil(opened.content.source(for: picture))
        XCTAssertNil(opened.content.source(for: .html))

        // Replaced by rename, as the daemon replaces its files: what was opened keeps its bytes.
        try AtomicFile.write(Array("replaced".utf8), to: path, mode: 0o600)
        XCTAssertEqual(opened.content.data(for: picture), big)
    }

    func testEveryTruncationOfAnArchiveFailsTheSameWayFromItsFileAsFromItsBytes() throws {
        let content = PasteboardContent(items: [try PasteboardItem([Representation(type: .utf8PlainText, data: small),
                                                                     Representation(type: picture, data: Array(big.prefix(2 << 20)))])])
        let whole = ContentArchive(pasteboard: .general, changeCount: 1, time: 2, content: content).encode()
        let path = NSTemporaryDirectory() + "archive-" + UUID().uuidString
        var cuts = Array(0..<80)
        cuts += [whole.count - 1, whole.count - 100, whole.count / 2]
        for cut in cuts {
            let bytes = Array(whole.prefix(cut))
            try AtomicFile.write(bytes, to: path, mode: 0o600)
            var skipped: [SkippedRepresentation] = []
            let fromBytes = Result { try ContentArchive.decode(bytes, skipped: &skipped) }
            let fromFile = Result { try ContentArchive.open(try OpenFile(readingAt: path), skipped: &skipped) }
            switch (fromBytes, fromFile) {
            case (.failure(let a), .failure(let b)):
                XCTAssertEqual(String(describing: type(of: a)), String(describing: type(of: b)), "cut at \(cut)")
            default:
                XCTFail("cut at \(cut): \(fromBytes) from the bytes, \(fromFile) from the file")
            }
        }
        // A length that claims more than the file holds is refused before anything is read or allocated.
        var lying = whole
        let text = try XCTUnwrap(whole.firstRange(of: small), "the text's bytes are in the archive")
        lying[text.lowerBound - 1] = 0xFF   // the high byte of its u32 length
        try AtomicFile.write(lying, to: path, mode: 0o600)
        var skipped: [SkippedRepresentation] = []
        XCTAssertThrowsError(try ContentArchive.open(try OpenFile(readingAt: path), skipped: &skipped))
    }
}
