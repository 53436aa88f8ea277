// SPDX-License-Identifier: Apache-2.0
import ControlProtocol
import TestSupport
import PasteboardCore
import XCTest

/// A frame's body: drops the 4-byte length header.
func body(of frame: [UInt8]) -> [UInt8] { Array(frame.dropFirst(4)) }

func u32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }

func string(_ text: String) -> [UInt8] { u32(UInt32(text.utf8.count)) + Array(text.utf8) }

final class MalformedInputTests: XCTestCase {
    func assertRequestError(_ bytes: [UInt8], _ expected: ControlProtocolError, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try ControlRequest.decode(body: bytes), file: file, line: line) { error in
            XCTAssertEqual(error as? ControlProtocolError, expected, file: file, line: line)
        }
    }

    func testEmptyBodyAndMissingKind() {
        assertRequestError([], .truncated(field: "version", offset: 0, needed: 1, available: 0))
        assertRequestError([1, 5], .truncated(field: "kind", offset: 1, needed: 2, available: 1))
    }

    func testWrongVersionIsRefusedBeforeAnythingElse() {
        assertRequestError([2, 5, 0], .unsupportedVersion(2))
        assertRequestError([0], .unsupportedVersion(0))
        XCTAssertThrowsError(try ControlResponse.decode(body: [255, 3, 0x80])) { error in
            XCTAssertEqual(error as? ControlProtocolError, .unsupportedVersion(255))
            XCTAssertTrue("\(error)".contains("version 255"))
        }
    }

    func testUnknownKinds() {
        assertRequestError([1, 0x99, 0x00], .unknownKind(0x99, direction: "request"))
        // A response's kind is not a request, and the other way round.
        assertRequestError(body(of: ControlResponse.ok.encode()), .unknownKind(0x8003, direction: "request"))
        XCTAssertThrowsError(try ControlResponse.decode(body: body(of: ControlRequest.status.encode()))) { error in
            XCTAssertEqual(error as? ControlProtocolError, .unknownKind(0x0006, direction: "response"))
        }
    }

    func testTrailingJunk() {
        assertRequestError(body(of: ControlRequest.changeCount(pasteboard: "general").encode()) + [0],
                           .trailingBytes(kind: "changeCount", count: 1))
        assertRequestError(body(of: ControlRequest.status.encode()) + [1, 2, 3], .trailingBytes(kind: "status", count: 3))
    }

    func testTruncatedFields() {
        let full = body(of: ControlRequest.changeCount(pasteboard: "general").encode())
        assertRequestError(Array(full.prefix(5)), .truncated(field: "changeCount.pasteboard", offset: 3, needed: 4, available: 2))
        assertRequestError(Array(full.prefix(9)), .truncated(field: "changeCount.pasteboard", offset: 7, needed: 7, available: 2))
        // A data length far beyond the body is caught as truncation, not allocated.
        let hostile = [1, 0x02, 0x00] + string("general") + u32(1) + u32(1) + string("text/plain") + u32(0xFFFF_FFF0)
        assertRequestError(hostile, .truncated(field: "setItems.items[0].representations[0].data", offset: 40, needed: 0xFFFF_FFF0, available: 0))
    }

    func testEveryPrefixOfEveryMessageFailsCleanly() throws {
        let requests = try sampleRequests()
        for request in requests {
            let full = body(of: request.encode())
            for length in 0..<full.count {
                XCTAssertThrowsError(try ControlRequest.decode(body: Array(full.prefix(length))), "\(request.kind) cut at \(length)")
            }
        }
        let responses = try sampleResponses()
        for response in responses {
            let full = body(of: response.encode())
            for length in 0..<full.count {
                XCTAssertThrowsError(try ControlResponse.decode(body: Array(full.prefix(length))), "\(response.kind) cut at \(length)")
            }
        }
    }

    func testHugeCountsAreRefusedBeforeAllocating() {
        let header: [UInt8] = [1, 0x02, 0x00] + string("general")
        assertRequestError(header + u32(0xFFFF_FFFF), .tooLong(field: "setItems.items", length: 0xFFFF_FFFF, maximum: 1024))
        assertRequestError(header + u32(1000) + [0, 0, 0], .countExceedsRemainingBytes(field: "setItems.items", count: 1000, remaining: 3))
        assertRequestError(header + u32(1) + u32(0x7FFF_FFFF) + [UInt8](repeating: 0, count: 16),
                           .countExceedsRemainingBytes(field: "setItems.items[0].representations", count: 0x7FFF_FFFF, remaining: 16))
        assertRequestError([1, 0x11, 0x00] + u32(0x7FFF_FFFF),
                           .tooLong(field: "watch.pasteboards", length: 0x7FFF_FFFF, maximum: ControlLimits.maximumListCount))
        XCTAssertThrowsError(try ControlResponse.decode(body: [1, 0x07, 0x80] + u32(60_000) + [UInt8](repeating: 0, count: 100))) { error in
            XCTAssertEqual(error as? ControlProtocolError, .countExceedsRemainingBytes(field: "history", count: 60_000, remaining: 100))
        }
    }

    func testOverlongNamesAndStrings() {
        let longName = String(repeating: "n", count: 256)
        assertRequestError(body(of: ControlRequest.clear(pasteboard: longName).encode()),
                           .tooLong(field: "clear.pasteboard", length: 256, maximum: 255))
        // A type name no item may carry costs its representation only; an item left with none is left out.
        let longType = String(repeating: "t", count: PasteboardLimits.maximumTypeNameLength + 1)
        var skipped: [SkippedRepresentation] = []
        let request = try? ControlRequest.decode(body: [1, 0x03, 0x00] + string("general") + u32(1) + u32(1) + string(longType) + u32(0),
                                                 skipped: &skipped)
        XCTAssertEqual(request, .addItems(pasteboard: "general", items: []))
        XCTAssertEqual(skipped, [SkippedRepresentation(PasteboardType(longType), "its name is 65536 bytes, more than 65535")])
        assertRequestError([1, 0x01, 0x00, 1] + u32(70_000) + [UInt8](repeating: 0x61, count: 70_000),
                           .tooLong(field: "hello.client", length: 70_000, maximum: 65_536))
    }

    func testBadUTF8AndNUL() {
        assertRequestError([1, 0x05, 0x00] + u32(2) + [0xFF, 0xFE], .invalidUTF8(field: "changeCount.pasteboard", offset: 7))
        assertRequestError([1, 0x05, 0x00] + u32(2) + [0xC3, 0x28], .invalidUTF8(field: "changeCount.pasteboard", offset: 7))
        assertRequestError([1, 0x05, 0x00] + u32(3) + [0x61, 0x00, 0x62],
                           .invalidValue(field: "changeCount.pasteboard", reason: "contains a NUL byte"))
        assertRequestError([1, 0x05, 0x00] + u32(0), .invalidValue(field: "changeCount.pasteboard", reason: "is empty"))
        XCTAssertThrowsError(try ControlResponse.decode(body: [1, 0x04, 0x80, 1, 0] + u32(1) + [0x80])) { error in
            XCTAssertEqual(error as? ControlProtocolError, .invalidUTF8(field: "error.message", offset: 9))
        }
    }

    func testInvalidValues() {
        assertRequestError([1, 0x08, 0x00] + string("notes") + [2],
                           .invalidValue(field: "createPasteboard.persistent", reason: "boolean is 2, not 0 or 1"))
        assertRequestError([1, 0x02, 0x00] + string("general") + u32(0) + u32(0x10),
                           .invalidValue(field: "setItems.options", reason: "unknown flags 0x10"))
        var skipped: [SkippedRepresentation] = []
        let twice = try? ControlRequest.decode(body: [1, 0x02, 0x00] + string("general") + u32(1) + u32(2) + string("a") + u32(0)
                                               + string("a") + u32(1) + [9] + u32(0), skipped: &skipped)
        XCTAssertEqual(twice, .setItems(pasteboard: "general", items: [try! PasteboardItem([(PasteboardType("a"), [])])], options: []),
                       "a type given twice: the first is kept")
        XCTAssertEqual(skipped.map(\.reason), ["given twice; the first is kept"])
        assertRequestError([1, 0x02, 0x00] + string("general") + u32(1) + u32(0) + u32(0) + [UInt8](repeating: 0, count: 9),
                           .invalidValue(field: "setItems.items[0]", reason: "an item needs at least one representation"))
    }

    /// Large data is taken from the body in place (deferred while decoding): a representation left out
    /// beside or between large ones must not shift any other's data.
    func testLeftOutRepresentationsBesideLargeDataKeepEveryOtherDataWhereItBelongs() throws {
        let big = [UInt8](repeating: 0xB1, count: ControlRequest.inPlaceThreshold + 7)
        let bigger = [UInt8](repeating: 0xB2, count: ControlRequest.inPlaceThreshold + 9)
        let huge = String(repeating: "n", count: PasteboardLimits.maximumTypeNameLength + 1)
        func frame(_ items: [[(String, [UInt8])]]) -> [UInt8] {
            var body = [1, 0x02, 0x00] + string("general") + u32(UInt32(items.count))
            for item in items {
                body += u32(UInt32(item.count))
                for (type, data) in item { body += string(type) + u32(UInt32(data.count)) + data }
            }
            return body + u32(0)
        }
        let cases: [([[(String, [UInt8])]], [[(String, [UInt8])]], Int)] = [
            // (sent, kept, how many left out)
            ([[("a", big), ("a", bigger), ("b", [1])]], [[("a", big), ("b", [1])]], 1),
            ([[(huge, big), ("b", bigger)]], [[("b", bigger)]], 1),
            ([[(huge, big)], [("c", bigger), ("c", big)], [("d", [2]), ("e", big)]], [[("c", bigger)], [("d", [2]), ("e", big)]], 2),
            ([[("x", [3]), ("y", big)]], [[("x", [3]), ("y", big)]], 0),
        ]
        for (sent, kept, left) in cases {
            var skipped: [SkippedRepresentation] = []
            let request = try ControlRequest.decode(body: frame(sent), skipped: &skipped)
            guard case .setItems(_, let items, _) = request else { return XCTFail("\(request)") }
            XCTAssertEqual(items.map { $0.representations.map(\.type.rawValue) }, kept.map { $0.map(\.0) })
            XCTAssertEqual(items.map { $0.representations.map(\.data) }, kept.map { $0.map(\.1) }, "every data where it belongs")
            XCTAssertEqual(skipped.count, left)
        }
    }

    func testATypeNameThatIsNotUTF8CostsItsRepresentationAndSaysSo() throws {
        var skipped: [SkippedRepresentation] = []
        let body: [UInt8] = [1, 0x02, 0x00] + string("general") + u32(1) + u32(2) + u32(2) + [0xFF, 0xFE] + u32(1) + [7]
            + string("UTF8_STRING") + u32(2) + Array("ok".utf8) + u32(0)
        let request = try ControlRequest.decode(body: body, skipped: &skipped)
        XCTAssertEqual(request.carriedItems?.items.map(\.types), [[.utf8String]])
        XCTAssertEqual(skipped.map(\.reason), ["its name is not UTF-8"])
    }

    func testAnExpiryOutsideOneMillisecondToSevenDaysIsRefused() throws {
        for milliseconds: UInt64 in [0, ControlLimits.maximumExpiryMilliseconds + 1, .max] {
            let body = Array(ControlRequest.setExpiringItems(pasteboard: "general", items: [], options: [], expiresAfterMilliseconds: milliseconds)
                .encode().dropFirst(4))
            assertRequestError(body, .invalidValue(field: "setExpiringItems.expiresAfterMilliseconds",
                                                   reason: "\(milliseconds) is not from 1 to \(ControlLimits.maximumExpiryMilliseconds)"))
        }
    }

    func testRandomCorruptionNeverTraps() throws {
        var random = SeededGenerator(seed: 2024)   // fixed: the same cases on every run
        let samples = try sampleRequests().map { body(of: $0.encode()) }
            + sampleResponses().map { body(of: $0.encode()) }
        var failures = 0
        for _ in 0..<5000 {
            var bytes = samples[Int.random(in: 0..<samples.count, using: &random)]
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                let index = Int.random(in: 0..<bytes.count, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0: bytes[index] = UInt8.random(in: 0...255, using: &random)
                case 1: bytes.insert(UInt8.random(in: 0...255, using: &random), at: index)
                default: if bytes.count > 1 { bytes.remove(at: index) }
                }
            }
            if (try? ControlRequest.decode(body: bytes)) == nil { failures += 1 }
            _ = try? ControlResponse.decode(body: bytes)
        }
        XCTAssertGreaterThan(failures, 0)
    }
}

