// SPDX-License-Identifier: Apache-2.0
import SystemSupport
import XCTest

/// File changes handed to the writer land in the order given, whole, and can be read back before they do.
final class BackgroundWriterTests: XCTestCase {
    func testChangesLandInOrderAndDrainWaitsForThem() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let writer = BackgroundWriter()
        let big = [UInt8](repeating: 7, count: 4 << 20)
        for round in 0..<20 {
            writer.submit(.write(path: dir.file("a"), bytes: big, mode: 0o600))
            writer.submit(.remove(path: dir.file("a")))
            writer.submit(.write(path: dir.file("a"), bytes: Array("round \(round)".utf8), mode: 0o600))
            writer.submit(.write(path: dir.file("b.archive"), bytes: [1, 2, 3], mode: 0o600))
        }
        writer.submit(.sweep(directory: dir.path, suffixes: [".archive"]))
        writer.drain()
        XCTAssertEqual(writer.pendingCount, 0)
        XCTAssertEqual(try FileSystem.readFile(dir.file("a"), limit: 1 << 20), Array("round 19".utf8), "the last write wins")
        XCTAssertFalse(FileSystem.fileExists(dir.file("b.archive")), "the sweep came after the writes it follows")
        XCTAssertEqual(try FileSystem.listDirectory(dir.path), ["a"], "no temporary file left")
        XCTAssertEqual(try FileSystem.status(dir.file("a")).permissions, 0o600)
        XCTAssertEqual(writer.takeFailures(), [])
    }

    func testQueuedBytesAreVisibleUntilWrittenAndFailuresAreReported() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let writer = BackgroundWriter()
        // A slow first change keeps the later ones queued for a moment.
        writer.submit(.write(path: dir.file("slow"), bytes: [UInt8](repeating: 1, count: 32 << 20), mode: 0o600))
        writer.submit(.write(path: dir.file("x"), bytes: [1], mode: 0o600))
        writer.submit(.write(path: dir.file("x"), bytes: [2], mode: 0o600))
        let seen = writer.pendingBytes(for: dir.file("x"))
        XCTAssertTrue(seen == [2] || (seen == nil && (try? FileSystem.readFile(dir.file("x"), limit: 16)) == [2]),
                      "the newest queued bytes, or the file once written")
        writer.submit(.write(path: dir.path + "/missing-directory/y", bytes: [1], mode: 0o600))
        writer.drain()
        XCTAssertNil(writer.pendingBytes(for: dir.file("x")))
        let failures = writer.takeFailures()
        XCTAssertEqual(failures.count, 1)
        XCTAssertTrue(failures.first?.contains("missing-directory/y") == true, "\(failures)")
        XCTAssertEqual(writer.takeFailures(), [], "each failure is reported once")
    }

    func testAppendsLandAtTheirOffsetsAreReadBackFromTheQueueAndStopAfterAFailureUntilAWholeWrite() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let writer = BackgroundWriter()
        let journal = dir.file("journal")
        writer.submit(.write(path: dir.file("slow"), bytes: [UInt8](repeating: 1, count: 32 << 20), mode: 0o600))
        writer.submit(.append(path: journal, offset: 0, bytes: [1, 2, 3]))
        writer.submit(.append(path: journal, offset: 3, bytes: [4, 5]))
        let across = writer.bytes(of: journal, at: 1, count: 4)
        XCTAssertTrue(across == nil || across == [2, 3, 4, 5], "across two appends: neither holds it, only the file once written")
        XCTAssertEqual(writer.bytes(of: journal, at: 3, count: 2), [4, 5])
        writer.submit(.write(path: journal, bytes: [9, 9], mode: 0o600))
        XCTAssertEqual(writer.bytes(of: journal, at: 0, count: 2), [9, 9], "a queued whole write hides the appends before it")
        XCTAssertNil(writer.bytes(of: journal, at: 3, count: 2))
        writer.submit(.append(path: journal, offset: 2, bytes: [7]))
        writer.drain()
        XCTAssertEqual(try FileSystem.readFile(journal, limit: 16), [9, 9, 7])
        XCTAssertEqual(writer.bytes(of: journal, at: 1, count: 2), [9, 7], "from the file once written")
        XCTAssertEqual(try FileSystem.status(journal).permissions, 0o600)

        // An append that fails: the next is not made, until the file is written whole.
        let elsewhere = dir.path + "/later/journal"
        writer.submit(.append(path: elsewhere, offset: 0, bytes: [1]))
        writer.drain()
        XCTAssertTrue(writer.isBroken(elsewhere))
        try FileSystem.createDirectory(dir.path + "/later", mode: 0o700, intermediate: false)
        writer.submit(.append(path: elsewhere, offset: 1, bytes: [2]))
        writer.drain()
        XCTAssertFalse(FileSystem.fileExists(elsewhere), "not appended after the failure")
        writer.submit(.write(path: elsewhere, bytes: [1, 2], mode: 0o600))
        writer.submit(.append(path: elsewhere, offset: 2, bytes: [3]))
        writer.drain()
        XCTAssertFalse(writer.isBroken(elsewhere))
        XCTAssertEqual(try FileSystem.readFile(elsewhere, limit: 16), [1, 2, 3])
        XCTAssertEqual(writer.takeFailures().count, 2)
    }
}
