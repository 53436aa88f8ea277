// SPDX-License-Identifier: Apache-2.0
import ControlProtocol
import PasteboardCore
import XCTest

/// Large representations are written from their own arrays (segments), and a `read` answer can be
/// recognised from its first bytes so that a client streams the data instead of buffering the frame.
final class StreamedReadTests: XCTestCase {
    let big = (0..<(200 << 10)).map { UInt8(truncatingIfNeeded: $0 &* 31) }

    func testSegmentsConcatenateToTheFrameForEverySample() throws {
        let bigItem = try PasteboardItem([Representation(type: PasteboardType("application/octet-stream"), data: big),
                                          Representation(type: PasteboardType("text/plain"), data: Array("small".utf8)),
                                          Representation(type: PasteboardType("image/png"), data: big)])
        let responses = try sampleResponses() + [.items([bigItem]), .items([bigItem, bigItem])]
        for response in responses {
            XCTAssertEqual(Array(response.encodeSegments().joined()), response.encode(), "\(response.kind)")
        }
        let requests = try sampleRequests() + [.setItems(pasteboard: "general", items: [bigItem], options: [])]
        for request in requests {
            XCTAssertEqual(Array(request.encodeSegments().joined()), request.encode(), "\(request.kind)")
        }
        // The large data travels in segments of its own: what precedes each, then it; nothing after
        // the last, which ends the frame.
        let segments = ControlResponse.items([bigItem]).encodeSegments()
        XCTAssertEqual(segments.count, 4)
        XCTAssertEqual(segments.filter { $0 == big }.count, 2)
        XCTAssertEqual(ControlResponse.ok.encodeSegments().count, 1)
    }

    func testAReadAnswerIsRecognisedFromItsPrefix() throws {
        let frame = ControlResponse.items([try PasteboardItem([Representation(type: PasteboardType("UTF8_STRING"), data: big)])]).encode()
        let prefixLength = 4 + 3 + 4 + 4 + 4 + "UTF8_STRING".utf8.count + 4
        let expected = SingleRepresentationPrefix.Parse.prefix(
            SingleRepresentationPrefix(type: "UTF8_STRING", prefixLength: prefixLength, dataLength: big.count))
        XCTAssertEqual(SingleRepresentationPrefix.parse(frame[...]), expected)
        XCTAssertEqual(SingleRepresentationPrefix.parse(frame[..<prefixLength]), expected, "the data need not have arrived")
        for cut in 0..<prefixLength {
            XCTAssertEqual(SingleRepresentationPrefix.parse(frame[..<cut]), .needMore, "cut at \(cut)")
        }
        let empty = ControlResponse.items([try PasteboardItem([Representation(type: PasteboardType("text/html"), data: [])])]).encode()
        guard case .prefix(let p) = SingleRepresentationPrefix.parse(empty[...]) else { return XCTFail("empty data") }
        XCTAssertEqual(p.dataLength, 0)
        XCTAssertEqual(p.prefixLength, empty.count)
    }

    func testOtherFramesAreLeftToTheDecoder() throws {
        let two = try item([("text/plain", "a"), ("text/html", "b")])
        let one = try item([("text/plain", "a")])
        for response in [ControlResponse.error(code: .notFound, message: "not held"), .ok, .items([]), .items([two]),
                         .items([one, one])] {
            XCTAssertEqual(SingleRepresentationPrefix.parse(response.encode()[...]), .otherFrame, "\(response)")
        }
        var lying = ControlResponse.items([one]).encode()
        lying[0] &+= 1   // the body length no longer matches the data length
        XCTAssertEqual(SingleRepresentationPrefix.parse(lying[...]), .otherFrame)
        var huge = ControlResponse.items([one]).encode()
        huge[3] = 0xFF   // announces more than the maximum frame length
        XCTAssertEqual(SingleRepresentationPrefix.parse(huge[...]), .otherFrame)
        var nulType = ControlResponse.items([try item([("ab", "x")])]).encode()
        nulType[4 + 3 + 4 + 4 + 4] = 0
        XCTAssertEqual(SingleRepresentationPrefix.parse(nulType[...]), .otherFrame)
    }

    func testTakingBufferedBytesAfterAFrame() throws {
        var decoder = FrameDecoder()
        let hello = ControlResponse.hello(version: 1, daemonPID: 7, daemonVersion: "0.1").encode()
        let answer = ControlResponse.items([try item([("UTF8_STRING", "streamed")])]).encode()
        decoder.append(hello + answer.prefix(30))
        XCTAssertNotNil(try decoder.nextFrame())
        XCTAssertEqual(decoder.takeBufferedBytes(), Array(answer.prefix(30)))
        XCTAssertEqual(decoder.bufferedByteCount, 0)
        decoder.append(answer)
        XCTAssertEqual(try decoder.nextFrame(), Array(answer.dropFirst(4)), "the decoder goes on from empty")
    }
}

/// A large copy is held once by the daemon, not twice: its frame's buffer becomes the body, and the body's
/// storage becomes the representation's data.
final class InPlaceDecodingTests: XCTestCase {
    func address(_ bytes: [UInt8]) -> UInt { bytes.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) } }

    func testTheLargestRepresentationIsTheBodysOwnStorage() throws {
        let big = (0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let request = ControlRequest.setItems(pasteboard: "general", items: [
            try PasteboardItem([Representation(type: PasteboardType("text/plain"), data: Array("small".utf8)),
                                Representation(type: PasteboardType("application/octet-stream"), data: big)]),
        ], options: [.sensitive])
        var decoder = FrameDecoder()
        decoder.append(request.encode())
        let body = try XCTUnwrap(try decoder.nextFrame())
        XCTAssertEqual(decoder.bufferedByteCount, 0)
        let bodyAddress = address(body)
        guard case .setItems(let pasteboard, let items, let options) = try ControlRequest.decode(body: consume body) else {
            return XCTFail("not setItems")
        }
        XCTAssertEqual(pasteboard, "general")
        XCTAssertEqual(options, [.sensitive])
        XCTAssertEqual(items[0].data(for: PasteboardType("text/plain")), Array("small".utf8))
        let data = try XCTUnwrap(items[0].data(for: PasteboardType("application/octet-stream")))
        XCTAssertTrue(data == big)
        XCTAssertEqual(address(data), bodyAddress, "the data is the body's storage, trimmed in place")
    }

    func testSeveralLargeRepresentationsAreCopiedOutWhole() throws {
        let a = [UInt8](repeating: 1, count: 2 << 20), b = [UInt8](repeating: 2, count: (1 << 20) + 3)
        let items = [try PasteboardItem([Representation(type: PasteboardType("a/a"), data: a)]),
                     try PasteboardItem([Representation(type: PasteboardType("b/b"), data: b),
                                         Representation(type: PasteboardType("c/c"), data: [])])]
        let body = Array(ControlRequest.addItems(pasteboard: "x", items: items).encode().dropFirst(FrameEncoder.headerLength))
        XCTAssertEqual(try ControlRequest.decode(body: body), .addItems(pasteboard: "x", items: items))
    }
}