final class FrameDecoderLimitTests: XCTestCase {
    func testOversizedHeaderFailsBeforeTheBodyIsBuffered() {
        var decoder = FrameDecoder(maximumFrameLength: 1024)
        decoder.append(u32(1025))
        XCTAssertThrowsError(try decoder.nextFrame()) { error in
            XCTAssertEqual(error as? ControlProtocolError, .frameTooLarge(length: 1025, maximum: 1024))
        }
        decoder.append([UInt8](repeating: 0, count: 4096))
        XCTAssertEqual(decoder.bufferedByteCount, 0, "nothing of the refused body is kept")
        XCTAssertThrowsError(try decoder.nextFrame(), "the stream stays failed")
    }

    func testDefaultLimitRefusesFourGigabytes() {
        var decoder = FrameDecoder()
        XCTAssertEqual(decoder.maximumFrameLength, 320 << 20)
        decoder.append(u32(0xFFFF_FFFF) + [1, 2, 3])
        XCTAssertThrowsError(try decoder.nextFrame()) { error in
            XCTAssertEqual(error as? ControlProtocolError, .frameTooLarge(length: 0xFFFF_FFFF, maximum: 320 << 20))
        }
        XCTAssertEqual(decoder.bufferedByteCount, 0)
    }

    func testAnAnnouncedLengthReservesNothingUntilItsBytesArrive() throws {
        // Hundreds of clients announcing 300 MiB and trickling bytes must not make the daemon reserve 300 MiB each.
        var decoder = FrameDecoder()
        decoder.append(u32(300 << 20) + [1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
        XCTAssertTrue(decoder.hasPartialFrame)
        XCTAssertLessThan(decoder.reservedByteCount, 4096)
        let chunk = [UInt8](repeating: 7, count: 1 << 20)
        decoder.append(chunk)
        XCTAssertLessThanOrEqual(decoder.reservedByteCount, 4 << 20, "at most about twice what arrived")

        // Growth stops at the frame's end, and the frame comes out whole.
        var small = FrameDecoder()
        let body = (0..<100_000).map { UInt8(truncatingIfNeeded: $0) }
        let frame = u32(UInt32(body.count)) + body
        for start in stride(from: 0, to: frame.count, by: 999) { small.append(frame[start..<min(start + 999, frame.count)]) }
        XCTAssertLessThanOrEqual(small.reservedByteCount, frame.count + 64)
        XCTAssertEqual(try small.nextFrame(), body)
    }

    func testFramesBeforeABadHeaderAreStillDelivered() throws {
        var decoder = FrameDecoder(maximumFrameLength: 100)
        decoder.append(ControlRequest.status.encode() + u32(101) + [0, 0])
        XCTAssertEqual(try decoder.nextFrame().map { try ControlRequest.decode(body: $0) }, .status)
        XCTAssertThrowsError(try decoder.nextFrame())
    }

    func testLimitIsInclusiveAndEmptyFramesPass() throws {
        var decoder = FrameDecoder(maximumFrameLength: 3)
        decoder.append(u32(3) + [1, 6, 0] + u32(0))
        XCTAssertEqual(try decoder.nextFrame(), [1, 6, 0])
        XCTAssertEqual(try decoder.nextFrame(), [])
        XCTAssertNil(try decoder.nextFrame())
    }

    func testPartialFrameIsReported() throws {
        var decoder = FrameDecoder()
        XCTAssertFalse(decoder.hasPartialFrame)
        decoder.append([7, 0])
        XCTAssertTrue(decoder.hasPartialFrame)
        XCTAssertNil(try decoder.nextFrame())
        decoder.append([0, 0, 1, 2])
        XCTAssertTrue(decoder.hasPartialFrame)
        decoder.append([3, 4, 5, 6, 7])
        XCTAssertFalse(decoder.hasPartialFrame)
        XCTAssertEqual(try decoder.nextFrame(), [1, 2, 3, 4, 5, 6, 7])
    }
}

final class PasteboardItemTests: XCTestCase {
    func testKeepsOrderAndLooksUpByType() throws {
        let entry = try item([("text/html", "<b>x</b>"), ("text/plain", "x")])
        XCTAssertEqual(entry.types.map(\.rawValue), ["text/html", "text/plain"])
        XCTAssertEqual(entry.data(for: PasteboardType("text/plain")), Array("x".utf8))
        XCTAssertNil(entry.data(for: PasteboardType("image/png")))
        XCTAssertEqual(entry.byteCount, 9)
    }

    func testRefusesWhatThePeerWouldRefuse() {
        XCTAssertThrowsError(try item([("a", "1"), ("a", "2")])) { error in
            XCTAssertEqual(error as? PasteboardItemError, .duplicateType(PasteboardType("a")))
        }
        XCTAssertThrowsError(try item([]))
        XCTAssertThrowsError(try item([("", "1")]))
        XCTAssertThrowsError(try item([(String(repeating: "t", count: PasteboardLimits.maximumTypeNameLength + 1), "1")]))
        XCTAssertNoThrow(try item([(String(repeating: "t", count: 1000), "1")]), "LibreOffice's descriptor is this long")
        XCTAssertThrowsError(try item((0..<65).map { ("type\($0)", "") }))
        XCTAssertNoThrow(try item((0..<64).map { ("type\($0)", "") }))
    }
}
