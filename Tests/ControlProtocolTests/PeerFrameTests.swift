// SPDX-License-Identifier: Apache-2.0
import ControlProtocol
import PasteboardCore
import TestSupport
import XCTest

/// The peering frames (docs/protocol.md, "Peering"): each kind round-trips, and what a hostile or broken peer
/// daemon could send — truncated fields, unknown kinds, a path that does not start at its origin or is too long,
/// too many types, a type twice, names over their caps, trailing bytes — is a `ControlProtocolError`, never a trap.
final class PeerFrameTests: XCTestCase {
    let origin = PeerOrigin(daemon: 7, serial: 3, path: [7, 9])

    func roundTrip(_ frame: PeerFrame, file: StaticString = #filePath, line: UInt = #line) {
        let encoded = frame.encode()
        XCTAssertEqual(Array(frame.encodeSegments().joined()), encoded, file: file, line: line)
        XCTAssertEqual(try PeerFrame.decode(body: Array(encoded.dropFirst(4))), frame, file: file, line: line)
    }

    func assertRefused(_ body: [UInt8], file: StaticString = #filePath, line: UInt = #line,
                       _ check: (ControlProtocolError) -> Bool) {
        XCTAssertThrowsError(try PeerFrame.decode(body: body), file: file, line: line) { error in
            guard let error = error as? ControlProtocolError else { return XCTFail("\(error) is not a protocol error", file: file, line: line) }
            XCTAssertTrue(check(error), "\(error)", file: file, line: line)
        }
    }

    func testEveryKindRoundTrips() {
        roundTrip(.welcome(version: 1, daemon: .max, name: "pasteboardd 12 on :1", maximumFrameBytes: 1 << 30))
        roundTrip(.offer(PeerOffer(token: 5, pasteboard: "CLIPBOARD", origin: origin,
                                   types: [PeerType("UTF8_STRING", size: 12), PeerType("text/html")], initial: true)))
        roundTrip(.cleared(pasteboard: "notes", origin: origin))
        roundTrip(.fetch(request: 1, token: 5, type: "image/png"))
        roundTrip(.data(request: 1, bytes: []))
        roundTrip(.data(request: 2, bytes: Array(repeating: 0xAB, count: 200_000)))
        roundTrip(.failed(request: 3, reason: "CLIPBOARD changed since"))
        XCTAssertEqual(Set(PeerFrame.Kind.allCases.map(\.rawValue)).count, PeerFrame.Kind.allCases.count)
    }

    func testALargeValueIsSentFromItsOwnArray() {
        let bytes = Array(repeating: UInt8(1), count: 1 << 20)
        let segments = PeerFrame.data(request: 9, bytes: bytes).encodeSegments()
        XCTAssertTrue(segments.contains(bytes), "the value is a segment of its own, not copied into the frame")
    }

    func testTheHandshakeRequestAndThePeerListRoundTrip() throws {
        let peer = ControlRequest.peer(version: 1, daemon: 42, name: "home", maximumFrameBytes: 1 << 28)
        XCTAssertEqual(try ControlRequest.decode(body: Array(peer.encode().dropFirst(4))), peer)
        for request in [ControlRequest.peers, .addPeer(socket: "/run/user/1000/pb-peer.sock", persistent: true),
                        .removePeer(socket: "/tmp/x.sock")] {
            XCTAssertEqual(try ControlRequest.decode(body: Array(request.encode().dropFirst(4))), request)
        }
        let list = ControlResponse.peers([PeerInfo(socket: "/tmp/b.sock", state: "disconnected", lastError: "connection refused")])
        XCTAssertEqual(try ControlResponse.decode(body: Array(list.encode().dropFirst(4))), list)
        XCTAssertThrowsError(try ControlRequest.decode(body: Array(ControlRequest.addPeer(socket: "", persistent: false).encode().dropFirst(4))))
        XCTAssertThrowsError(try ControlRequest.decode(body: Array(ControlRequest.removePeer(socket: "/a\0b").encode().dropFirst(4))))
    }

    func testAPeerFrameIsToldFromAControlAnswerByItsKind() {
        XCTAssertEqual(PeerFrame.kindNumber(of: Array(PeerFrame.welcome(version: 1, daemon: 1, name: "", maximumFrameBytes: 0).encode().dropFirst(4))),
                       PeerFrame.Kind.welcome.rawValue)
        XCTAssertEqual(PeerFrame.kindNumber(of: Array(ControlResponse.ok.encode().dropFirst(4))), ControlResponse.Kind.ok.rawValue)
        XCTAssertNil(PeerFrame.kindNumber(of: [1, 2]))
        // A control answer is not a peer frame.
        assertRefused(Array(ControlResponse.ok.encode().dropFirst(4))) { $0 == .unknownKind(0x8003, direction: "peer") }
    }

