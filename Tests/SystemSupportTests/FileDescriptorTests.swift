// SPDX-License-Identifier: Apache-2.0
import SystemSupport
import XCTest

final class FileDescriptorTests: XCTestCase {
    /// A file in `directory` holding `bytes`, opened for reading.
    func openFile(holding bytes: [UInt8], in directory: TemporaryDirectory) throws -> FileDescriptor {
        let path = directory.file("kept")
        let writer = try FileDescriptor.open(path, [.writeOnly, .create], mode: 0o600)
        try writer.writeAll(bytes)
        try writer.close()
        return try FileDescriptor.open(path, .readOnly)
    }

    func testPipeCarriesBytesAndReportsEndOfFile() throws {
        let (readEnd, writeEnd) = try FileDescriptor.pipe()
        defer { try? readEnd.close() }
        try writeEnd.writeAll([1, 2, 0, 255])
        try writeEnd.close()

        var buffer = [UInt8](repeating: 0, count: 16)
        let count = try buffer.withUnsafeMutableBytes { try readEnd.read(into: $0) }
        XCTAssertEqual(Array(buffer[0..<count]), [1, 2, 0, 255])
        let atEnd = try buffer.withUnsafeMutableBytes { try readEnd.read(into: $0) }
        XCTAssertEqual(atEnd, 0, "a closed writer reads as end of file")
    }

