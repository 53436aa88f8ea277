// SPDX-License-Identifier: Apache-2.0
import ControlProtocol
@testable import DaemonCore
import PasteboardCore
import SystemSupport
import TestSupport
import XCTest

/// The peering session and the loop guard as values: the handshake (answered, refused, garbage, never answered),
/// fetches both ways (a stale token, a cap, a late answer, a peer that never answers, a value the peer would not
/// accept), and the ledger's verdicts.
final class PeerSessionTests: XCTestCase {
    let clock = ManualClock()
    let identity = PeerIdentity(daemon: 20, name: "peer", maximumFrameBytes: 1 << 20)

    func body(_ frame: PeerFrame) -> [UInt8] { Array(frame.encode().dropFirst(4)) }
    func body(_ response: ControlResponse) -> [UInt8] { Array(response.encode().dropFirst(4)) }

    func open() -> PeerSession {
        PeerSession(accepted: identity, maximumFrameBytes: 1 << 20, fetchTimeout: .seconds(3))
    }

    // MARK: - Handshake

    func testTheDialerOpensOnHelloThenWelcome() throws {
        let opening = PeerSession.opening(daemon: 10, name: "home", maximumFrameBytes: 1 << 20)
        var decoder = FrameDecoder()
        decoder.append(opening)
        XCTAssertEqual(try ControlRequest.decode(body: try XCTUnwrap(decoder.nextFrame())).kind, .hello)
        XCTAssertEqual(try ControlRequest.decode(body: try XCTUnwrap(decoder.nextFrame())),
                       .peer(version: PeerProtocolVersion.current, daemon: 10, name: "home", maximumFrameBytes: 1 << 20))

        var session = PeerSession(dialingAt: clock.now(), maximumFrameBytes: 1 << 20, fetchTimeout: .seconds(3))
        XCTAssertEqual(session.receive(body(.hello(version: 1, daemonPID: 9, daemonVersion: "1")), now: clock.now()), [])
        XCTAssertFalse(session.isOpen)
        let events = session.receive(body(.welcome(version: 1, daemon: 20, name: "peer", maximumFrameBytes: 1 << 20)), now: clock.now())
        XCTAssertEqual(events, [.opened(identity)])
        XCTAssertEqual(session.identity, identity)
    }

    func testARefusedHandshakeClosesWithThePeersReason() {
        var session = PeerSession(dialingAt: clock.now(), maximumFrameBytes: 1 << 20, fetchTimeout: .seconds(3))
        _ = session.receive(body(.hello(version: 1, daemonPID: 9, daemonVersion: "1")), now: clock.now())
        let events = session.receive(body(.error(code: .badRequest, message: "that socket is this pasteboardd's own")), now: clock.now())
        XCTAssertEqual(events, [.closed("that socket is this pasteboardd's own")])
        XCTAssertEqual(session.receive(body(.welcome(version: 1, daemon: 2, name: "", maximumFrameBytes: 1 << 20)), now: clock.now()), [],
                       "a closed session takes nothing more")
    }

    func testGarbageOrAnOldPeeringVersionInTheHandshakeCloses() {
        var session = PeerSession(dialingAt: clock.now(), maximumFrameBytes: 1 << 20, fetchTimeout: .seconds(3))
        XCTAssertEqual(session.receive([1, 2, 3, 4, 5], now: clock.now()).count, 1)
        XCTAssertFalse(session.isOpen)
        var old = PeerSession(dialingAt: clock.now(), maximumFrameBytes: 1 << 20, fetchTimeout: .seconds(3))
        _ = old.receive(body(.hello(version: 1, daemonPID: 9, daemonVersion: "1")), now: clock.now())
        XCTAssertEqual(old.receive(body(.welcome(version: 9, daemon: 2, name: "", maximumFrameBytes: 1 << 20)), now: clock.now()),
                       [.closed("the peer speaks peering version 9")])
    }

    func testAPeerThatNeverAnswersTheHandshakeIsClosedAtTheDeadline() {
        var session = PeerSession(dialingAt: clock.now(), maximumFrameBytes: 1 << 20, fetchTimeout: .seconds(3))
        XCTAssertEqual(session.nextDeadline, clock.now() + PeerSession.handshakeTimeout)
        clock.advance(by: .seconds(4))
        XCTAssertEqual(session.expire(now: clock.now()), [])
        clock.advance(by: .seconds(1))
        XCTAssertEqual(session.expire(now: clock.now()).count, 1)
        XCTAssertNil(session.nextDeadline)
    }

