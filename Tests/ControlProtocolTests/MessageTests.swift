// SPDX-License-Identifier: Apache-2.0
import ControlProtocol
import PasteboardCore
import XCTest

func item(_ pairs: [(String, String)]) throws -> PasteboardItem {
    try PasteboardItem(pairs.map { Representation(type: PasteboardType($0.0), data: Array($0.1.utf8)) })
}

/// Frames `message`, pushes it through a `FrameDecoder`, and returns the one body that comes out.
func roundTripBody(_ frame: [UInt8], file: StaticString = #filePath, line: UInt = #line) throws -> [UInt8] {
    var decoder = FrameDecoder()
    decoder.append(frame)
    let body = try XCTUnwrap(try decoder.nextFrame(), file: file, line: line)
    XCTAssertNil(try decoder.nextFrame(), file: file, line: line)
    XCTAssertFalse(decoder.hasPartialFrame, file: file, line: line)
    return body
}

/// One or more of every request kind.
func sampleRequests() throws -> [ControlRequest] {
        let text = try item([("text/plain;charset=utf-8", "naïve € 日本"), ("UTF8_STRING", "naïve € 日本")])
        let binary = try PasteboardItem([Representation(type: PasteboardType("image/png"), data: [0, 1, 0, 255, 0x89, 0x50])])
        return [
            .hello(version: 1, client: "pb 0.1"),
            .setItems(pasteboard: "general", items: [text, binary], options: .sensitive),
            .setItems(pasteboard: "primary", items: [], options: []),
            .setItems(pasteboard: "general", items: [text], options: [.localOnly, .pasteOnce]),
            .setExpiringItems(pasteboard: "general", items: [text], options: .sensitive, expiresAfterMilliseconds: 45_000),
            .addItems(pasteboard: "find", items: [binary]),
            .clear(pasteboard: "general"),
            .changeCount(pasteboard: "primary"),
            .status,
            .pasteboards,
            .createPasteboard(name: "notes", persistent: true),
            .createPasteboard(name: "scratch", persistent: false),
            .removePasteboard(name: "notes"),
            .history(limit: 50),
            .historyItem(index: 3),
            .historyCopy(index: 0),
            .historyDelete(index: UInt32.max),
            .historyClear,
            .pause,
            .resume,
            .watch(pasteboards: ["general", "primary"]),
            .watch(pasteboards: []),
            .items(pasteboard: "general"),
            .read(pasteboard: "general", types: ["UTF8_STRING", "text/plain;charset=utf-8", "STRING"], display: ":0"),
            .displays,
            .addDisplay(name: ":1"),
            .removeDisplay(name: "localhost:10.0"),
            .onDisplay(name: ":0"),
            .peer(version: 1, daemon: UInt64.max, name: "pasteboardd 1 on :0", maximumFrameBytes: 1 << 28),
            .peers, .addPeer(socket: "/tmp/b.sock", persistent: true), .removePeer(socket: "/tmp/b.sock"),
            .targets(pasteboard: "general"),
            .setItemProviders(pasteboard: "CLIPBOARD", types: [["UTF8_STRING", "text/html"], ["image/png"]], options: [.sensitive]),
            .provided(request: 7, data: Array("made on request".utf8)),
            .provided(request: 8, data: [UInt8](repeating: 0xAB, count: 200_000)),
            .provideFailed(request: 9, reason: "the chart could not be drawn"),
            .watchEvents(pasteboards: ["general"], events: [.changes, .reads]),
            .watchEvents(pasteboards: [], events: .reads),
            .sourcedHistory(limit: 0),
            .beginCopy(pasteboard: "general", types: ["text/rtf", "UTF8_STRING"], options: [.localOnly], expiresAfterMilliseconds: 0),
            .beginCopy(pasteboard: "notes", types: ["image/png"], options: [], expiresAfterMilliseconds: 60_000),
            .copyChunk(representation: 1, data: Array("a piece".utf8)),
            .copyChunk(representation: 0, data: [UInt8](repeating: 0x5A, count: ControlLimits.maximumChunkBytes)),
            .commitCopy,
        ]
    }

