// SPDX-License-Identifier: Apache-2.0
import Selection
import XTypes
import XCTest

final class IncrSendTests: XCTestCase {
    func transfer(_ count: Int, chunkSize: Int) -> IncrSend {
        IncrSend(key: TransferKey(requestor: requestor, property: Atom(300)), type: htmlAtom,
                 data: (0..<count).map { UInt8(truncatingIfNeeded: $0) }, chunkSize: chunkSize)
    }

    /// Runs the transfer to its end, returning every step until (and including) `.writeEnd`.
    func drain(_ send: inout IncrSend, limit: Int = 10_000) -> [IncrSend.Step] {
        var steps: [IncrSend.Step] = []
        for _ in 0..<limit {
            let step = send.propertyDeleted()
            steps.append(step)
            if case .writeChunk = step { continue }
            break
        }
        return steps
    }

    func testHeaderIsIncrWithTheTotalSize() {
        let send = transfer(12_345, chunkSize: 1_000)
        XCTAssertEqual(send.header(incrAtom: standardAtoms.incr),
                       PropertyValue(type: standardAtoms.incr, longs: [12_345]))
    }

    func testExactMultipleOfChunkSize() {
        var send = transfer(8, chunkSize: 4)
        XCTAssertEqual(drain(&send), [.writeChunk(0..<4), .writeChunk(4..<8), .writeEnd])
        XCTAssertTrue(send.isComplete)
        XCTAssertEqual(send.chunksWritten, 2)
    }

    func testShortLastChunk() {
        var send = transfer(9, chunkSize: 4)
        XCTAssertEqual(drain(&send), [.writeChunk(0..<4), .writeChunk(4..<8), .writeChunk(8..<9), .writeEnd])
        XCTAssertEqual(send.chunksWritten, 3)
    }

    func testOneByte() {
        var send = transfer(1, chunkSize: 4)
        XCTAssertEqual(drain(&send), [.writeChunk(0..<1), .writeEnd])
    }

    func testEmptyDataEndsAtOnce() {
        var send = transfer(0, chunkSize: 4)
        XCTAssertFalse(send.isComplete)
        XCTAssertEqual(send.propertyDeleted(), .writeEnd)
        XCTAssertTrue(send.isComplete)
        XCTAssertEqual(send.chunksWritten, 0)
        XCTAssertEqual(send.propertyDeleted(), .done)
    }

    func testEndIsWrittenOnceThenDeletesAreIgnored() {
        var send = transfer(5, chunkSize: 5)
        XCTAssertEqual(send.propertyDeleted(), .writeChunk(0..<5))
        XCTAssertFalse(send.isComplete, "not complete until the zero-length end is written")
        XCTAssertEqual(send.propertyDeleted(), .writeEnd)
        for _ in 0..<3 { XCTAssertEqual(send.propertyDeleted(), .done) }
    }

    func testChunksReassembleTheDataForManySizes() throws {
        for (count, chunk) in [(1, 1), (2, 1), (100, 7), (100, 100), (100, 99), (100, 101), (4_097, 1_024)] {
            let data = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            for payload in [IncrSend.Payload.bytes(data), .source(ArraySource(data))] {
                var send = IncrSend(key: TransferKey(requestor: WindowID(7), property: Atom(300)), type: Atom(301),
                                    payload: payload, chunkSize: chunk)
                var reassembled: [UInt8] = []
                var chunks = 0
                loop: while true {
                    switch send.propertyDeleted() {
                    case .writeChunk(let range):
                        XCTAssertFalse(range.isEmpty)
                        XCTAssertLessThanOrEqual(range.count, chunk)
                        reassembled += try send.payload.withChunk(range) { Array($0) }
                        chunks += 1
                    case .writeEnd: break loop
                    case .done: XCTFail("done before writeEnd"); break loop
                    case .waitForMore: XCTFail("a final payload never waits"); break loop
                    }
                }
                XCTAssertEqual(reassembled, data, "\(count)/\(chunk)")
                XCTAssertEqual(chunks, (count + chunk - 1) / chunk, "\(count)/\(chunk)")
            }
        }
    }

    func testAChunkThatCannotBeReadThrowsAndTheTransferCanBeDropped() {
        var send = IncrSend(key: TransferKey(requestor: WindowID(7), property: Atom(300)), type: Atom(301),
                            payload: .source(ArraySource([1, 2, 3], failing: true)), chunkSize: 2)
        XCTAssertEqual(send.header(incrAtom: Atom(9)).atoms, [Atom(3)], "the header gives the source's size")
        guard case .writeChunk(let range) = send.propertyDeleted() else { return XCTFail("a chunk first") }
        XCTAssertThrowsError(try send.payload.withChunk(range) { Array($0) })
    }
}

