// SPDX-License-Identifier: Apache-2.0
import ControlProtocol
@testable import DaemonCore
import PasteboardCore
import SystemSupport
import TestSupport
import XCTest

/// Daemons peered in one process: each an engine with a `FakeEndpoint` for its display and a `Peers`, joined by
/// real socket pairs (the dialling side's handshake answered as the remote socket's server answers it). What a
/// user would notice: a copy on one side is served on the other with its types and its bytes fetched on paste,
/// each side counts once, nothing echoes, a three-daemon loop settles, sensitive content never crosses, a silent
/// peer costs a refusal at the deadline, a dropped peer withdraws what it offered and is retried.
final class PeersTests: XCTestCase {
    let clock = ManualClock()
    var logLines: [String] = []

    final class Side {
        let engine: PasteboardEngine
        let peers: Peers
        let display: FakeEndpoint
        var nextID: UInt32 = 2
        var serial: UInt64 = 0
        init(daemon: UInt64, clock: ManualClock, log: Logger) {
            engine = PasteboardEngine(clock: clock, log: log)
            display = FakeEndpoint(1, "display of \(daemon)")
            var next: UInt32 = 2
            peers = Peers(engine: engine, clock: clock, log: log, name: "daemon \(daemon)", stateDirectory: nil,
                          maximumFrameBytes: 1 << 20, daemon: daemon) {
                defer { next += 1 }
                return EndpointID(next)
            }
            let engine = engine
            peers.count = { engine.counts[$0] ?? 0 }
            engine.attach(display)
        }

        /// A copy on this side's display (lazy: its types, no bytes).
        func copy(_ types: [String] = ["UTF8_STRING", "text/html"], pasteboard: PasteboardName = .general, sensitive: Bool = false,
                  content: PasteboardContent? = nil) {
            serial += 1
            let count = (engine.counts[pasteboard] ?? 0) + 1
            engine.changed(pasteboard, on: display.id, count: count,
                           .offered(Offer(pasteboard: pasteboard, origin: display.id, serial: serial, types: types.map { PasteboardType($0) },
                                          isSensitive: sensitive, content: content)))
        }

        var count: UInt64 { engine.counts[.general] ?? 0 }
    }

    func side(_ daemon: UInt64) -> Side { Side(daemon: daemon, clock: clock, log: Logger(sink: { [unowned self] in logLines.append($0) })) }

    /// Connects `dialer` to `acceptor` as `pb peer add` would through a socket, the acceptor's remote socket
    /// answering the control hello and handing the connection over on `peer`.
    @discardableResult
    func peer(_ dialer: Side, to acceptor: Side, socket: String = "/peer.sock") throws -> (FileDescriptor, FileDescriptor) {
        let (near, far, requests, handshake) = try dial(dialer, socket)
        var decoder = handshake
        XCTAssertEqual(requests[0].kind, .hello)
        try far.writeAll(ControlResponse.hello(version: 1, daemonPID: 1, daemonVersion: "test").encode())
        guard case .peer(let version, let daemon, let name, let maximum) = requests[1] else { throw FixtureError("no peer request") }
        guard case .success(let identity) = acceptor.peers.admit(version: version, daemon: daemon, name: name, maximumFrameBytes: maximum) else {
            throw FixtureError("refused")
        }
        acceptor.peers.accept(identity, fd: far, received: decoder.takeBufferedBytes())
        pump([dialer, acceptor])
        return (near, far)
    }

    /// `dialer` adds the peer at `socket`, reached through a socket pair: its near end, the far end (the acceptor's
    /// side), and the two requests the dialer sent first (hello, peer), with what came after them still buffered.
    func dial(_ dialer: Side, _ socket: String) throws -> (near: FileDescriptor, far: FileDescriptor, requests: [ControlRequest], decoder: FrameDecoder) {
        let (near, far) = try UnixSocket.pair(nonBlocking: true)
        dialer.peers.dial = { _ in .success(near) }
        XCTAssertNil(dialer.peers.add(socket, persistent: false))
        var decoder = FrameDecoder()
        var requests: [ControlRequest] = []
        while requests.count < 2 {
            guard case .data(let bytes) = try far.readAvailable() else { throw FixtureError("no handshake") }
            decoder.append(bytes)
            while let frame = try decoder.nextFrame() { requests.append(try ControlRequest.decode(body: frame)) }
        }
        return (near, far, requests, decoder)
    }