    func testTruncatedAndTrailingBytesAreRefusedAtEveryCut() {
        let frames: [PeerFrame] = [
            .welcome(version: 1, daemon: 2, name: "n", maximumFrameBytes: 3),
            .offer(PeerOffer(token: 1, pasteboard: "CLIPBOARD", origin: origin, types: [PeerType("STRING", size: 1)])),
            .cleared(pasteboard: "CLIPBOARD", origin: origin),
            .fetch(request: 1, token: 2, type: "STRING"),
            .data(request: 1, bytes: [1, 2, 3]),
            .failed(request: 1, reason: "no"),
        ]
        for frame in frames {
            let body = Array(frame.encode().dropFirst(4))
            for cut in 0..<body.count {
                XCTAssertThrowsError(try PeerFrame.decode(body: Array(body.prefix(cut))), "\(frame.kind) cut at \(cut)")
            }
            assertRefused(body + [0]) { if case .trailingBytes = $0 { true } else { false } }
        }
    }

    func testWrongVersionAndUnknownKind() {
        var body = Array(PeerFrame.fetch(request: 1, token: 1, type: "STRING").encode().dropFirst(4))
        body[0] = 9
        assertRefused(body) { $0 == .unsupportedVersion(9) }
        assertRefused([1, 0x99, 0x40]) { $0 == .unknownKind(0x4099, direction: "peer") }
    }

    func testAPathThatDoesNotStartAtItsOriginOrGoesTooFarIsRefused() {
        let forged = PeerFrame.cleared(pasteboard: "CLIPBOARD", origin: PeerOrigin(daemon: 7, serial: 1, path: [8]))
        assertRefused(Array(forged.encode().dropFirst(4))) { if case .invalidValue(let field, _) = $0 { field == "cleared.origin.path" } else { false } }
        let empty = PeerFrame.cleared(pasteboard: "CLIPBOARD", origin: PeerOrigin(daemon: 7, serial: 1, path: []))
        assertRefused(Array(empty.encode().dropFirst(4))) { if case .invalidValue = $0 { true } else { false } }
        let far = PeerFrame.cleared(pasteboard: "CLIPBOARD", origin: PeerOrigin(daemon: 7, serial: 1, path: [7] + Array(repeating: 1, count: PeerLimits.maximumHops)))
        assertRefused(Array(far.encode().dropFirst(4))) { if case .tooLong(let field, _, _) = $0 { field == "cleared.origin.path" } else { false } }
    }

    func testTypesAreCappedInNumberAndLengthAndNeverTwice() {
        func offer(_ types: [PeerType]) -> [UInt8] {
            Array(PeerFrame.offer(PeerOffer(token: 1, pasteboard: "CLIPBOARD", origin: origin, types: types)).encode().dropFirst(4))
        }
        assertRefused(offer((0...PeerLimits.maximumTypes).map { PeerType("t\($0)") })) {
            if case .tooLong(let field, _, _) = $0 { field == "offer.types" } else { false }
        }
        assertRefused(offer([PeerType("STRING"), PeerType("STRING", size: 3)])) { $0 == .duplicateType(field: "offer.types", type: "STRING") }
        assertRefused(offer([PeerType(String(repeating: "x", count: PasteboardLimits.maximumTypeNameLength + 1))])) { if case .tooLong = $0 { true } else { false } }
        assertRefused(offer([PeerType("")])) { if case .invalidValue = $0 { true } else { false } }
        // A count the body cannot back is refused before anything is reserved.
        var hostile = Array(PeerFrame.offer(PeerOffer(token: 1, pasteboard: "CLIPBOARD", origin: origin, types: [])).encode().dropFirst(4))
        let countAt = hostile.count - 5
        hostile.replaceSubrange(countAt..<countAt + 4, with: [0xFF, 0xFF, 0, 0])
        assertRefused(hostile) { if case .tooLong = $0 { true } else if case .countExceedsRemainingBytes = $0 { true } else { false } }
    }

    func testAnOversizeFrameIsRefusedByItsHeaderBeforeItsBodyArrives() {
        var decoder = FrameDecoder(maximumFrameLength: PeerLimits.minimumFrameBytes)
        decoder.append(PeerFrame.data(request: 1, bytes: Array(repeating: 0, count: PeerLimits.minimumFrameBytes)).encode().prefix(8))
        XCTAssertThrowsError(try decoder.nextFrame()) { error in
            guard case .frameTooLarge? = error as? ControlProtocolError else { return XCTFail("\(error)") }
        }
        XCTAssertLessThan(decoder.reservedByteCount, 1024, "nothing of the announced size is reserved")
    }

