// SPDX-License-Identifier: Apache-2.0
import CLISupport
import XCTest

/// The progress line pb draws on a terminal: what it says, and when it is drawn (times given, no clock).
final class ProgressMeterTests: XCTestCase {
    func testSizesAreInBinaryUnitsWithOneDecimal() {
        XCTAssertEqual(ProgressMeter.size(0), "0 B")
        XCTAssertEqual(ProgressMeter.size(1023), "1023 B")
        XCTAssertEqual(ProgressMeter.size(1536), "1.5 KiB")
        XCTAssertEqual(ProgressMeter.size(64 << 20), "64.0 MiB")
        XCTAssertEqual(ProgressMeter.size((64 << 20) - 1), "63.9 MiB", "rounded down: never more than was done")
        XCTAssertEqual(ProgressMeter.size(3 << 30 + 512 << 20), "3.5 GiB")
    }

    func testTheLineSaysBytesSoFarOfTheTotalAndTheRate() {
        XCTAssertEqual(ProgressMeter.line(bytes: 16 << 20, total: 64 << 20, elapsed: .seconds(2)),
                       "16.0 MiB of 64.0 MiB (25 %), 8.0 MiB/s")
        XCTAssertEqual(ProgressMeter.line(bytes: 5 << 20, total: nil, elapsed: .milliseconds(2500)), "5.0 MiB, 2.0 MiB/s")
        XCTAssertEqual(ProgressMeter.line(bytes: 0, total: 0, elapsed: .zero), "0 B of 0 B (100 %)", "no rate before time passes")
    }

    func testNothingIsDrawnInTheFirstSecondNorForATransferThatEndsWithinIt() {
        var meter = ProgressMeter()
        XCTAssertNil(meter.update(bytes: 1 << 20, total: 64 << 20, elapsed: .milliseconds(999)))
        XCTAssertFalse(meter.hasDrawn)
        XCTAssertNil(meter.finish(bytes: 64 << 20, total: 64 << 20, elapsed: .milliseconds(999)), "a short transfer leaves no trace")
    }

    func testRedrawsAreAtMostTenASecondAndTheEndHasANewline() {
        var meter = ProgressMeter()
        let first = meter.update(bytes: 8 << 20, total: 64 << 20, elapsed: .seconds(1))
        XCTAssertEqual(first, "\r8.0 MiB of 64.0 MiB (12 %), 8.0 MiB/s\u{1B}[K")
        XCTAssertNil(meter.update(bytes: 9 << 20, total: 64 << 20, elapsed: .milliseconds(1050)), "within 100 ms of the last")
        XCTAssertNotNil(meter.update(bytes: 10 << 20, total: 64 << 20, elapsed: .milliseconds(1100)))
        var drawn = 0
        for step in 0..<1000 {   // one update per millisecond for a second: ten redraws
            if meter.update(bytes: 10 << 20, total: 64 << 20, elapsed: .milliseconds(1101 + step)) != nil { drawn += 1 }
        }
        XCTAssertEqual(drawn, 10)
        XCTAssertEqual(meter.finish(bytes: 64 << 20, total: 64 << 20, elapsed: .seconds(4)),
                       "\r64.0 MiB of 64.0 MiB (100 %), 16.0 MiB/s\u{1B}[K\n")
        XCTAssertNil(meter.finish(bytes: 64 << 20, total: 64 << 20, elapsed: .seconds(5)), "ended once")
    }
}