    /// Lets every connection of `sides` read and write until nothing moves.
    func pump(_ sides: [Side]) {
        for _ in 0..<200 {
            var moved = false
            for side in sides {
                let polls = side.peers.pollRequests
                guard !polls.isEmpty, let ready = try? Poller.wait(polls.map(\.0), timeoutMilliseconds: 0) else { continue }
                for (index, (_, endpoint)) in polls.enumerated() where !ready[index].isEmpty {
                    side.peers.handle(ready[index], for: endpoint)
                    moved = true
                }
            }
            if !moved { return }
        }
        XCTFail("the peers never settled")
    }

    func fetch(_ side: Side, _ type: String) -> FetchResult? {
        guard let offer = side.display.served[.general] else { return .failed("nothing served") }
        var result: FetchResult?
        side.engine.fetch(.general, type: PasteboardType(type), serial: offer.serial, origin: offer.origin, for: side.display.id) { result = $0 }
        return result
    }

    // MARK: -

    func testACopyIsOfferedOnTheOtherSideAtOnceAndItsBytesCrossOnPaste() throws {
        let (a, b) = (side(1), side(2))
        try peer(a, to: b)
        XCTAssertEqual(a.peers.list.map(\.state), ["connected"])
        XCTAssertEqual(b.peers.list.map(\.socket), ["(accepted) daemon 1"])

        a.copy()
        pump([a, b])
        XCTAssertEqual(b.display.served[.general]?.types.map(\.rawValue), ["UTF8_STRING", "text/html"], "the token: types, no bytes")
        XCTAssertTrue(a.display.fetches.isEmpty, "no bytes read for the offer")
        XCTAssertEqual(b.count, 1)

        var result: FetchResult?
        let offer = try XCTUnwrap(b.display.served[.general])
        b.engine.fetch(.general, type: .html, serial: offer.serial, origin: offer.origin, for: b.display.id) { result = $0 }
        pump([a, b])
        XCTAssertEqual(a.display.fetches.map(\.type), [.html], "the fetch reached the origin's display")
        a.display.answer(.data(Array("<b>a</b>".utf8)))
        pump([a, b])
        XCTAssertEqual(result, .data(Array("<b>a</b>".utf8)))
    }

    func testEachSideCountsEveryCopyOnceAndNothingEchoes() throws {
        let (a, b) = (side(1), side(2))
        try peer(a, to: b)
        a.copy()
        pump([a, b])
        b.copy(["STRING"])
        pump([a, b])
        a.copy(["image/png"])
        pump([a, b])
        XCTAssertEqual(a.count, 3, "A: its two copies and B's")
        XCTAssertEqual(b.count, 3)
        XCTAssertEqual(a.engine.current[.general]?.origin, a.display.id, "A's own copy is current on A")
        XCTAssertEqual(b.display.served[.general]?.types.map(\.rawValue), ["image/png"])
        pump([a, b])
        XCTAssertEqual([a.count, b.count], [3, 3], "settled: no ping-pong")
    }

