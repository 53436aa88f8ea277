// SPDX-License-Identifier: Apache-2.0
@testable import DaemonCore
import Foundation
import PasteboardCore
import SystemSupport
import XCTest

/// The counts file: written ahead by the lease, read back as the highest count of each pasteboard, and a file no
/// daemon wrote (a count at the end of UInt64's range, lines that are no count) never stops the daemon.
final class CountStoreTests: XCTestCase {
    private var directory = ""

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "counts-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    func testCountsAreWrittenAheadByTheLeaseAndExactlyAtAStop() throws {
        var store = CountStore(directory: directory)
        XCTAssertEqual(store.load(), [:])
        try store.record([.general: 1, .primary: 0])
        XCTAssertEqual(CountStore(directory: directory).loaded, [.general: 1 + CountStore.lease, .primary: CountStore.lease])
        try store.record([.general: 2, .primary: 0])
        XCTAssertEqual(store.saved[.general], 1 + CountStore.lease, "within the lease: not written again")
        try store.saveExactly([.general: 2, .primary: 0])
        XCTAssertEqual(CountStore(directory: directory).loaded, [.general: 2, .primary: 0])
    }

    func testAFileNoDaemonWroteLoadsWithinTheRangeAndCountsGoOn() throws {
        let text = "CLIPBOARD\t18446744073709551615\nPRIMARY\tnot a count\nno tab here\nSECONDARY\t7\nSECONDARY\t3\n"
        try AtomicFile.write(Array(text.utf8), to: directory + "/counts")
        var store = CountStore(directory: directory)
        let counts = store.load()
        XCTAssertEqual(counts[.general], CountStore.maximumCount, "held to the highest count a daemon reaches")
        XCTAssertNil(counts[.primary])
        XCTAssertEqual(counts[.named("SECONDARY")!], 7, "the highest of a pasteboard's lines")
        var counter = ChangeCounter(count: counts[.general]!)
        _ = counter.recordExternalChange()
        try store.record([.general: counter.count])
        XCTAssertEqual(CountStore(directory: directory).loaded[.general], counter.count + CountStore.lease)
    }
}

extension CountStore {
    /// What a fresh load of the file gives.
    fileprivate var loaded: [PasteboardName: UInt64] {
        var copy = self
        return copy.load()
    }
}
