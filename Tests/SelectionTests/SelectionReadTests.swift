// SPDX-License-Identifier: Apache-2.0
import Selection
import XCTest
import XTypes

/// The requestor state machine every reader drives: one policy for refusals, caps, INCR and its drains.
final class SelectionReadTests: XCTestCase {
    let incr = Atom(90), target = Atom(50), property = Atom(60), reply = Atom(61), utf8 = Atom(70)

    func read(cap: Int = 100) -> SelectionRead {
        SelectionRead(target: target, property: property, cap: cap, incrAtom: incr)
    }

    func value(_ bytes: [UInt8], type: Atom? = nil) -> PropertyRead {
        PropertyRead(value: PropertyValue(type: type ?? utf8, bytes: bytes), bytesAfter: 0)
    }

    func testARefusalFinishesAtOnce() {
        var read = read()
        XCTAssertEqual(read.notified(property: .none), .finished(.failure(.refused)))
        XCTAssertTrue(read.isFinished)
    }

    func testAValueInOnePropertyIsReadWithDeleteAndKeptWithItsType() {
        var read = read()
        XCTAssertEqual(read.notified(property: reply), .readProperty(maximumBytes: 101), "one byte over the cap, to see an overflow")
        XCTAssertEqual(read.replyProperty, reply, "the property the owner named")
        XCTAssertEqual(read.replyRead(value(Array("hello".utf8))), .finished(.success(PropertyValue(type: utf8, bytes: Array("hello".utf8)))))
    }

    func testAPropertyOverTheCapIsDeletedUnread() {
        var read = read(cap: 4)
        _ = read.notified(property: reply)
        XCTAssertEqual(read.replyRead(PropertyRead(value: PropertyValue(type: utf8, bytes: [1, 2, 3, 4, 5]), bytesAfter: 7)), .deleteProperty)
        XCTAssertEqual(read.overCapFailure, .tooLarge(cap: 4, size: nil))
    }

    func testIncrIsFollowedChunkByChunkToItsEmptyEnd() {
        var read = read()
        _ = read.notified(property: reply)
        XCTAssertEqual(read.replyRead(PropertyRead(value: PropertyValue(type: incr, longs: [10]), bytesAfter: 0)), .wait)
        XCTAssertTrue(read.isTransferring)
        XCTAssertEqual(read.chunkArrived(), .readProperty(maximumBytes: read.chunkReadLimit))
        XCTAssertEqual(read.replyRead(value([1, 2, 3, 4, 5, 6])), .wait)
        XCTAssertEqual(read.replyRead(value([7, 8, 9, 10])), .wait)
        XCTAssertEqual(read.replyRead(value([])), .finished(.success(PropertyValue(type: utf8, bytes: Array(1...10)))))
    }