    func testAThreeDaemonLoopSettlesWithOneCountPerCopy() throws {
        let (a, b, c) = (side(1), side(2), side(3))
        try peer(a, to: b, socket: "/b.sock")
        try peer(b, to: c, socket: "/c.sock")
        try peer(c, to: a, socket: "/a.sock")
        a.copy()
        pump([a, b, c])
        XCTAssertEqual([a.count, b.count, c.count], [1, 1, 1])
        XCTAssertNotNil(b.display.served[.general])
        XCTAssertNotNil(c.display.served[.general])
        c.copy(["STRING"])
        pump([a, b, c])
        XCTAssertEqual([a.count, b.count, c.count], [2, 2, 2])
        XCTAssertEqual(a.display.served[.general]?.types.map(\.rawValue), ["STRING"])
        XCTAssertEqual(b.display.served[.general]?.types.map(\.rawValue), ["STRING"])

        // A paste on B of C's copy, whichever way the token came.
        var result: FetchResult?
        let offer = try XCTUnwrap(b.display.served[.general])
        b.engine.fetch(.general, type: .string, serial: offer.serial, origin: offer.origin, for: b.display.id) { result = $0 }
        pump([a, b, c])
        c.display.answer(.data(Array("from C".utf8)))
        pump([a, b, c])
        XCTAssertEqual(result, .data(Array("from C".utf8)))
        XCTAssertEqual([a.count, b.count, c.count], [2, 2, 2])
    }

    func testAChainPassesChangesOnAndAClearFollows() throws {
        let (a, b, c) = (side(1), side(2), side(3))
        try peer(a, to: b, socket: "/b.sock")
        try peer(b, to: c, socket: "/c.sock")
        a.copy(["STRING"])
        pump([a, b, c])
        XCTAssertEqual(c.display.served[.general]?.types.map(\.rawValue), ["STRING"], "A's copy reaches C through B")
        a.engine.changed(.general, on: a.display.id, count: 2, .cleared)
        pump([a, b, c])
        XCTAssertNil(c.display.served[.general], "the clear follows")
        XCTAssertEqual([a.count, b.count, c.count], [2, 2, 2])
    }

    func testSensitiveLocalOnlyAndSecretContentNeverCrossAndThePeerStopsServingTheOlderCopy() throws {
        let (a, b) = (side(1), side(2))
        try peer(a, to: b)
        a.copy(["STRING"])
        pump([a, b])
        XCTAssertNotNil(b.display.served[.general])

        a.copy(["STRING"], sensitive: true)
        pump([a, b])
        XCTAssertNil(b.display.served[.general], "the older copy is no longer served")
        XCTAssertEqual(b.display.withdrawn, [.general])
        let item = try PasteboardItem([(PasteboardType.utf8String, Array("hunter2".utf8))])
        a.copy(["UTF8_STRING"], content: PasteboardContent(items: [item], isLocalOnly: true))
        a.copy(["UTF8_STRING", "x-kde-passwordManagerHint"])
        pump([a, b])
        XCTAssertNil(b.display.served[.general])
        XCTAssertTrue(logLines.allSatisfy { !$0.contains("hunter2") })
    }

    func testAPeerThatNeverAnswersCostsARefusalAtTheDeadline() throws {
        let (a, b) = (side(1), side(2))
        try peer(a, to: b)
        a.copy(["STRING"])
        pump([a, b])
        var result: FetchResult?
        let offer = try XCTUnwrap(b.display.served[.general])
        b.engine.fetch(.general, type: .string, serial: offer.serial, origin: offer.origin, for: b.display.id) { result = $0 }
        pump([a, b])
        XCTAssertEqual(a.display.fetches.count, 1, "asked, never answered")
        clock.advance(by: .seconds(3))
        b.engine.expire(now: clock.now())
        b.peers.expire(now: clock.now())
        guard case .failed(let why)? = result else { return XCTFail("\(String(describing: result))") }
        XCTAssertTrue(why.contains("did not answer"), why)
        XCTAssertEqual(b.engine.fetchesInFlight, 0)
        XCTAssertEqual(b.peers.nextDeadline, nil, "nothing left waiting")
    }