/// Bytes that arrive while they are sent (`isFinal` false until `end()`), for the tests.
final class GrowingSource: ByteSource, @unchecked Sendable {
    var bytes: [UInt8] = []
    var ended = false
    let expectedCount: Int
    init(expecting: Int) { expectedCount = expecting }
    var count: Int { bytes.count }
    var isFinal: Bool { ended }
    func read(_ range: Range<Int>) throws -> [UInt8] { Array(bytes[range]) }
}

final class ArrivingPayloadTests: XCTestCase {
    /// A payload still arriving is sent as it grows, a whole chunk at a time: a requestor faster than the bytes
    /// waits (`waitForMore`), is written to as soon as a chunk's worth came (`bytesArrived`), gets the short rest
    /// and the end only once the payload is final, and the header announces what the payload expects.
    func testAPayloadStillArrivingIsSentAsItGrowsAndEndsOnlyWhenFinal() throws {
        let source = GrowingSource(expecting: 10)
        var send = IncrSend(key: TransferKey(requestor: WindowID(7), property: Atom(300)), type: Atom(301),
                            payload: .source(source), chunkSize: 4)
        XCTAssertEqual(send.header(incrAtom: Atom(9)).atoms, [Atom(10)], "the size expected, not the 0 bytes in so far")
        XCTAssertEqual(send.propertyDeleted(), .waitForMore, "nothing to write yet")
        source.bytes = [1, 2, 3]
        XCTAssertEqual(send.bytesArrived(), .waitForMore, "less than a chunk, and more may come")
        source.bytes += [4, 5]
        XCTAssertEqual(send.bytesArrived(), .writeChunk(0..<4), "a chunk's worth, at once")
        XCTAssertEqual(send.bytesArrived(), .waitForMore, "the requestor has not taken it yet")
        source.bytes += [6, 7, 8, 9]
        XCTAssertEqual(send.bytesArrived(), .waitForMore, "bytes came, but the requestor has not deleted the property")
        XCTAssertEqual(send.propertyDeleted(), .writeChunk(4..<8))
        XCTAssertEqual(send.propertyDeleted(), .waitForMore, "one byte left, and the payload is not final")
        source.ended = true
        XCTAssertEqual(send.bytesArrived(), .writeChunk(8..<9), "the rest once final")
        XCTAssertEqual(send.propertyDeleted(), .writeEnd)
        XCTAssertEqual(send.propertyDeleted(), .done)
        XCTAssertTrue(send.isComplete)
    }

    /// However the arrivals and the requestor's deletes interleave, the chunks reassemble the payload exactly.
    func testAnyInterleavingReassemblesThePayload() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let total = Int.random(in: 0...300, using: &generator)
            let data = (0..<total).map { UInt8(truncatingIfNeeded: $0 &* 13) }
            let source = GrowingSource(expecting: total)
            var send = IncrSend(key: TransferKey(requestor: WindowID(7), property: Atom(300)), type: Atom(301),
                                payload: .source(source), chunkSize: Int.random(in: 1...64, using: &generator))
            var received: [UInt8] = []
            var ended = false
            var steps = 0
            while !ended && steps < 10_000 {
                steps += 1
                let step: IncrSend.Step
                if Bool.random(using: &generator), !source.ended {
                    let more = min(Int.random(in: 0...40, using: &generator), total - source.bytes.count)
                    source.bytes += data[source.bytes.count..<(source.bytes.count + more)]
                    if source.bytes.count == total && Bool.random(using: &generator) { source.ended = true }
                    step = send.bytesArrived()
                } else {
                    step = send.propertyDeleted()
                }
                switch step {
                case .writeChunk(let range):
                    XCTAssertEqual(range.lowerBound, received.count)
                    received += try send.payload.withChunk(range) { Array($0) }
                case .writeEnd:
                    XCTAssertTrue(source.ended, "the end only once the payload is final")
                    ended = true
                case .done: XCTFail("done before the end")
                case .waitForMore: break
                }
                if source.bytes.count == total && !source.ended && Int.random(in: 0..<4, using: &generator) == 0 { source.ended = true }
            }
            XCTAssertTrue(ended)
            XCTAssertEqual(received, data)
        }
    }
}

/// Bytes in memory behind the `ByteSource` door, for the tests; `failing` makes every read throw.
final class ArraySource: ByteSource, @unchecked Sendable {
    struct ReadFailed: Error {}
    let bytes: [UInt8]
    let failing: Bool
    init(_ bytes: [UInt8], failing: Bool = false) { self.bytes = bytes; self.failing = failing }
    var count: Int { bytes.count }
    func read(_ range: Range<Int>) throws -> [UInt8] {
        if failing { throw ReadFailed() }
        return Array(bytes[range])
    }
}