/// One or more of every response kind.
func sampleResponses() throws -> [ControlResponse] {
        let text = try item([("text/plain", "hello")])
        return [
            .hello(version: 1, daemonPID: 4242, daemonVersion: "0.1.0"),
            .changeCount(pasteboard: "general", count: UInt64.max),
            .ok,
            .error(code: .typeNotOffered, message: "the owner does not offer image/png"),
            .error(code: ErrorCode(rawValue: 999), message: "from the future"),
            .status(pairs: [StatusPair("display", ":0"), StatusPair("paused", "no")]),
            .pasteboards([PasteboardInfo(name: "general", changeCount: 7, persistent: false, owned: true),
                          PasteboardInfo(name: "notes", changeCount: 0, persistent: true, owned: false)]),
            .history([HistoryEntry(index: 0, timestamp: 1_760_000_000, pasteboard: "general", types: ["UTF8_STRING", "text/html"],
                                   size: 12345, preview: "first line…"),
                      HistoryEntry(index: 1, timestamp: -1, pasteboard: "primary", types: [], size: 0, preview: "")]),
            .items([text, text]),
            .items([]),
            .changed(pasteboard: "general", count: 8, types: ["TARGETS", "UTF8_STRING"], state: "foreign"),
            .changed(pasteboard: "CLIPBOARD", count: 9, types: ["image/png"], state: "data",
                     image: ImageSummary(type: .png, width: 3840, height: 2160, byteCount: 1_234_567)),
            .targets(["TARGETS", "TIMESTAMP", "MULTIPLE", "UTF8_STRING", "text/html"]),
            .targets([]),
            .provide(request: 7, type: "text/html"),
            .change(ChangeEvent(pasteboard: "general", count: 10, types: ["UTF8_STRING"], state: "data",
                                source: ContentSource(application: "Gedit", processID: 4321), patterns: [.url])),
            .change(ChangeEvent(pasteboard: "general", count: 11, types: [], state: "foreign",
                                source: ContentSource(application: "xclip"), patterns: nil)),
            .change(ChangeEvent(pasteboard: "CLIPBOARD", count: 12, types: ["image/png"], state: "kept",
                                image: ImageSummary(type: .png, width: 2, height: 3, byteCount: 99), patterns: [])),
            .read(ReadEvent(pasteboard: "general", type: "UTF8_STRING", reader: ContentSource(application: "Firefox", processID: 77),
                            time: 1_760_000_000_123, via: "x")),
            .read(ReadEvent(pasteboard: "general", type: "STRING", reader: nil, time: 0, refusal: "readPolicy: never to KeePassXC",
                            via: "socket")),
            .sourcedHistory([HistoryEntry(index: 0, timestamp: 1_760_000_000, pasteboard: "general", types: ["UTF8_STRING"],
                                          size: 5, preview: "hello", source: ContentSource(application: "Gedit", processID: 9)),
                             HistoryEntry(index: 1, timestamp: 2, pasteboard: "general", types: [], size: 0, preview: "")]),
            .peers([PeerInfo(socket: "/run/user/1000/pasteboard/peer-ab.sock", state: "connected", lastError: ""),
                    PeerInfo(socket: "/tmp/b.sock", state: "disconnected", lastError: "the peer closed the connection")]),
        ]
    }

final class MessageRoundTripTests: XCTestCase {
    func testEveryRequestRoundTrips() throws {
        let samples = try sampleRequests()
        XCTAssertEqual(Set(samples.map(\.kind)), Set(ControlRequest.Kind.allCases), "a sample for every kind")
        for request in samples {
            let body = try roundTripBody(request.encode())
            XCTAssertEqual(try ControlRequest.decode(body: body), request)
        }
    }

    func testEveryResponseRoundTrips() throws {
        let samples = try sampleResponses()
        XCTAssertEqual(Set(samples.map(\.kind)), Set(ControlResponse.Kind.allCases), "a sample for every kind")
        for response in samples {
            let body = try roundTripBody(response.encode())
            XCTAssertEqual(try ControlResponse.decode(body: body), response)
        }
    }

    func testManyFramesInOneChunkAndOneFrameInManyChunks() throws {
        let requests = try sampleRequests()
        let stream = requests.flatMap { $0.encode() }
        var decoder = FrameDecoder()
        decoder.append(stream)
        var decoded: [ControlRequest] = []
        while let body = try decoder.nextFrame() { decoded.append(try ControlRequest.decode(body: body)) }
        XCTAssertEqual(decoded, requests)

        decoder = FrameDecoder()
        decoded = []
        for byte in stream {
            decoder.append([byte])
            while let body = try decoder.nextFrame() { decoded.append(try ControlRequest.decode(body: body)) }
        }
        XCTAssertEqual(decoded, requests)
        XCTAssertEqual(decoder.bufferedByteCount, 0)
    }