    func testTheAcceptorRefusesItselfAPeerTwiceAnOtherVersionAndTinyFrames() {
        func admit(_ version: UInt8 = PeerProtocolVersion.current, daemon: UInt64 = 5, frames: UInt64 = 1 << 20) -> PeerRefusal? {
            if case .failure(let refusal) = PeerSession.admit(version: version, daemon: daemon, name: "x", maximumFrameBytes: frames,
                                                              ourDaemon: 1, peered: [3]) { return refusal }
            return nil
        }
        XCTAssertNil(admit())
        XCTAssertEqual(admit(daemon: 1)?.reason, "that socket is this pasteboardd's own")
        XCTAssertEqual(admit(daemon: 3)?.redundant, true)
        XCTAssertNotNil(admit(2))
        XCTAssertNotNil(admit(frames: 100))
    }

    func testWhatAPeerSaysIsMadePrintableBeforeItReachesALogOrATerminal() throws {
        guard case .success(let identity) = PeerSession.admit(version: 1, daemon: 5, name: "evil\u{1B}]52;c;AAAA\u{07}\tname\n",
                                                              maximumFrameBytes: 1 << 20, ourDaemon: 1, peered: []) else {
            return XCTFail("refused")
        }
        XCTAssertEqual(identity.name, "evil?]52;c;AAAA??name?")
        var session = open()
        session.accept(PeerOffer(token: 1, pasteboard: "CLIPBOARD", origin: PeerOrigin(daemon: 20, serial: 1, path: [20]),
                                 types: [PeerType("STRING")]), serial: 1)
        guard case .success(let (request, _)) = session.ask(.general, serial: 1, type: .string, now: clock.now()) else { return XCTFail("not asked") }
        let events = session.receive(body(.failed(request: request, reason: "no\u{1B}[2J" + String(repeating: "x", count: 500))), now: clock.now())
        guard case .answered(_, .failed(let reason))? = events.first else { return XCTFail("\(events)") }
        XCTAssertFalse(reason.unicodeScalars.contains { $0.value < 0x20 })
        XCTAssertLessThanOrEqual(reason.count, 220)
    }

    // MARK: - Open

    func testAMalformedFrameOrASecondWelcomeCloses() {
        var session = open()
        XCTAssertEqual(session.receive([1, 0x04, 0x40, 1], now: clock.now()).count, 1)
        XCTAssertFalse(session.isOpen)
        var again = open()
        XCTAssertEqual(again.receive(body(.welcome(version: 1, daemon: 1, name: "", maximumFrameBytes: 1 << 20)), now: clock.now()),
                       [.closed("the peer sent a second welcome")])
    }

    func testAFetchNamesOnlyTheLatestTokenSent() throws {
        var session = open()
        let across = PeerOrigin(daemon: 10, serial: 1, path: [10])
        guard case .offer(let first)? = session.announce(.general, origin: EndpointID(1), serial: 4, across: across, types: [PeerType("STRING")]) else {
            return XCTFail("no offer")
        }
        XCTAssertEqual(session.receive(body(.fetch(request: 1, token: first.token, type: "STRING")), now: clock.now()),
                       [.fetchAsked(request: 1, pasteboard: .general, origin: EndpointID(1), serial: 4, type: PasteboardType("STRING"))])
        _ = session.announce(.general, origin: EndpointID(1), serial: 5, across: across, types: [PeerType("STRING")])
        XCTAssertEqual(session.receive(body(.fetch(request: 2, token: first.token, type: "STRING")), now: clock.now()),
                       [.send(.failed(request: 2, reason: "the content asked for is no longer offered"))])
        XCTAssertEqual(session.answer(1, .data([1])), .data(request: 1, bytes: [1]))
        XCTAssertNil(session.answer(1, .data([1])), "each fetch is answered once")
    }

    func testTheFetchesAPeerAsksAreCapped() {
        var session = open()
        guard case .offer(let offer)? = session.announce(.general, origin: EndpointID(1), serial: 1,
                                                         across: PeerOrigin(daemon: 10, serial: 1, path: [10]), types: [PeerType("STRING")]) else {
            return XCTFail("no offer")
        }
        for request in 1...UInt64(PeerSession.maximumFetchesAnswered) {
            guard case .fetchAsked? = session.receive(body(.fetch(request: request, token: offer.token, type: "STRING")), now: clock.now()).first else {
                return XCTFail("fetch \(request) refused")
            }
        }
        let over = session.receive(body(.fetch(request: 1000, token: offer.token, type: "STRING")), now: clock.now())
        guard case .send(.failed(1000, _))? = over.first else { return XCTFail("\(over)") }
        XCTAssertEqual(session.receive(body(.fetch(request: 5, token: offer.token, type: "STRING")), now: clock.now()).count, 1)
        XCTAssertFalse(session.isOpen, "the same request twice is a broken peer")
    }