    func testADroppedPeerWithdrawsWhatItOfferedIsRetriedAndNeverBlocks() throws {
        let (a, b) = (side(1), side(2))
        try peer(a, to: b)
        b.copy(["STRING"])
        pump([a, b])
        XCTAssertNotNil(a.display.served[.general])
        var result: FetchResult?
        let offer = try XCTUnwrap(a.display.served[.general])
        a.engine.fetch(.general, type: .string, serial: offer.serial, origin: offer.origin, for: a.display.id) { result = $0 }
        pump([a, b])

        // B goes away mid-fetch: A's reader is refused at once, what B offered is withdrawn, the peer is retried.
        b.peers.stop()
        a.peers.dial = { _ in .failure(PeerRefusal("cannot connect to /peer.sock: connection refused")) }
        pump([a, b])
        guard case .failed? = result else { return XCTFail("\(String(describing: result))") }
        XCTAssertNil(a.display.served[.general])
        XCTAssertEqual(a.peers.list.first?.state, "disconnected")
        clock.advance(by: .seconds(1))
        a.peers.expire(now: clock.now())
        XCTAssertEqual(a.peers.list.first?.state, "disconnected")
        XCTAssertEqual(a.peers.list.first?.lastError, "cannot connect to /peer.sock: connection refused")
        XCTAssertNotNil(a.peers.nextDeadline, "retried")
        a.copy(["STRING"])
        XCTAssertEqual(a.count, 2, "the local display is served meanwhile")
        XCTAssertTrue(a.peers.remove("/peer.sock"))
        XCTAssertNil(a.peers.nextDeadline)
    }

    func testWhenBothHeldSomethingTheDaemonWithTheLargerIdKeepsItsOwnOnBoth() throws {
        let (a, b) = (side(1), side(2))
        a.copy(["STRING"])
        b.copy(["image/png"])
        try peer(a, to: b)
        pump([a, b])
        XCTAssertEqual(a.display.served[.general]?.types.map(\.rawValue), ["image/png"], "B (id 2) wins")
        XCTAssertNil(b.display.served[.general], "B keeps its own")
        pump([a, b])
        XCTAssertEqual([a.count, b.count], [2, 1])
    }

    func testTwoDaemonsThatAddedEachOtherShareOneConnectionAndTheOtherIsListedRedundant() throws {
        let (a, b) = (side(1), side(2))
        try peer(a, to: b, socket: "/b.sock")
        let (_, far, requests, _) = try dial(b, "/a.sock")
        guard case .peer(let version, let daemon, let name, let maximum) = requests[1],
              case .failure(let refusal) = a.peers.admit(version: version, daemon: daemon, name: name, maximumFrameBytes: maximum) else {
            return XCTFail("admitted twice")
        }
        XCTAssertTrue(refusal.redundant)
        try far.writeAll(ControlResponse.hello(version: 1, daemonPID: 1, daemonVersion: "test").encode()
                         + ControlResponse.error(code: .unavailable, message: refusal.reason).encode())
        pump([a, b])
        XCTAssertEqual(b.peers.list.first { $0.socket == "/a.sock" }?.state, "redundant")
        a.copy(["STRING"])
        pump([a, b])
        XCTAssertEqual(b.count, 1, "the one connection carries the copies")
    }

    func testPrimaryCrossesOnlyWhenShared() throws {
        let (a, b) = (side(1), side(2))
        try peer(a, to: b)
        a.engine.isShared = { _ in true }
        a.copy(["STRING"], pasteboard: .primary)
        pump([a, b])
        XCTAssertNil(b.display.served[.primary], "B does not share PRIMARY")
        b.engine.isShared = { _ in true }
        a.copy(["STRING"], pasteboard: .primary)
        pump([a, b])
        XCTAssertNotNil(b.display.served[.primary])
    }

    func testAHostilePeerClosesItsOwnConnectionOnly() throws {
        let (a, b) = (side(1), side(2))
        try peer(a, to: b)
        // Something speaking for B sends garbage to A.
        let endpoint = try XCTUnwrap(a.peers.pollRequests.first?.1)
        try b.peers.pollRequests.first?.1.connection.send([FrameEncoder.frame([1, 0x02, 0x40, 0xFF])])
        pump([a, b])
        XCTAssertTrue(endpoint.isClosed)
        XCTAssertTrue(a.peers.list.first?.lastError.contains("malformed") == true, "\(a.peers.list)")
        a.copy(["STRING"])
        XCTAssertEqual(a.count, 1, "the engine goes on")
    }
}
