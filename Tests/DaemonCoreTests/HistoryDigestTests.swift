// SPDX-License-Identifier: Apache-2.0
@testable import DaemonCore
import PasteboardCore
import SystemSupport
import XCTest

/// De-duplication sees every byte: the same copy twice is one history entry, and a copy that differs from
/// the newest in any one byte — in any lane of the digest's 32-byte blocks, in the words left after them or
/// in the tail — or only in the order of its words, or in where one representation ends and the next begins,
/// is a new entry.
final class HistoryDigestTests: XCTestCase {
    private func history() -> HistoryStore {
        HistoryStore(directory: nil, maximumEntries: 100, maximumBytes: 1 << 30, deduplicate: true, writer: BackgroundWriter())
    }

    private func content(_ representations: [(String, [UInt8])]) throws -> PasteboardContent {
        PasteboardContent(items: [try PasteboardItem(representations.map { (type: PasteboardType($0.0), data: $0.1) })])
    }

    func testTheSameCopyTwiceIsOneEntry() throws {
        let h = history()
        let bytes = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        h.add(try content([("text/html", bytes)]), pasteboard: .general, time: 1)
        h.add(try content([("text/html", bytes)]), pasteboard: .general, time: 2)
        XCTAssertEqual(h.entries.count, 1)
    }

    func testAnyOneByteChangedIsANewEntry() throws {
        // 1,000 bytes: 31 blocks of 32, one word left after them, a 0-byte tail; 1,003 adds a tail of 3.
        for count in [1000, 1003] {
            let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7) }
            let original = HistoryStore.digest(of: try content([("text/html", bytes)]))
            for index in 0..<count {
                var changed = bytes
                changed[index] ^= 0x20
                XCTAssertNotEqual(HistoryStore.digest(of: try content([("text/html", changed)])), original,
                                  "byte \(index) of \(count)")
            }
        }
    }

    func testWordsInAnotherOrderOrBytesMovedBetweenRepresentationsAreANewEntry() throws {
        let a = Array(repeating: UInt8(ascii: "a"), count: 8), b = Array(repeating: UInt8(ascii: "b"), count: 8)
        let block = a + b + a + a
        let swapped = b + a + a + a
        XCTAssertNotEqual(HistoryStore.digest(of: try content([("text/html", block + block)])),
                          HistoryStore.digest(of: try content([("text/html", swapped + block)])),
                          "two words swapped between lanes")
        XCTAssertNotEqual(HistoryStore.digest(of: try content([("text/html", block + swapped)])),
                          HistoryStore.digest(of: try content([("text/html", swapped + block)])),
                          "two blocks swapped")
        XCTAssertNotEqual(HistoryStore.digest(of: try content([("text/html", block + a), ("text/plain", b)])),
                          HistoryStore.digest(of: try content([("text/html", block), ("text/plain", a + b)])),
                          "the same bytes split otherwise between two representations")
        let h = history()
        h.add(try content([("text/html", block + swapped)]), pasteboard: .general, time: 1)
        h.add(try content([("text/html", swapped + block)]), pasteboard: .general, time: 2)
        XCTAssertEqual(h.entries.count, 2)
    }
}