    func testAFetchOfThePeerIsAnsweredOnceAndForgottenAtItsDeadline() throws {
        var session = open()
        let offer = PeerOffer(token: 77, pasteboard: "CLIPBOARD", origin: PeerOrigin(daemon: 20, serial: 1, path: [20]), types: [PeerType("STRING")])
        session.accept(offer, serial: 3)
        guard case .success(let (request, frame)) = session.ask(.general, serial: 3, type: PasteboardType("STRING"), now: clock.now()) else {
            return XCTFail("not asked")
        }
        XCTAssertEqual(frame, .fetch(request: request, token: 77, type: "STRING"))
        guard case .failure = session.ask(.general, serial: 2, type: PasteboardType("STRING"), now: clock.now()) else {
            return XCTFail("an older offer is asked for")
        }
        XCTAssertEqual(session.receive(body(.data(request: 999, bytes: [1])), now: clock.now()), [], "an answer to nothing asked is ignored")
        XCTAssertEqual(session.receive(body(.data(request: request, bytes: [4, 2])), now: clock.now()), [.answered(request: request, .data([4, 2]))])
        XCTAssertEqual(session.receive(body(.data(request: request, bytes: [4, 2])), now: clock.now()), [], "answered once")

        // A peer that never answers: the fetch is forgotten at its deadline (the reader was refused by the engine).
        guard case .success(let (silent, _)) = session.ask(.general, serial: 3, type: PasteboardType("STRING"), now: clock.now()) else {
            return XCTFail("not asked")
        }
        XCTAssertEqual(session.fetchesAsked, 1)
        clock.advance(by: .seconds(3))
        XCTAssertEqual(session.expire(now: clock.now()), [.answered(request: silent, .failed("the peer did not answer within 3.0 seconds"))])
        XCTAssertEqual(session.fetchesAsked, 0)
        XCTAssertEqual(session.receive(body(.data(request: silent, bytes: [1])), now: clock.now()), [], "a late answer is dropped")
    }

    func testAValueTheAskingSideWouldNotAcceptIsRefusedNotSent() throws {
        var session = PeerSession(accepted: PeerIdentity(daemon: 20, name: "", maximumFrameBytes: PeerLimits.minimumFrameBytes),
                                  maximumFrameBytes: 1 << 20, fetchTimeout: .seconds(3))
        guard case .offer(let offer)? = session.announce(.general, origin: EndpointID(1), serial: 1,
                                                         across: PeerOrigin(daemon: 10, serial: 1, path: [10]),
                                                         types: [PeerType("STRING", size: 10), PeerType("image/png", size: 1 << 20)]) else {
            return XCTFail("no offer")
        }
        XCTAssertEqual(offer.types.map(\.name), ["STRING"], "a type larger than the peer accepts is left out of the offer")
        _ = session.receive(body(.fetch(request: 1, token: offer.token, type: "STRING")), now: clock.now())
        guard case .failed(1, let reason)? = session.answer(1, .data(Array(repeating: 0, count: PeerLimits.minimumFrameBytes))) else {
            return XCTFail("sent")
        }
        XCTAssertTrue(reason.contains("more than the asking pasteboardd accepts"), reason)
    }

    func testClosingFailsNothingTwice() {
        var session = open()
        XCTAssertEqual(session.close("gone"), [.closed("gone")])
        XCTAssertEqual(session.close("again"), [])
        XCTAssertNil(session.announce(.general, origin: EndpointID(1), serial: 1, across: PeerOrigin(daemon: 1, serial: 1, path: [1]),
                                      types: [PeerType("STRING")]))
    }

    // MARK: - The loop guard

    func testTheLedgerDropsLoopsDuplicatesAndFarTravellers() {
        var ledger = PeerLedger(daemon: 2)
        XCTAssertEqual(ledger.judge(PeerOrigin(daemon: 1, serial: 1, path: [1]), of: .general), .new)
        XCTAssertEqual(ledger.judge(PeerOrigin(daemon: 1, serial: 1, path: [1, 3]), of: .general), .duplicate,
                       "the same change by another way (a triangle of peers)")
        XCTAssertEqual(ledger.judge(PeerOrigin(daemon: 1, serial: 1, path: [1]), of: PasteboardName(rawValue: "notes")), .new,
                       "serials are per pasteboard")
        XCTAssertEqual(ledger.judge(PeerOrigin(daemon: 1, serial: 2, path: [1, 2, 3]), of: .general), .loop, "came back through us")
        XCTAssertEqual(ledger.judge(PeerOrigin(daemon: 2, serial: 9, path: [2, 3]), of: .general), .loop, "our own change came back")
        XCTAssertEqual(ledger.judge(PeerOrigin(daemon: 5, serial: 1, path: Array(5..<(5 + UInt64(PeerLimits.maximumHops)))), of: .general), .tooFar)
        XCTAssertEqual(ledger.judge(PeerOrigin(daemon: 1, serial: 2, path: [1]), of: .general), .new)

        let mine = ledger.originate(.general)
        XCTAssertEqual(mine, PeerOrigin(daemon: 2, serial: 1, path: [2]))
        XCTAssertEqual(ledger.originate(.general).serial, 2)
        XCTAssertEqual(ledger.forwarding(PeerOrigin(daemon: 1, serial: 4, path: [1])).path, [1, 2])
    }
}
