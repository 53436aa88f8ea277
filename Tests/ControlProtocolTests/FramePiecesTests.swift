// SPDX-License-Identifier: Apache-2.0
import ControlProtocol
import PasteboardCore
import XCTest
import XTypes

/// A copy whose data stays in a file is framed with the file unread in its place (`encodePieces`), and the
/// frame, once the file is read in, is exactly the one `encode()` makes: the daemon cannot tell them apart.
final class FramePiecesTests: XCTestCase {
    final class CountingSource: ByteSource, @unchecked Sendable {
        let bytes: [UInt8]
        var reads = 0
        init(_ bytes: [UInt8]) { self.bytes = bytes }
        var count: Int { bytes.count }
        func read(_ range: Range<Int>) throws -> [UInt8] {
            reads += 1
            return Array(bytes[range])
        }
    }

    func testALargeSourceIsAPieceOfItsOwnUnreadAndTheFrameIsTheSame() throws {
        let large = CountingSource((0..<(300 << 10)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let item = try PasteboardItem([Representation(type: PasteboardType("application/octet-stream"), source: large),
                                       Representation(type: PasteboardType("text/plain"), data: Array("small".utf8))])
        let request = ControlRequest.setItems(pasteboard: "CLIPBOARD", items: [item], options: [])
        let pieces = request.encodePieces()
        XCTAssertEqual(large.reads, 0, "framing did not read the source")
        let sources = pieces.compactMap { piece -> (any ByteSource)? in if case .source(let source) = piece { source } else { nil } }
        XCTAssertEqual(sources.count, 1)
        XCTAssertTrue(sources.first === large)
        var joined: [UInt8] = []
        for piece in pieces {
            switch piece {
            case .bytes(let bytes): joined += bytes
            case .source(let source): joined += try source.read(0..<source.count)
            }
        }
        XCTAssertEqual(joined, request.encode(), "the same frame, length in front included")
        XCTAssertEqual(pieces.reduce(0) { $0 + $1.count }, joined.count, "the length is known before the source is read")
    }

    func testSmallSourcesAndInMemoryDataAreBytes() throws {
        let small = CountingSource(Array(repeating: 7, count: 100))
        let item = try PasteboardItem([Representation(type: PasteboardType("text/plain"), source: small)])
        let pieces = ControlRequest.setItems(pasteboard: "CLIPBOARD", items: [item], options: []).encodePieces()
        XCTAssertTrue(pieces.allSatisfy { if case .bytes = $0 { true } else { false } })
    }
}