    func testSixtyFourMebibytesThroughTheFrameDecoderInChunks() throws {
        // A repeating 251-byte pattern (prime, so chunk and pattern boundaries never line up).
        var payload = (0..<251).map { UInt8($0) }
        while payload.count < 64 << 20 { payload += payload }
        payload.removeLast(payload.count - (64 << 20))
        let request = ControlRequest.setItems(
            pasteboard: "general",
            items: [try PasteboardItem([Representation(type: PasteboardType("application/octet-stream"), data: payload),
                                        Representation(type: PasteboardType("text/plain"), data: Array("small".utf8))])],
            options: [])
        let frame = request.encode()
        XCTAssertEqual(frame.count, 4 + 1 + 2 + (4 + 7) + 4 + 4 + (4 + 24) + (4 + payload.count) + (4 + 10) + (4 + 5) + 4)

        var decoder = FrameDecoder()
        var bodies: [[UInt8]] = []
        let chunk = 64 << 10
        var offset = 0
        while offset < frame.count {
            decoder.append(frame[offset..<min(offset + chunk, frame.count)])
            offset += chunk
            while let body = try decoder.nextFrame() { bodies.append(body) }
        }
        XCTAssertEqual(bodies.count, 1)
        guard case .setItems(let pasteboard, let items, let options) = try ControlRequest.decode(body: bodies[0]) else {
            return XCTFail("not setItems")
        }
        XCTAssertEqual(pasteboard, "general")
        XCTAssertEqual(options, [])
        XCTAssertEqual(items.count, 1)
        XCTAssertEqual(items[0].types.map(\.rawValue), ["application/octet-stream", "text/plain"])
        XCTAssertTrue(items[0].data(for: PasteboardType("application/octet-stream")) == payload, "payload intact")
        XCTAssertEqual(items[0].data(for: PasteboardType("text/plain")), Array("small".utf8))
    }

    func testFreeFormTextIsTruncatedToItsCapAtACharacterBoundary() throws {
        let long = String(repeating: "é", count: 40_000)  // 80 000 bytes of UTF-8.
        let body = try roundTripBody(ControlResponse.error(code: .internal, message: long).encode())
        guard case .error(let code, let message) = try ControlResponse.decode(body: body) else { return XCTFail() }
        XCTAssertEqual(code, .internal)
        XCTAssertEqual(message.utf8.count, ControlLimits.maximumStringLength)
        XCTAssertTrue(long.hasPrefix(message))
    }
}

final class GoldenEncodingTests: XCTestCase {
    func testTargetsRequestAndResponseBytes() throws {
        // The remote socket's `pb types`: kind 0x0015 with a name; the answer 0x800A, an array of type names.
        XCTAssertEqual(ControlRequest.targets(pasteboard: "general").encode(),
                       [14, 0, 0, 0, 1, 0x15, 0x00, 7, 0, 0, 0] + Array("general".utf8))
        XCTAssertEqual(ControlResponse.targets(["TARGETS", "STRING"]).encode(),
                       [28, 0, 0, 0, 1, 0x0A, 0x80, 2, 0, 0, 0, 7, 0, 0, 0] + Array("TARGETS".utf8) + [6, 0, 0, 0] + Array("STRING".utf8))
        // A type name is never empty, in this list as everywhere.
        XCTAssertThrowsError(try ControlResponse.decode(body: [1, 0x0A, 0x80, 1, 0, 0, 0, 0, 0, 0, 0]))
    }

    func testChangeCountRequest() {
        XCTAssertEqual(ControlRequest.changeCount(pasteboard: "general").encode(), [
            0x0e, 0x00, 0x00, 0x00,  // body length 14
            0x01,  // version 1
            0x05, 0x00,  // kind 0x0005 changeCount
            0x07, 0x00, 0x00, 0x00, 0x67, 0x65, 0x6e, 0x65, 0x72, 0x61, 0x6c,  // "general"
        ])
    }

    func testSetItemsRequest() throws {
        let request = ControlRequest.setItems(pasteboard: "general", items: [try item([("text/plain", "hi")])], options: .sensitive)
        XCTAssertEqual(request.encode(), [
            0x2e, 0x00, 0x00, 0x00,  // body length 46
            0x01,  // version 1
            0x02, 0x00,  // kind 0x0002 setItems
            0x07, 0x00, 0x00, 0x00, 0x67, 0x65, 0x6e, 0x65, 0x72, 0x61, 0x6c,  // pasteboard "general"
            0x01, 0x00, 0x00, 0x00,  // 1 item
            0x01, 0x00, 0x00, 0x00,  // 1 representation
            0x0a, 0x00, 0x00, 0x00, 0x74, 0x65, 0x78, 0x74, 0x2f, 0x70, 0x6c, 0x61, 0x69, 0x6e,  // type "text/plain"
            0x02, 0x00, 0x00, 0x00, 0x68, 0x69,  // data "hi"
            0x01, 0x00, 0x00, 0x00,  // options: sensitive
        ])
    }

