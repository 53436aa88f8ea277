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

    /// A copy digested as its bytes pass, in pieces of any size (a pipe's reads), gives the digest of the whole:
    /// pieces that split the 32-byte blocks, the words after them and the tail anywhere, across two representations.
    func testADigestMadeInPiecesIsTheDigestOfTheWhole() throws {
        for count in [0, 7, 31, 32, 33, 1000, 1003, 70_001] {
            let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ $0 >> 5) }
            let small = Array("<b>x</b>".utf8)
            let whole = HistoryStore.digest(of: try content([("text/html", small), ("application/octet-stream", bytes)]))
            for piece in [1, 3, 8, 31, 32, 33, 4096, 65_536] {
                var digest = ContentDigest()
                digest.mix(Array("text/html".utf8))
                digest.mix(small)
                digest.mix(Array("application/octet-stream".utf8))
                digest.begin()
                var offset = 0
                while offset < bytes.count {
                    let end = min(offset + piece, bytes.count)
                    bytes[offset..<end].withUnsafeBytes { digest.update($0) }
                    offset = end
                }
                digest.end()
                XCTAssertEqual(digest.value, whole, "\(count) bytes in pieces of \(piece)")
            }
        }
    }

    /// The digest's value for a fixed content is the one earlier versions wrote in their indexes (kept across the
    /// change to `ContentDigest`): an equal copy after an upgrade is still one entry.
    func testTheDigestIsTheOneWrittenBefore() throws {
        let bytes = (0..<1003).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        XCTAssertEqual(HistoryStore.digest(of: try content([("text/html", bytes), ("text/plain", Array("ab".utf8))])),
                       Self.reference(of: [("text/html", bytes), ("text/plain", Array("ab".utf8))]))
    }

    /// The digest as `HistoryStore.digest` computed it before `ContentDigest` (one whole field at a time).
    static func reference(of representations: [(String, [UInt8])]) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func step(_ lane: inout UInt64, _ word: UInt64) {
            lane = (lane ^ word) &* 0x100_0000_01b3
            lane ^= lane >> 32
        }
        func mix(_ bytes: UnsafeRawBufferPointer) {
            let blocks = bytes.count / 32
            if blocks > 0 {
                var a = hash, b = hash ^ 1, c = hash ^ 2, d = hash ^ 3
                for block in 0..<blocks {
                    let offset = block * 32
                    step(&a, bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
                    step(&b, bytes.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self))
                    step(&c, bytes.loadUnaligned(fromByteOffset: offset + 16, as: UInt64.self))
                    step(&d, bytes.loadUnaligned(fromByteOffset: offset + 24, as: UInt64.self))
                }
                step(&hash, a); step(&hash, b); step(&hash, c); step(&hash, d)
            }
            let words = bytes.count / 8
            for index in (blocks * 4)..<words { step(&hash, bytes.loadUnaligned(fromByteOffset: index * 8, as: UInt64.self)) }
            var tail: UInt64 = 0
            for byte in bytes[(words * 8)...].reversed() { tail = tail << 8 | UInt64(byte) }
            step(&hash, tail)
            step(&hash, UInt64(bytes.count))
        }
        for (type, data) in representations {
            Array(type.utf8).withUnsafeBytes { mix($0) }
            data.withUnsafeBytes { mix($0) }
        }
        return hash
    }
}