final class IncrReceiveTests: XCTestCase {
    let type = standardAtoms.utf8String

    /// The sizes `IncrReceive` advised, in order (its hook runs on the test's thread).
    final class AdvisedSizes: @unchecked Sendable { var sizes: [Int] = [] }

    func testChunksAccumulateUntilZeroLength() {
        var receive = IncrReceive(cap: 100)
        XCTAssertEqual(receive.receive(type: type, bytes: Array("hel".utf8)), .needMore)
        XCTAssertEqual(receive.receive(type: type, bytes: Array("lo".utf8)), .needMore)
        XCTAssertEqual(receive.receive(type: type, bytes: []), .complete)
        XCTAssertEqual(receive.data, Array("hello".utf8))
        XCTAssertEqual(receive.type, type)
    }

    func testZeroLengthFirstChunkCompletesEmpty() {
        var receive = IncrReceive(cap: 100, sizeHint: 50)
        XCTAssertEqual(receive.receive(type: type, bytes: []), .complete)
        XCTAssertEqual(receive.data, [])
        XCTAssertNil(receive.type)
    }

    func testDataUpToTheCapIsAcceptedAndBeyondIsRefused() {
        var receive = IncrReceive(cap: 10, sizeHint: 1_000_000)
        XCTAssertEqual(receive.receive(type: type, bytes: [UInt8](repeating: 1, count: 6)), .needMore)
        XCTAssertEqual(receive.receive(type: type, bytes: [UInt8](repeating: 2, count: 4)), .needMore)
        XCTAssertEqual(receive.data.count, 10)
        XCTAssertEqual(receive.receive(type: type, bytes: [3]), .overCap)
        XCTAssertEqual(receive.data.count, 10, "the chunk over the cap is not kept")
    }

    /// A transfer of unknown size (xclip announces none) grows by doubling; each buffer of 2 MiB or more is
    /// advised before it is written, and the value comes out whole and in order.
    func testALargeTransferOfUnknownSizeGrowsIntoAdvisedBuffersAndStaysWhole() {
        let advised = AdvisedSizes()
        let cap = 40 << 20
        var receive = IncrReceive(cap: cap) { _, count in advised.sizes.append(count) }
        var expected: [UInt8] = []
        let chunk = 256 << 10
        for n in 0..<(20 << 20) / chunk {
            let bytes = (0..<chunk).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ n) }
            expected += bytes
            XCTAssertEqual(receive.receive(type: type, bytes: bytes), .needMore)
        }
        XCTAssertEqual(receive.receive(type: type, bytes: []), .complete)
        XCTAssertTrue(receive.data == expected, "the value is every chunk, in order")
        XCTAssertFalse(advised.sizes.isEmpty, "a 20 MiB value is grown into advised memory")
        XCTAssertTrue(advised.sizes.allSatisfy { $0 >= 2 << 20 && $0 <= cap }, "\(advised.sizes)")
        XCTAssertLessThanOrEqual(advised.sizes.count, 5, "doubling: a handful of buffers, not one per chunk: \(advised.sizes)")
        XCTAssertEqual(advised.sizes, advised.sizes.sorted())
    }

    func testAnAnnouncedSizeIsReservedInAdvisedMemoryOnce() {
        let advised = AdvisedSizes()
        var receive = IncrReceive(cap: 64 << 20, sizeHint: 3 << 20) { _, count in advised.sizes.append(count) }
        XCTAssertEqual(advised.sizes, [3 << 20])
        for _ in 0..<3 { XCTAssertEqual(receive.receive(type: type, bytes: [UInt8](repeating: 9, count: 1 << 20)), .needMore) }
        XCTAssertEqual(advised.sizes, [3 << 20], "what was announced needs no second buffer")
        XCTAssertEqual(receive.data.count, 3 << 20)
    }

    func testChunkOfAnotherTypeIsAMismatch() {
        var receive = IncrReceive(cap: 100)
        XCTAssertEqual(receive.receive(type: type, bytes: [1]), .needMore)
        XCTAssertEqual(receive.receive(type: standardAtoms.string, bytes: [2]), .typeMismatch)
        XCTAssertEqual(receive.data, [1])
        XCTAssertEqual(receive.type, type)
    }
}

extension IncrSend {
    /// Every byte the transfer sends, read through its payload (nil when a read fails).
    var sentBytes: [UInt8]? { try? payload.withChunk(0..<payload.count) { Array($0) } }
}
