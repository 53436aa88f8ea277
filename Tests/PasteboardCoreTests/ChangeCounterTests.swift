// SPDX-License-Identifier: Apache-2.0
import PasteboardCore
import TestSupport
import XTypes
import XCTest

final class ChangeCounterTests: XCTestCase {
    func testOwnChangeCountsOnceAndItsEchoIsNotCounted() {
        var counter = ChangeCounter()
        XCTAssertEqual(counter.recordOwnChange(ownerIsUs: true, time: Timestamp(100)), 1)
        XCTAssertFalse(counter.observeOwnerChange(ownerIsUs: true, selectionTime: Timestamp(100)))
        XCTAssertEqual(counter.count, 1)
    }

    func testEchoIsRecognisedOnlyOnce() {
        var counter = ChangeCounter()
        _ = counter.recordOwnChange(ownerIsUs: true, time: Timestamp(100))
        XCTAssertFalse(counter.observeOwnerChange(ownerIsUs: true, selectionTime: Timestamp(100)))
        XCTAssertTrue(counter.observeOwnerChange(ownerIsUs: true, selectionTime: Timestamp(100)))
        XCTAssertEqual(counter.count, 2)
    }

    func testOwnClearCountsAndItsEchoIsNotCounted() {
        var counter = ChangeCounter(count: 7)
        XCTAssertEqual(counter.recordOwnChange(ownerIsUs: false, time: Timestamp(50)), 8)
        XCTAssertFalse(counter.observeOwnerChange(ownerIsUs: false, selectionTime: Timestamp(50)))
        XCTAssertEqual(counter.count, 8)
    }

    func testAnotherOwnerCountsOnce() {
        var counter = ChangeCounter()
        _ = counter.recordOwnChange(ownerIsUs: true, time: Timestamp(100))
        // Another client takes the selection at the same server time: not our echo.
        XCTAssertTrue(counter.observeOwnerChange(ownerIsUs: false, selectionTime: Timestamp(100)))
        XCTAssertEqual(counter.count, 2)
        XCTAssertTrue(counter.observeOwnerChange(ownerIsUs: false, selectionTime: Timestamp(200)))
        XCTAssertEqual(counter.count, 3)
    }

    func testSilentOwnChangeDoesNotCountNorDoesItsEcho() {
        var counter = ChangeCounter(count: 3)
        counter.recordSilentOwnChange(ownerIsUs: true, time: Timestamp(400))
        XCTAssertEqual(counter.count, 3)
        XCTAssertFalse(counter.observeOwnerChange(ownerIsUs: true, selectionTime: Timestamp(400)))
        XCTAssertEqual(counter.count, 3)
    }

    func testExternalChangeCounts() {
        var counter = ChangeCounter()
        XCTAssertEqual(counter.recordExternalChange(), 1)
        XCTAssertEqual(counter.recordExternalChange(), 2)
    }

    func testRaiseNeverLowers() {
        var counter = ChangeCounter(count: 10)
        counter.raise(toAtLeast: 4)
        XCTAssertEqual(counter.count, 10)
        counter.raise(toAtLeast: 25)
        XCTAssertEqual(counter.count, 25)
        XCTAssertEqual(counter.recordExternalChange(), 26, "counting continues from the raised value")
    }

    func testCountNeverRepeatsAValueOverRandomEvents() {
        for seed in UInt64(1)...20 {
            var random = SeededGenerator(seed: seed)
            var counter = ChangeCounter()
            var published: Set<UInt64> = [0]
            var last: UInt64 = 0
            var expected: UInt64 = 0
            var pendingEchoes: [(Bool, Timestamp)] = []
            for step in 0..<2_000 {
                let time = Timestamp(UInt32.random(in: 1...UInt32.max, using: &random))
                let before = counter.count
                var changed = false
                // Echoes arrive within milliseconds, so only a few are ever outstanding.
                let event = pendingEchoes.count >= 8 ? 2 : Int.random(in: 0..<7, using: &random)
                switch event {
                case 0:
                    let us = Bool.random(using: &random)
                    _ = counter.recordOwnChange(ownerIsUs: us, time: time)
                    pendingEchoes.append((us, time))
                    changed = true
                case 1:
                    let us = Bool.random(using: &random)
                    counter.recordSilentOwnChange(ownerIsUs: us, time: time)
                    pendingEchoes.append((us, time))
                case 2 where !pendingEchoes.isEmpty:
                    let (us, echoTime) = pendingEchoes.removeFirst()
                    XCTAssertFalse(counter.observeOwnerChange(ownerIsUs: us, selectionTime: echoTime),
                                   "seed \(seed) step \(step): our own echo counted")
                case 3:
                    changed = counter.observeOwnerChange(ownerIsUs: false, selectionTime: time)
                case 4:
                    _ = counter.recordExternalChange()
                    changed = true
                case 5:
                    let floor = UInt64.random(in: 0...(counter.count + 3), using: &random)
                    counter.raise(toAtLeast: floor)
                    changed = counter.count != before
                    if changed { expected = counter.count - 1 }
                default:
                    break
                }
                if changed { expected += 1 }
                XCTAssertGreaterThanOrEqual(counter.count, last, "seed \(seed) step \(step): went back")
                XCTAssertEqual(counter.count, expected, "seed \(seed) step \(step)")
                if counter.count != last {
                    XCTAssertTrue(published.insert(counter.count).inserted, "seed \(seed) step \(step): repeated")
                }
                last = counter.count
            }
        }
    }
}
