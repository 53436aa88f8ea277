// SPDX-License-Identifier: Apache-2.0
@testable import DaemonCore
import Foundation
import PasteboardCore
import SystemSupport
import TestSupport
import XCTest

/// A kept archive is read back from memory (`decode`) or from its file (`open`): for any bytes — archives of many
/// shapes, then cut, grown, or with bytes changed — the two agree (both refuse, or both give the same content, the
/// same representations skipped), and neither stops the daemon.
final class ArchiveDecodingTests: XCTestCase {
    func testMemoryAndFileReadAnyArchiveBytesAlike() throws {
        var random = SeededGenerator.forTest("testMemoryAndFileReadAnyArchiveBytesAlike")
        let path = NSTemporaryDirectory() + "archive-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: path) }
        let types = ["UTF8_STRING", "text/html", "image/png", "com.apple.flat-rtfd", String(repeating: "t", count: 300)]
        var refused = 0
        for iteration in 0..<500 {
            var items: [PasteboardItem] = []
            for _ in 0..<random.below(4) {
                var pairs: [(type: PasteboardType, data: [UInt8])] = []
                for type in types.shuffled(using: &random).prefix(1 + random.below(3)) {
                    pairs.append((PasteboardType(type), (0..<random.below(200)).map { _ in UInt8(truncatingIfNeeded: random.next()) }))
                }
                if let item = try? PasteboardItem(pairs) { items.append(item) }
            }
            let archive = ContentArchive(pasteboard: random.below(2) == 0 ? .general : .primary, changeCount: random.next(),
                                         time: Int64(bitPattern: random.next()),
                                         content: PasteboardContent(items: items, isLocalOnly: random.below(2) == 0))
            var bytes = archive.encode()
            switch random.below(5) {
            case 0: break
            case 1: bytes.removeLast(random.below(bytes.count) + 1)
            case 2: bytes += (0..<1 + random.below(16)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            default:
                for _ in 0..<1 + random.below(4) { bytes[random.below(bytes.count)] = UInt8(truncatingIfNeeded: random.next()) }
            }
            try AtomicFile.write(bytes, to: path)
            var skippedInMemory: [SkippedRepresentation] = [], skippedInFile: [SkippedRepresentation] = []
            let inMemory = try? ContentArchive.decode(bytes, skipped: &skippedInMemory)
            let inFile = try? ContentArchive.open(path: path, contentBytes: 1 << 20, skipped: &skippedInFile)
            XCTAssertEqual(inMemory, inFile, "iteration \(iteration): memory and file disagree")
            XCTAssertEqual(skippedInMemory.map(\.type), skippedInFile.map(\.type), "iteration \(iteration)")
            if bytes == archive.encode() { XCTAssertEqual(inMemory, archive, "iteration \(iteration): written, read back") }
            if inMemory == nil { refused += 1 }
        }
        XCTAssertGreaterThan(refused, 50, "the cut and changed archives are refused, not read as something else")
    }
}