    /// What a broken or hostile peer daemon sends, drawn: frames of every kind with bytes changed, inserted, removed
    /// or cut. Each is refused with a `ControlProtocolError` or read as a frame within every cap — and then it is the
    /// only reading of those bytes: encoded again it gives them back, byte for byte (no two byte strings read as
    /// one frame, nothing read that the frame does not say).
    func testAnyBytesAreRefusedOrReadAsTheOneFrameTheySay() {
        var random = SeededGenerator.forTest(#function)
        let samples: [PeerFrame] = [
            .welcome(version: 1, daemon: 0x0102_0304_0506_0708, name: "pasteboardd on host:1", maximumFrameBytes: 1 << 28),
            .offer(PeerOffer(token: 5, pasteboard: "CLIPBOARD", origin: origin,
                             types: [PeerType("UTF8_STRING", size: 12), PeerType("text/html"), PeerType("image/png", size: 0)], initial: true)),
            .offer(PeerOffer(token: .max, pasteboard: "notes", origin: PeerOrigin(daemon: 1, serial: .max, path: [1]), types: [])),
            .cleared(pasteboard: "PRIMARY", origin: origin),
            .fetch(request: 1, token: 5, type: "text/plain;charset=utf-8"),
            .data(request: 2, bytes: Array("PBH1 a value".utf8)),
            .data(request: 3, bytes: []),
            .failed(request: 3, reason: "CLIPBOARD changed since"),
        ]
        var accepted = 0, refused = 0
        for _ in 0..<6000 {
            var body = Array(samples[random.below(samples.count)].encode().dropFirst(4))
            for _ in 0...random.below(4) {
                let index = random.below(body.count)
                switch random.below(5) {
                case 0: body[index] = UInt8(truncatingIfNeeded: random.next())
                case 1: body[index] ^= 1 << random.below(8)
                case 2: body.insert(UInt8(truncatingIfNeeded: random.next()), at: index)
                case 3: if body.count > 1 { body.remove(at: index) }
                default: body.removeLast(random.below(min(body.count, 9)))
                }
            }
            let frame: PeerFrame
            do {
                frame = try PeerFrame.decode(body: body)
            } catch {
                XCTAssertTrue(error is ControlProtocolError, "\(error) is not a protocol error")
                refused += 1
                continue
            }
            accepted += 1
            XCTAssertEqual(Array(frame.encode().dropFirst(4)), body, "\(frame) read from bytes it does not give back")
            switch frame {
            case .offer(let offer):
                XCTAssertLessThanOrEqual(offer.types.count, PeerLimits.maximumTypes)
                XCTAssertEqual(Set(offer.types.map(\.name)).count, offer.types.count, "a type twice")
                XCTAssertFalse(offer.types.contains { $0.name.isEmpty || $0.name.utf8.count > PasteboardLimits.maximumTypeNameLength })
                XCTAssertEqual(offer.origin.path.first, offer.origin.daemon)
                XCTAssertLessThanOrEqual(offer.origin.path.count, PeerLimits.maximumHops)
            case .cleared(_, let origin):
                XCTAssertEqual(origin.path.first, origin.daemon)
                XCTAssertLessThanOrEqual(origin.path.count, PeerLimits.maximumHops)
            case .welcome(_, _, let name, _): XCTAssertLessThanOrEqual(name.utf8.count, PeerLimits.maximumTextLength)
            case .failed(_, let reason): XCTAssertLessThanOrEqual(reason.utf8.count, PeerLimits.maximumTextLength)
            case .fetch(_, _, let type): XCTAssertFalse(type.isEmpty)
            case .data: break
            }
        }
        XCTAssertGreaterThan(accepted, 100, "changes that still make a frame (a byte of a value) are drawn")
        XCTAssertGreaterThan(refused, 1000)
    }

    func testFreeTextIsCutAtItsCapWhenSent() throws {
        let long = String(repeating: "é", count: PeerLimits.maximumTextLength)
        guard case .failed(_, let reason) = try PeerFrame.decode(body: Array(PeerFrame.failed(request: 1, reason: long).encode().dropFirst(4))) else {
            return XCTFail("not a failure")
        }
        XCTAssertLessThanOrEqual(reason.utf8.count, PeerLimits.maximumTextLength)
        XCTAssertTrue(long.hasPrefix(reason))
    }
}
