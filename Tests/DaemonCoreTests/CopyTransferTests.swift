// SPDX-License-Identifier: Apache-2.0
import ControlProtocol
@testable import DaemonCore
import Foundation
import PasteboardCore
import SystemSupport
import TestSupport
import XCTest

/// A copy sent in pieces (`beginCopy`, `copyChunk`s, `commitCopy`): the transfer record's decisions, and the
/// control server gathering one from a real socket — nothing handed out before the commit, the cap, the deadline
/// on the manual clock, a dropped connection, the remote socket's rate.
final class CopyTransferTests: XCTestCase {
    let now = MonotonicInstant(nanoseconds: 1_000_000_000)
    let begin = ControlRequest.beginCopy(pasteboard: "general", types: ["text/rtf", "UTF8_STRING"], options: [.sensitive],
                                         expiresAfterMilliseconds: 0)

    func testChunksOfEachTypeAreGatheredInOrderAndTheCommitIsTheCopyTheyStandFor() throws {
        var copy = CopyTransfer(maximumBytes: 1 << 20)
        XCTAssertEqual(copy.take(begin, now: now), .answer(.ok))
        XCTAssertTrue(copy.isOpen)
        XCTAssertEqual(copy.take(.copyChunk(representation: 1, data: Array("pla".utf8)), now: now), .taken)
        XCTAssertEqual(copy.take(.copyChunk(representation: 0, data: Array("{\\rtf1 ".utf8)), now: now), .taken)
        XCTAssertEqual(copy.take(.copyChunk(representation: 1, data: Array("in".utf8)), now: now), .taken)
        XCTAssertEqual(copy.take(.changeCount(pasteboard: "general"), now: now), .pass, "other requests go on meanwhile")
        XCTAssertEqual(copy.receivedBytes, 12)
        let item = try PasteboardItem([(PasteboardType("text/rtf"), Array("{\\rtf1 ".utf8)), (PasteboardType("UTF8_STRING"), Array("plain".utf8))])
        XCTAssertEqual(copy.take(.commitCopy, now: now), .commit(.setItems(pasteboard: "general", items: [item], options: [.sensitive])))
        XCTAssertFalse(copy.isOpen)

        // An expiring copy commits as setExpiringItems; a type no chunk came for is empty.
        XCTAssertEqual(copy.take(.beginCopy(pasteboard: "notes", types: ["a", "b"], options: [], expiresAfterMilliseconds: 500), now: now), .answer(.ok))
        XCTAssertEqual(copy.take(.copyChunk(representation: 0, data: [1, 2]), now: now), .taken)
        let expiring = try PasteboardItem([(PasteboardType("a"), [1, 2]), (PasteboardType("b"), [])])
        XCTAssertEqual(copy.take(.commitCopy, now: now),
                       .commit(.setExpiringItems(pasteboard: "notes", items: [expiring], options: [], expiresAfterMilliseconds: 500)))
    }

    func testOverTheCapTheCopyFailsAtOnceWithOneAnswerAndItsStragglersAreTakenSilently() {
        // The cap counts what the equivalent setItems body would be: a whole copy and one in pieces take the same.
        let whole = ControlRequest.setItems(pasteboard: "general", items: [try! PasteboardItem([(PasteboardType("a"), [UInt8](repeating: 7, count: 1000))])],
                                            options: []).encode().count - FrameEncoder.headerLength
        var copy = CopyTransfer(maximumBytes: whole)
        XCTAssertEqual(copy.take(.beginCopy(pasteboard: "general", types: ["a"], options: [], expiresAfterMilliseconds: 0), now: now), .answer(.ok))
        XCTAssertEqual(copy.take(.copyChunk(representation: 0, data: [UInt8](repeating: 7, count: 1000)), now: now), .taken, "exactly at the cap")
        guard case .answer(.error(code: .tooLarge, let message)) = copy.take(.copyChunk(representation: 0, data: [7]), now: now) else {
            return XCTFail("one byte over the cap is refused")
        }
        XCTAssertTrue(message.contains("\(whole) bytes") && message.contains("nothing was copied"), message)
        XCTAssertFalse(copy.isOpen)
        XCTAssertEqual(copy.take(.copyChunk(representation: 0, data: [7]), now: now), .taken)
        XCTAssertEqual(copy.take(.commitCopy, now: now), .taken, "the failure was the copy's answer")
        guard case .answer(.error(code: .badRequest, _)) = copy.take(.commitCopy, now: now) else { return XCTFail("no copy open now") }
        guard case .answer(.error(code: .badRequest, _)) = copy.take(.copyChunk(representation: 0, data: [1]), now: now) else {
            return XCTFail("a chunk with no copy open is refused")
        }
    }

    func testABadIndexOrASecondBeginGivesTheCopyUp() {
        var copy = CopyTransfer(maximumBytes: 1 << 20)
        _ = copy.take(begin, now: now)
        guard case .answer(.error(code: .badRequest, _)) = copy.take(.copyChunk(representation: 2, data: [1]), now: now) else {
            return XCTFail("an index past the types")
        }
        XCTAssertEqual(copy.take(.commitCopy, now: now), .taken)
        _ = copy.take(begin, now: now)
        guard case .answer(.error(code: .badRequest, _)) = copy.take(begin, now: now) else { return XCTFail("a begin while one is open") }
        XCTAssertFalse(copy.isOpen)
    }

