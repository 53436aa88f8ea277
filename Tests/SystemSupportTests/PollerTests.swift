// SPDX-License-Identifier: Apache-2.0
import SystemSupport
import XCTest

final class PollerTests: XCTestCase {
    func testReportsReadinessPerRequestInOrder() throws {
        let (readA, writeA) = try FileDescriptor.pipe(nonBlocking: true)
        let (readB, writeB) = try FileDescriptor.pipe(nonBlocking: true)
        defer { [readA, writeA, readB, writeB].forEach { try? $0.close() } }

        XCTAssertEqual(try Poller.wait([PollRequest(readA, .readable), PollRequest(readB, .readable)], timeoutMilliseconds: 0), [[], []])

        _ = try writeB.write([1])
        let events = try Poller.wait([PollRequest(readA, .readable), PollRequest(readB, .readable), PollRequest(writeA, .writable)], timeoutMilliseconds: nil)
        XCTAssertEqual(events, [[], .readable, .writable])
    }

    func testTimesOutWithEmptyResults() throws {
        let (readEnd, writeEnd) = try FileDescriptor.pipe()
        defer { try? readEnd.close(); try? writeEnd.close() }
        let clock = SystemClock()
        let start = clock.now()
        XCTAssertEqual(try Poller.wait([PollRequest(readEnd, .readable)], timeoutMilliseconds: 20), [[]])
        XCTAssertGreaterThanOrEqual(clock.now() - start, .milliseconds(19))
    }

    func testReportsHangupAndInvalidDescriptors() throws {
        let (readEnd, writeEnd) = try FileDescriptor.pipe()
        try writeEnd.close()
        let hangup = try Poller.wait([PollRequest(readEnd, .readable)], timeoutMilliseconds: 0)
        XCTAssertTrue(hangup[0].contains(.hangup))
        try readEnd.close()
        let invalid = try Poller.wait([PollRequest(readEnd, .readable)], timeoutMilliseconds: 0)
        XCTAssertEqual(invalid, [.invalid])
    }

    func testOneDescriptorAsTheArrayFormDoes() throws {
        let (readEnd, writeEnd) = try FileDescriptor.pipe(nonBlocking: true)
        defer { try? readEnd.close(); try? writeEnd.close() }
        XCTAssertEqual(try Poller.wait(PollRequest(readEnd, .readable), timeoutMilliseconds: 0), [])
        _ = try writeEnd.write([1])
        XCTAssertEqual(try Poller.wait(PollRequest(readEnd, .readable), timeoutMilliseconds: nil), .readable)
        XCTAssertEqual(try Poller.wait(PollRequest(writeEnd, .writable), timeoutMilliseconds: 0), .writable)
    }
}

final class ClockTests: XCTestCase {
    func testInstantArithmetic() {
        let start = MonotonicInstant(nanoseconds: 5_000_000_000)
        XCTAssertEqual((start + .milliseconds(1500)).nanoseconds, 6_500_000_000)
        XCTAssertEqual((start - .seconds(1)).nanoseconds, 4_000_000_000)
        XCTAssertEqual((start + .seconds(2)) - start, .seconds(2))
        XCTAssertEqual(start - (start + .seconds(2)), .seconds(-2))
        XCTAssertEqual((start - .seconds(10)).nanoseconds, 0, "saturates instead of trapping")
        XCTAssertGreaterThanOrEqual((start + .seconds(Int64.max)).nanoseconds, UInt64(Int64.max), "saturates instead of trapping")
        XCTAssertLessThan(start, start + .nanoseconds(1))
    }

    func testMillisecondsUntilRoundsUpSoPollDoesNotWakeEarly() {
        let now = MonotonicInstant(nanoseconds: 1_000_000_000)
        XCTAssertEqual(now.millisecondsUntil(now + .nanoseconds(1)), 1)
        XCTAssertEqual(now.millisecondsUntil(now + .milliseconds(5)), 5)
        XCTAssertEqual(now.millisecondsUntil(now + .microseconds(5001)), 6)
        XCTAssertEqual(now.millisecondsUntil(now), 0)
        XCTAssertEqual(now.millisecondsUntil(now - .seconds(1)), 0)
    }

    func testEarliestIsTheSmallestDeadlineAddedAndNilWhenNoneWas() {
        let now = MonotonicInstant(nanoseconds: 1_000_000_000)
        var earliest = Earliest()
        XCTAssertNil(earliest.value)
        earliest.add(nil as MonotonicInstant?)
        XCTAssertNil(earliest.value, "nil is no deadline")
        earliest.add(now + .seconds(5))
        earliest.add(now + .seconds(3))
        earliest.add(now + .seconds(9))
        earliest.add(nil)
        XCTAssertEqual(earliest.value, now + .seconds(3))
        earliest.add(now + .seconds(3))
        earliest.add(now + .seconds(1))
        XCTAssertEqual(earliest.value, now + .seconds(1))
    }

    func testDueEntriesAreThoseWhoseDeadlineCameInKeyOrder() {
        let now = MonotonicInstant(nanoseconds: 100_000_000_000)
        let deadlines: [Int: MonotonicInstant] = [7: now - .seconds(1), 3: now + .seconds(1), 5: now, 1: now - .seconds(9)]
        XCTAssertEqual(deadlines.due(by: now, deadline: { $0 }, ordered: <).map(\.key), [1, 5, 7], "a deadline of now has come")
        XCTAssertEqual(deadlines.due(by: now, deadline: { $0 }, ordered: >).map(\.key), [7, 5, 1])
        XCTAssertTrue(deadlines.due(by: now - .seconds(10), deadline: { $0 }, ordered: <).isEmpty, "none due yet")
        XCTAssertTrue([Int: MonotonicInstant]().due(by: now, deadline: { $0 }, ordered: <).isEmpty)
    }

    func testSystemClockNeverGoesBackwardsAndWallClockIsRecent() {
        let clock = SystemClock()
        let first = clock.now()
        XCTAssertLessThanOrEqual(first, clock.now())
        XCTAssertGreaterThan(WallClock.now, 1_700_000_000, "after November 2023")
    }
}