    func testSpliceMovesAFilesBytesIntoAPipeAsMuchAsFitsAndSaysWhenTheFileEnds() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let bytes = (0..<(300 << 10)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 9) }
        let file = try openFile(holding: bytes, in: directory)
        defer { try? file.close() }
        let (readEnd, writeEnd) = try FileDescriptor.pipe(nonBlocking: true)
        defer { try? readEnd.close(); try? writeEnd.close() }

        // From an offset, more than the pipe holds (64 KiB by default): some moves, then 0 while the pipe is full.
        let start = 1000
        var moved = 0
        while true {
            let now = try writeEnd.spliceSome(from: file, at: start + moved, count: bytes.count - start - moved)
            if now == 0 { break }
            moved += now
        }
        XCTAssertGreaterThan(moved, 0)
        XCTAssertLessThan(moved, bytes.count - start, "a full pipe takes no more")
        var got: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while got.count < moved {
            let count = try buffer.withUnsafeMutableBytes { try readEnd.read(into: $0) }
            got += buffer[0..<count]
        }
        XCTAssertTrue(got[...] == bytes[start..<(start + moved)], "the file's bytes from the offset, in order")
        XCTAssertThrowsError(try writeEnd.spliceSome(from: file, at: bytes.count, count: 10), "past the file's end") { error in
            guard case SystemError.unexpectedEndOfFile = error else { return XCTFail("\(error)") }
        }
    }

    /// A positioned read gives exactly the bytes asked for, into a new array or into memory the caller reuses, and
    /// says so when the file ends first (never a short read taken for the whole).
    func testPositionedReadsGiveExactlyTheBytesAskedForOrSayTheFileEnded() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let bytes = (0..<(200 << 10)).map { UInt8(truncatingIfNeeded: $0 &* 5 &+ $0 >> 8) }
        let file = try openFile(holding: bytes, in: directory)
        defer { try? file.close() }
        XCTAssertEqual(try file.read(count: 70_000, at: 100_001), Array(bytes[100_001..<170_001]))
        let room = UnsafeMutableRawBufferPointer.allocate(byteCount: 65_536, alignment: 16)
        defer { room.deallocate() }
        try file.read(filling: room, at: 3)
        XCTAssertEqual(Array(room), Array(bytes[3..<65_539]))
        try file.read(filling: UnsafeMutableRawBufferPointer(rebasing: room[0..<10]), at: bytes.count - 10)
        XCTAssertEqual(Array(room[0..<10]), Array(bytes.suffix(10)), "the same memory, reused")
        XCTAssertThrowsError(try file.read(filling: room, at: bytes.count - 100), "past the end") { error in
            XCTAssertTrue("\(error)".contains("100"), "says how much there was: \(error)")
        }
        XCTAssertThrowsError(try file.read(count: 101, at: bytes.count - 100))
    }

    func testEveryNewDescriptorIsCloseOnExec() throws {
        let (readEnd, writeEnd) = try FileDescriptor.pipe()
        defer { try? readEnd.close(); try? writeEnd.close() }
        XCTAssertTrue(try readEnd.isCloseOnExec)
        XCTAssertTrue(try writeEnd.isCloseOnExec)
        let copy = try readEnd.duplicate()
        defer { try? copy.close() }
        XCTAssertNotEqual(copy, readEnd)
        XCTAssertTrue(try copy.isCloseOnExec)

        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = try FileDescriptor.open(directory.file("f"), [.writeOnly, .create], mode: 0o600)
        defer { try? file.close() }
        XCTAssertTrue(try file.isCloseOnExec)
        XCTAssertFalse(file.isTerminal)
    }

    func testReadAvailableDistinguishesDataWouldBlockAndEndOfFile() throws {
        let (readEnd, writeEnd) = try FileDescriptor.pipe(nonBlocking: true)
        defer { try? readEnd.close() }
        XCTAssertTrue(try readEnd.isNonBlocking)
        XCTAssertEqual(try readEnd.readAvailable(max: 8), .wouldBlock)
        _ = try writeEnd.write(Array("hello, world".utf8))
        XCTAssertEqual(try readEnd.readAvailable(max: 5), .data(Array("hello".utf8)))
        XCTAssertEqual(try readEnd.readAvailable(max: 100), .data(Array(", world".utf8)))
        XCTAssertEqual(try readEnd.readAvailable(max: 100), .wouldBlock)
        try writeEnd.close()
        XCTAssertEqual(try readEnd.readAvailable(max: 100), .endOfFile)
    }

    /// A read that may bring up to 1 MiB holds the size of what came, not 1 MiB, whether from a pipe, a socket or a
    /// file; and what is there beyond what fits is read next.
    func testReadAvailableHoldsTheSizeOfWhatCameNotTheMostItMayBring() throws {
        let (readEnd, writeEnd) = try FileDescriptor.pipe(nonBlocking: true)
        defer { try? readEnd.close(); try? writeEnd.close() }
        _ = try writeEnd.write(Array("five!".utf8))
        guard case .data(let bytes) = try readEnd.readAvailable(max: 1 << 20) else { return XCTFail("the bytes") }
        XCTAssertEqual(bytes, Array("five!".utf8))
        XCTAssertLessThan(bytes.capacity, 4096, "sized by what was there")
        let big = [UInt8](repeating: 7, count: 40_000)
        try writeEnd.writeAll(big)
        XCTAssertEqual(try readEnd.readAvailable(max: 30_000), .data(Array(big[0..<30_000])), "at most max")
        XCTAssertEqual(try readEnd.readAvailable(max: 1 << 20), .data(Array(big[30_000...])), "then the rest")

        let (a, b) = try UnixSocket.pair(nonBlocking: true)
        defer { try? a.close(); try? b.close() }
        try a.writeAll(Array("over a socket".utf8))
        guard case .data(let viaSocket) = try b.readAvailable(max: 1 << 20) else { return XCTFail("the socket's bytes") }
        XCTAssertEqual(viaSocket, Array("over a socket".utf8))
        XCTAssertLessThan(viaSocket.capacity, 4096)
    }

    func testWriteSomeReturnsZeroWhenThePipeIsFull() throws {
        let (readEnd, writeEnd) = try FileDescriptor.pipe(nonBlocking: true)
        defer { try? readEnd.close(); try? writeEnd.close() }
        let chunk = [UInt8](repeating: 7, count: 65536)
        var total = 0
        var accepted = 1
        while accepted > 0 {
            accepted = try writeEnd.writeSome(chunk)
            total += accepted
            XCTAssertLessThan(total, 64 << 20, "a pipe buffer is not that large")
        }
        XCTAssertGreaterThan(total, 0)
        XCTAssertEqual(try writeEnd.writeSome(chunk, from: 65000), 0)
        // Draining makes room again.
        _ = try readEnd.readAvailable(max: 65536)
        XCTAssertGreaterThan(try writeEnd.writeSome(chunk), 0)
    }

    func testWriteToAClosedPipeThrowsBrokenPipe() throws {
        try Signals.ignore(.pipe)
        let (readEnd, writeEnd) = try FileDescriptor.pipe()
        defer { try? writeEnd.close() }
        try readEnd.close()
        XCTAssertThrowsError(try writeEnd.writeAll([1])) { error in
            XCTAssertEqual((error as? Errno)?.code, .brokenPipe)
        }
    }

    func testReadToEndStopsAtTheLimit() throws {
        let (readEnd, writeEnd) = try FileDescriptor.pipe()
        defer { try? readEnd.close() }
        try writeEnd.writeAll([UInt8](repeating: 1, count: 1000))
        try writeEnd.close()
        XCTAssertThrowsError(try readEnd.readToEnd(limit: 999)) { error in
            XCTAssertEqual(error as? SystemError, .limitExceeded(operation: "read(\(readEnd.rawValue))", limit: 999))
        }

        let (readEnd2, writeEnd2) = try FileDescriptor.pipe()
        defer { try? readEnd2.close() }
        try writeEnd2.writeAll([UInt8](repeating: 1, count: 1000))
        try writeEnd2.close()
        XCTAssertEqual(try readEnd2.readToEnd(limit: 1000).count, 1000)
    }

    func testDuplicateOntoATargetReplacesIt() throws {
        let (readA, writeA) = try FileDescriptor.pipe()
        let (readB, writeB) = try FileDescriptor.pipe()
        defer { [readA, writeA, readB, writeB].forEach { try? $0.close() } }
        try writeA.duplicate(as: writeB)
        try writeB.writeAll([42])
        XCTAssertEqual(try readA.readToEndAfterClosing(writers: [writeA, writeB]), [42])
    }

    func testErrnoDescribesTheOperationAndTheReason() {
        XCTAssertThrowsError(try FileDescriptor.open("/nonexistent/pasteboard", .readOnly)) { error in
            guard let errno = error as? Errno else { return XCTFail("\(error)") }
            XCTAssertEqual(errno.code, .noSuchFileOrDirectory)
            XCTAssertEqual(errno.description, "open(/nonexistent/pasteboard): No such file or directory (errno 2)")
            switch error {
            case Errno.Code.noSuchFileOrDirectory: break
            default: XCTFail("the pattern should match by code")
            }
        }
    }
}

extension FileDescriptor {
    /// Closes `writers`, then reads to the end.
    func readToEndAfterClosing(writers: [FileDescriptor]) throws -> [UInt8] {
        for writer in writers { try? writer.close() }
        return try readToEnd(limit: 1 << 20)
    }
}