    func testAChunkLargerThanTheReadLimitIsReadInPiecesToItsEnd() {
        var read = SelectionRead(target: target, property: property, cap: 100, incrAtom: incr, chunkReadLimit: 8)
        _ = read.notified(property: reply)
        _ = read.replyRead(PropertyRead(value: PropertyValue(type: incr, longs: [20]), bytesAfter: 0))
        // A 20-byte chunk: 8 bytes and 12 after them, 8 and 4 after, then the last 4 (the server deletes it then).
        XCTAssertEqual(read.chunkArrived(), .readProperty(offset: 0, maximumBytes: 8))
        XCTAssertEqual(read.replyRead(PropertyRead(value: PropertyValue(type: utf8, bytes: Array(1...8)), bytesAfter: 12)),
                       .readProperty(offset: 8, maximumBytes: 8))
        XCTAssertEqual(read.replyRead(PropertyRead(value: PropertyValue(type: utf8, bytes: Array(9...16)), bytesAfter: 4)),
                       .readProperty(offset: 16, maximumBytes: 8))
        XCTAssertEqual(read.replyRead(value(Array(17...20))), .wait, "the chunk is whole: wait for the next")
        XCTAssertEqual(read.chunkArrived(), .readProperty(offset: 0, maximumBytes: 8))
        XCTAssertEqual(read.replyRead(value([])), .finished(.success(PropertyValue(type: utf8, bytes: Array(1...20)))))

        // Drained, a chunk's pieces are read too: the property is deleted only when its end is read.
        var drained = SelectionRead(target: target, property: property, cap: 4, incrAtom: incr, chunkReadLimit: 8)
        _ = drained.notified(property: reply)
        _ = drained.replyRead(PropertyRead(value: PropertyValue(type: incr, longs: [20]), bytesAfter: 0))
        _ = drained.chunkArrived()
        XCTAssertEqual(drained.replyRead(PropertyRead(value: PropertyValue(type: utf8, bytes: Array(1...8)), bytesAfter: 12)),
                       .readProperty(offset: 8, maximumBytes: 8))
        XCTAssertEqual(drained.replyRead(PropertyRead(value: PropertyValue(type: utf8, bytes: Array(9...16)), bytesAfter: 4)),
                       .readProperty(offset: 16, maximumBytes: 8))
        XCTAssertEqual(drained.replyRead(value(Array(17...20))), .wait)
        _ = drained.chunkArrived()
        XCTAssertEqual(drained.replyRead(value([])), .finished(.failure(.tooLarge(cap: 4, size: 20))))
    }

    func testAnIncrAnnouncedOverTheCapIsDrainedToItsEndThenReported() {
        var read = read(cap: 8)
        _ = read.notified(property: reply)
        XCTAssertEqual(read.replyRead(PropertyRead(value: PropertyValue(type: incr, longs: [1000]), bytesAfter: 0)), .wait)
        XCTAssertEqual(read.phase, .draining(.tooLarge(cap: 8, size: 1000)))
        for _ in 0..<5 {
            XCTAssertEqual(read.chunkArrived(), .readProperty(maximumBytes: read.chunkReadLimit), "every chunk is read (and deleted) so the owner goes on")
            XCTAssertEqual(read.replyRead(value([UInt8](repeating: 1, count: 200))), .wait)
        }
        XCTAssertEqual(read.replyRead(value([])), .finished(.failure(.tooLarge(cap: 8, size: 1000))), "reported only at the end")
    }

    func testAnIncrThatOutgrowsTheCapOrChangesTypeOrFormatIsDrained() {
        var growing = read(cap: 8)
        _ = growing.notified(property: reply)
        _ = growing.replyRead(PropertyRead(value: PropertyValue(type: incr, longs: [4]), bytesAfter: 0))
        XCTAssertEqual(growing.replyRead(value([UInt8](repeating: 0, count: 9))), .wait)
        XCTAssertEqual(growing.phase, .draining(.tooLarge(cap: 8, size: nil)), "xclip announces no size: the cap is checked as chunks come")

        var retyped = read()
        _ = retyped.notified(property: reply)
        _ = retyped.replyRead(PropertyRead(value: PropertyValue(type: incr, longs: [4]), bytesAfter: 0))
        _ = retyped.replyRead(value([1]))
        _ = retyped.replyRead(value([2], type: Atom(71)))
        XCTAssertEqual(retyped.phase, .draining(.malformed("a chunk changed the type")))

        var wide = read()
        _ = wide.notified(property: reply)
        _ = wide.replyRead(PropertyRead(value: PropertyValue(type: incr, longs: [4]), bytesAfter: 0))
        _ = wide.replyRead(PropertyRead(value: PropertyValue(type: utf8, longs: [1, 2]), bytesAfter: 0))
        XCTAssertEqual(wide.replyRead(value([])), .finished(.failure(.malformed("a chunk came with format 32, not 8"))),
                       "never kept with a hole in it")
    }