    /// docs/protocol.md's worked example of a copy in pieces: `printf 'hi' | pb copy` were it long.
    func testACopyInPiecesBytes() {
        XCTAssertEqual(ControlRequest.beginCopy(pasteboard: "general", types: ["text/plain"], options: .sensitive,
                                                expiresAfterMilliseconds: 0).encode(), [
            0x2c, 0x00, 0x00, 0x00,  // body length 44
            0x01,  // version 1
            0x50, 0x00,  // kind 0x0050 beginCopy
            0x07, 0x00, 0x00, 0x00, 0x67, 0x65, 0x6e, 0x65, 0x72, 0x61, 0x6c,  // pasteboard "general"
            0x01, 0x00, 0x00, 0x00,  // 1 type
            0x0a, 0x00, 0x00, 0x00, 0x74, 0x65, 0x78, 0x74, 0x2f, 0x70, 0x6c, 0x61, 0x69, 0x6e,  // "text/plain"
            0x01, 0x00, 0x00, 0x00,  // options: sensitive
            0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // expiresAfterMilliseconds: 0, never
        ])
        XCTAssertEqual(ControlRequest.copyChunk(representation: 0, data: Array("hi".utf8)).encode(), [
            0x0b, 0x00, 0x00, 0x00, 0x01, 0x51, 0x00,  // body length 11, version 1, kind 0x0051 copyChunk
            0x00, 0x00,  // representation 0
            0x02, 0x00, 0x00, 0x00, 0x68, 0x69,  // data "hi"
        ])
        XCTAssertEqual(ControlRequest.commitCopy.encode(), [0x03, 0x00, 0x00, 0x00, 0x01, 0x52, 0x00])
    }

    /// A begin names 1–64 distinct types and an expiry of at most 7 days; a chunk carries 1 byte to 1 MiB.
    func testACopyInPiecesIsRefusedWhenMalformed() {
        func body(_ request: ControlRequest) -> [UInt8] { Array(request.encode().dropFirst(4)) }
        let refused: [ControlRequest] = [
            .beginCopy(pasteboard: "general", types: [], options: [], expiresAfterMilliseconds: 0),
            .beginCopy(pasteboard: "general", types: ["a", "a"], options: [], expiresAfterMilliseconds: 0),
            .beginCopy(pasteboard: "general", types: (0..<65).map { "t\($0)" }, options: [], expiresAfterMilliseconds: 0),
            .beginCopy(pasteboard: "general", types: ["a"], options: [], expiresAfterMilliseconds: ControlLimits.maximumExpiryMilliseconds + 1),
            .beginCopy(pasteboard: "", types: ["a"], options: [], expiresAfterMilliseconds: 0),
            .copyChunk(representation: 0, data: []),
            .copyChunk(representation: 0, data: [UInt8](repeating: 1, count: ControlLimits.maximumChunkBytes + 1)),
        ]
        for request in refused { XCTAssertThrowsError(try ControlRequest.decode(body: body(request)), "\(request.kind)") }
        var unknownOption = body(.beginCopy(pasteboard: "general", types: ["a"], options: [], expiresAfterMilliseconds: 0))
        unknownOption[unknownOption.count - 12] = 0x80
        XCTAssertThrowsError(try ControlRequest.decode(body: unknownOption))
    }

    func testChangeCountAndErrorResponses() {
        XCTAssertEqual(ControlResponse.changeCount(pasteboard: "general", count: 42).encode(), [
            0x16, 0x00, 0x00, 0x00, 0x01, 0x02, 0x80,
            0x07, 0x00, 0x00, 0x00, 0x67, 0x65, 0x6e, 0x65, 0x72, 0x61, 0x6c,
            0x2a, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        ])
        XCTAssertEqual(ControlResponse.error(code: .notFound, message: "no").encode(), [
            0x0b, 0x00, 0x00, 0x00, 0x01, 0x04, 0x80, 0x02, 0x00, 0x02, 0x00, 0x00, 0x00, 0x6e, 0x6f,
        ])
        XCTAssertEqual(ControlResponse.ok.encode(), [0x03, 0x00, 0x00, 0x00, 0x01, 0x03, 0x80])
    }

    func testHelloResponseFromTheWorkedExample() {
        XCTAssertEqual(ControlResponse.hello(version: 1, daemonPID: 4242, daemonVersion: "0.1.0").encode(), [
            0x11, 0x00, 0x00, 0x00, 0x01, 0x01, 0x80, 0x01, 0x92, 0x10, 0x00, 0x00,
            0x05, 0x00, 0x00, 0x00, 0x30, 0x2e, 0x31, 0x2e, 0x30,
        ])
    }

    func testHelloRequest() {
        XCTAssertEqual(ControlRequest.hello(version: 1, client: "pb").encode(), [
            0x0a, 0x00, 0x00, 0x00, 0x01, 0x01, 0x00, 0x01, 0x02, 0x00, 0x00, 0x00, 0x70, 0x62,
        ])
    }
}