    func testTheDeadlineGrowsWithWhatCameAndARefusedPieceFailsTheCopy() {
        var copy = CopyTransfer(maximumBytes: 1 << 30)
        XCTAssertNil(copy.deadline(idleTimeout: .seconds(30), allowance: 64 << 10))
        _ = copy.take(begin, now: now)
        XCTAssertEqual(copy.deadline(idleTimeout: .seconds(30), allowance: 64 << 10), now + .seconds(30))
        _ = copy.take(.copyChunk(representation: 0, data: [UInt8](repeating: 1, count: 1 << 20)), now: now)
        XCTAssertEqual(copy.deadline(idleTimeout: .seconds(30), allowance: 64 << 10, pendingBytes: 64 << 10), now + .seconds(30 + 17))
        guard case .error(code: .timedOut, let message)? = copy.expire() else { return XCTFail("expired") }
        XCTAssertTrue(message.contains("stalled"), message)
        XCTAssertNil(copy.expire())

        _ = copy.take(begin, now: now)
        let refusal = ControlResponse.error(code: .unavailable, message: "too many requests")
        XCTAssertEqual(copy.refused(.copyChunk(representation: 0, data: [1]), with: refusal), refusal)
        XCTAssertFalse(copy.isOpen)
        XCTAssertNil(copy.refused(.copyChunk(representation: 0, data: [1]), with: refusal), "stragglers of a failed copy")
        XCTAssertNil(copy.refused(.commitCopy, with: refusal))
        XCTAssertEqual(copy.refused(.changeCount(pasteboard: "general"), with: refusal), refusal)
    }

    func testARemoteCopysChunksCostAFractionOfARequest() {
        let access = RemoteAccess(requestsPerSecond: 2)
        var rate = access.newRate(now: now)
        XCTAssertNil(access.screen(.hello(version: 1, client: "t"), rate: &rate, now: now))
        XCTAssertNil(access.screen(begin, rate: &rate, now: now))
        // What is left of the burst of 4: two requests, 128 chunks.
        for _ in 0..<128 { XCTAssertNil(access.screen(.copyChunk(representation: 0, data: [1]), rate: &rate, now: now)) }
        XCTAssertNotNil(access.screen(.copyChunk(representation: 0, data: [1]), rate: &rate, now: now))
    }

    // MARK: - The control server, on a real socket

    final class Connection {
        let server: ControlServer
        let peer: FileDescriptor
        let id: ClientID
        var decoder = FrameDecoder()

        init(_ server: ControlServer, path: String, clock: ManualClock) throws {
            self.server = server
            peer = try UnixSocket.connect(path: path)
            server.acceptPending(now: clock.now())
            id = try XCTUnwrap(server.clients.keys.max())
        }

        /// Writes `requests` and lets the server read them; returns what it handed out, answering each `ok`.
        func send(_ requests: [ControlRequest], clock: ManualClock) throws -> [ControlRequest] {
            let bytes = requests.flatMap { $0.encode() }
            var handedOut: [ControlRequest] = []
            for start in stride(from: 0, to: bytes.count, by: 64 << 10) {
                try peer.writeAll(Array(bytes[start..<min(start + (64 << 10), bytes.count)]))
                server.receive(from: id, now: clock.now())
                while let request = server.nextRequest(from: id) {
                    handedOut.append(request)
                    server.send(.changeCount(pasteboard: "general", count: 1), to: id)
                }
            }
            return handedOut
        }

        /// What the server answered so far.
        func answers() throws -> [ControlResponse] {
            var answers: [ControlResponse] = []
            while try Poller.wait([PollRequest(peer, .readable)], timeoutMilliseconds: 100).first?.isEmpty == false {
                guard case .data(let bytes) = try peer.readAvailable(max: 1 << 16) else { break }
                decoder.append(bytes[...])
                while let body = try decoder.nextFrame() { answers.append(try ControlResponse.decode(body: body)) }
            }
            return answers
        }
    }

    func withServer(maximumFrameLength: Int = 64 << 20, access: RemoteAccess? = nil,
                    _ body: (ControlServer, String, ManualClock) throws -> Void) throws {
        let directory = NSTemporaryDirectory() + "copy-pieces-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let clock = ManualClock()
        let server = ControlServer(listener: try UnixListener(path: directory + "/control.sock"), userID: ProcessIdentity.userID,
                                   log: Logger(sink: { _ in }), maximumFrameLength: maximumFrameLength, access: access, clock: clock)
        defer { server.close() }
        try body(server, directory + "/control.sock", clock)
    }

