// SPDX-License-Identifier: Apache-2.0
import SystemSupport
import XCTest

final class ChunkedBytesTests: XCTestCase {
    /// A value several chunks long, arriving through a pipe a pipe's worth at a time, comes back whole and in
    /// order, as one array of exactly its size.
    func testAValueOfManyChunksComesBackWholeAndInOrder() throws {
        let (readEnd, writeEnd) = try FileDescriptor.pipe(nonBlocking: true)
        defer { try? readEnd.close() }
        // Not a multiple of any chunk: the first chunk, two large ones and part of a third.
        let value = (0..<(ChunkedBytes.firstChunkBytes + 2 * ChunkedBytes.chunkBytes + 12_345)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 13) }
        let bytes = ChunkedBytes()
        XCTAssertEqual(try bytes.read(from: readEnd), .wouldBlock, "nothing written yet")
        var written = 0
        while written < value.count {
            written += try writeEnd.writeSome(value, from: written)
            while case .read(let count) = try bytes.read(from: readEnd) { XCTAssertGreaterThan(count, 0) }
        }
        try writeEnd.close()
        while case .read = try bytes.read(from: readEnd) {}
        XCTAssertEqual(try bytes.read(from: readEnd), .endOfFile)
        XCTAssertEqual(bytes.count, value.count)
        let taken = bytes.take()
        XCTAssertEqual(taken.count, value.count)
        XCTAssertTrue(taken == value, "the bytes as written, in order")
        XCTAssertEqual(bytes.count, 0, "taken: empty again")
        XCTAssertEqual(bytes.take(), [])
    }

    func testAReadTakesNoMoreThanItsLimit() throws {
        let (readEnd, writeEnd) = try FileDescriptor.pipe(nonBlocking: true)
        defer { try? readEnd.close(); try? writeEnd.close() }
        try writeEnd.writeAll(Array("hello, world".utf8))
        let bytes = ChunkedBytes()
        XCTAssertEqual(try bytes.read(from: readEnd, limit: 5), .read(5))
        XCTAssertEqual(bytes.count, 5)
        XCTAssertEqual(try bytes.read(from: readEnd, limit: 100), .read(7))
        XCTAssertEqual(try bytes.read(from: readEnd, limit: 100), .wouldBlock)
        XCTAssertEqual(bytes.take(), Array("hello, world".utf8))
    }

    func testNothingReadIsAnEmptyValue() throws {
        let (readEnd, writeEnd) = try FileDescriptor.pipe(nonBlocking: true)
        defer { try? readEnd.close() }
        try writeEnd.close()
        let bytes = ChunkedBytes()
        XCTAssertEqual(try bytes.read(from: readEnd), .endOfFile)
        XCTAssertEqual(bytes.take(), [])
    }
}
