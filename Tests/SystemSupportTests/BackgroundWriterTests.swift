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
}