    func testTheServerHandsOutOnlyTheCommittedCopyAndADroppedOneLeavesNothing() throws {
        try withServer { server, path, clock in
            let hello = ControlRequest.hello(version: 1, client: "test")
            let data = (0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            let chunks = stride(from: 0, to: data.count, by: 256 << 10).map {
                ControlRequest.copyChunk(representation: 1, data: Array(data[$0..<min($0 + (256 << 10), data.count)]))
            }
            // A copy cut short: the client goes away mid-copy. Nothing is handed out, nothing is counted after.
            let dropped = try Connection(server, path: path, clock: clock)
            XCTAssertEqual(try dropped.send([hello, begin] + chunks.prefix(5), clock: clock).map(\.kind), [.hello])
            XCTAssertEqual(server.requestsBeingRead, 1, "a copy under way counts in the transfers")
            try dropped.peer.close()
            server.receive(from: dropped.id, now: clock.now())
            XCTAssertNil(server.clients[dropped.id])
            XCTAssertEqual(server.requestsBeingRead, 0)

            let whole = try Connection(server, path: path, clock: clock)
            let handedOut = try whole.send([hello, begin] + chunks + [.copyChunk(representation: 0, data: Array("{\\rtf1}".utf8)), .commitCopy], clock: clock)
            XCTAssertEqual(handedOut.map(\.kind), [.hello, .setItems])
            guard case .setItems(let pasteboard, let items, let options)? = handedOut.last else { return XCTFail() }
            XCTAssertEqual(pasteboard, "general")
            XCTAssertEqual(options, [.sensitive])
            XCTAssertEqual(items.first?.data(for: PasteboardType("UTF8_STRING")), data)
            XCTAssertEqual(items.first?.data(for: PasteboardType("text/rtf")), Array("{\\rtf1}".utf8))
            let answers = try whole.answers()
            XCTAssertEqual(answers.count, 3, "hello, the begin's ok and the commit's count: chunks are not answered")
            XCTAssertEqual(answers[1], .ok)
        }
    }

    func testACopyThatStallsIsGivenUpOnTheManualClockAndTheClientToldAndClosed() throws {
        try withServer { server, path, clock in
            let client = try Connection(server, path: path, clock: clock)
            let moving = try Connection(server, path: path, clock: clock)
            let hello = ControlRequest.hello(version: 1, client: "test")
            let megabyte = ControlRequest.copyChunk(representation: 0, data: [UInt8](repeating: 1, count: 1 << 20))
            _ = try client.send([hello, begin], clock: clock)
            _ = try moving.send([hello, begin, megabyte], clock: clock)
            clock.advance(by: .seconds(29))
            server.expireIdle(now: clock.now())
            XCTAssertEqual(server.clients.count, 2)
            XCTAssertEqual(server.nextDeadline, clock.now() + .seconds(1))
            clock.advance(by: .seconds(1))
            server.expireIdle(now: clock.now())
            XCTAssertNil(server.clients[client.id], "no chunk in 30 s: given up and closed")
            XCTAssertNotNil(server.clients[moving.id], "a megabyte that came pays for 16 s more")
            guard case .error(code: .timedOut, let message)? = try client.answers().last else { return XCTFail("told why") }
            XCTAssertTrue(message.contains("nothing was copied"), message)
            clock.advance(by: .seconds(16))
            server.expireIdle(now: clock.now())
            XCTAssertNil(server.clients[moving.id])
        }
    }

    func testOverTheServersCapTheCopyIsRefusedAndTheConnectionServesOn() throws {
        try withServer(maximumFrameLength: 1 << 20) { server, path, clock in
            let client = try Connection(server, path: path, clock: clock)
            let chunk = ControlRequest.copyChunk(representation: 0, data: [UInt8](repeating: 1, count: 512 << 10))
            let handedOut = try client.send([.hello(version: 1, client: "test"), begin, chunk, chunk, chunk, .commitCopy,
                                             .changeCount(pasteboard: "general")], clock: clock)
            XCTAssertEqual(handedOut.map(\.kind), [.hello, .changeCount], "nothing of the copy is handed out")
            let answers = try client.answers()
            XCTAssertEqual(answers.count, 4, "hello, ok, the one refusal, the count")
            guard case .error(code: .tooLarge, _) = answers[2] else { return XCTFail("\(answers[2])") }
            XCTAssertNotNil(server.clients[client.id])
        }
    }

    func testTheRemoteServerTakesACopyInPiecesAtTheCostOfAboutOneRequest() throws {
        try withServer(access: RemoteAccess(requestsPerSecond: 2)) { server, path, clock in
            let client = try Connection(server, path: path, clock: clock)
            let chunks = Array(repeating: ControlRequest.copyChunk(representation: 1, data: [UInt8](repeating: 2, count: 4096)), count: 100)
            let handedOut = try client.send([.hello(version: 1, client: "test"), begin] + chunks + [.commitCopy], clock: clock)
            XCTAssertEqual(handedOut.map(\.kind), [.hello, .setItems])
            guard case .setItems(_, let items, _)? = handedOut.last else { return XCTFail() }
            XCTAssertEqual(items.first?.data(for: PasteboardType("UTF8_STRING"))?.count, 100 * 4096)
        }
    }
}