    /// A driver that keeps a large value elsewhere moves each chunk out: the read then holds only what came since,
    /// counts everything (the cap included) and finishes with the rest; one that cannot keep it drains the transfer.
    func testChunksMovedOutAreTheDriversAndStillCountTowardsTheCap() {
        var read = read(cap: 12)
        _ = read.notified(property: reply)
        _ = read.replyRead(PropertyRead(value: PropertyValue(type: incr, longs: [0]), bytesAfter: 0))
        var outside: [UInt8] = []
        read.moveOutReceived { outside += $0 }
        XCTAssertEqual(outside, [], "nothing came yet")
        _ = read.chunkArrived()
        XCTAssertEqual(read.replyRead(value([1, 2, 3, 4, 5])), .wait)
        XCTAssertEqual(read.receivedType, utf8)
        read.moveOutReceived { outside += $0 }
        XCTAssertEqual([read.movedOutCount, read.receivedCount], [5, 5])
        _ = read.chunkArrived()
        XCTAssertEqual(read.replyRead(value([6, 7, 8])), .wait)
        var held: [UInt8] = []
        read.withReceived(5..<8) { held += $0 }
        XCTAssertEqual(held, [6, 7, 8], "what came after the move, where the read holds it")
        struct Refused: Error {}
        XCTAssertThrowsError(try read.moveOutReceived { _ in throw Refused() })
        XCTAssertEqual(read.movedOutCount, 5, "a move that throws moves nothing")
        read.moveOutReceived { outside += $0 }
        XCTAssertEqual(outside, Array(1...8))
        _ = read.chunkArrived()
        XCTAssertEqual(read.replyRead(value([9])), .wait)
        XCTAssertEqual(read.replyRead(value([])), .finished(.success(PropertyValue(type: utf8, bytes: [9]))), "the rest")

        var over = self.read(cap: 6)
        _ = over.notified(property: reply)
        _ = over.replyRead(PropertyRead(value: PropertyValue(type: incr, longs: [0]), bytesAfter: 0))
        _ = over.chunkArrived()
        _ = over.replyRead(value([1, 2, 3, 4]))
        over.moveOutReceived { _ in }
        _ = over.chunkArrived()
        _ = over.replyRead(value([5, 6, 7]))
        XCTAssertEqual(over.phase, .draining(.tooLarge(cap: 6, size: nil)), "bytes moved out count towards the cap")

        var stopped = self.read()
        _ = stopped.notified(property: reply)
        _ = stopped.replyRead(PropertyRead(value: PropertyValue(type: incr, longs: [0]), bytesAfter: 0))
        _ = stopped.chunkArrived()
        _ = stopped.replyRead(value([1, 2]))
        stopped.drainInstead("cannot write it")
        _ = stopped.chunkArrived()
        XCTAssertEqual(stopped.replyRead(value([3])), .wait, "the rest is read and thrown away")
        XCTAssertEqual(stopped.replyRead(value([])), .finished(.failure(.abandoned("cannot write it"))))
    }

    func testADuplicateNotifyDuringATransferIsIgnored() {
        var read = read()
        _ = read.notified(property: reply)
        _ = read.replyRead(PropertyRead(value: PropertyValue(type: incr, longs: [4]), bytesAfter: 0))
        XCTAssertEqual(read.notified(property: reply), .wait, "xsel notifies again at the end of INCR")
        XCTAssertTrue(read.isTransferring)
    }

    func testTimingOutAndAbandoningEndTheRead() {
        var silent = read()
        XCTAssertEqual(silent.timedOut(), .timedOut)
        XCTAssertTrue(silent.isFinished)
        var endless = read()
        _ = endless.notified(property: reply)
        _ = endless.replyRead(PropertyRead(value: PropertyValue(type: incr, longs: [4]), bytesAfter: 0))
        XCTAssertEqual(endless.abandon("too long"), .abandoned("too long"))
        XCTAssertEqual(endless.chunkArrived(), .wait, "chunks after the end are not read")
    }
}
