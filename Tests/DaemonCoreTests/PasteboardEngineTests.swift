// SPDX-License-Identifier: Apache-2.0
@testable import DaemonCore
import PasteboardCore
import SystemSupport
import TestSupport
import XCTest

/// An endpoint that records what the engine asks of it and answers fetches when the test says so.
final class FakeEndpoint: PasteboardEndpoint {
    let id: EndpointID
    let name: String
    private(set) var served: [PasteboardName: Offer] = [:]
    private(set) var withdrawn: [PasteboardName] = []
    private(set) var counts: [PasteboardName: UInt64] = [:]
    /// Fetches asked of this endpoint, not yet answered.
    private(set) var fetches: [(pasteboard: PasteboardName, type: PasteboardType, serial: UInt64, answer: (FetchResult) -> Void)] = []
    /// Reports every content it is served back to the engine as a change of its own (a broken echo guard).
    var echoes: ((Offer) -> Void)?

    init(_ id: UInt32, _ name: String) {
        self.id = EndpointID(id)
        self.name = name
    }

    /// What it answers `keptContent` with, per pasteboard.
    var kept: [PasteboardName: PasteboardContent] = [:]

    func serve(_ offer: Offer, count: UInt64) {
        adopt(count: count, for: offer.pasteboard)
        served[offer.pasteboard] = offer
        echoes?(offer)
    }
    func withdraw(_ pasteboard: PasteboardName, count: UInt64) {
        adopt(count: count, for: pasteboard)
        served[pasteboard] = nil
        withdrawn.append(pasteboard)
    }
    func keptContent(of pasteboard: PasteboardName) -> PasteboardContent? { kept[pasteboard] }
    func replaceContent(of pasteboard: PasteboardName, with content: PasteboardContent) { served[pasteboard]?.content = content }
    func adopt(count: UInt64, for pasteboard: PasteboardName) { counts[pasteboard] = max(counts[pasteboard] ?? 0, count) }
    func fetch(_ pasteboard: PasteboardName, type: PasteboardType, serial: UInt64, completion: @escaping (FetchResult) -> Void) {
        fetches.append((pasteboard, type, serial, completion))
    }

    /// Answers the oldest fetch.
    func answer(_ result: FetchResult) {
        fetches.removeFirst().answer(result)
    }
}

/// The engine's cross-endpoint rules, without any display: tokens, lazy fetches, ordering and the loop guards.
final class PasteboardEngineTests: XCTestCase {
    let clock = ManualClock()
    var engine: PasteboardEngine!
    var a: FakeEndpoint!
    var b: FakeEndpoint!
    var logLines: [String] = []

    override func setUp() {
        engine = PasteboardEngine(clock: clock, log: Logger(sink: { [unowned self] in self.logLines.append($0) }))
        a = FakeEndpoint(1, ":1")
        b = FakeEndpoint(2, ":2")
        engine.attach(a)
        engine.attach(b)
    }

    func offer(_ serial: UInt64, from endpoint: FakeEndpoint, types: [String] = ["UTF8_STRING", "text/html"],
               pasteboard: PasteboardName = .general) -> Offer {
        Offer(pasteboard: pasteboard, origin: endpoint.id, serial: serial, types: types.map { PasteboardType($0) })
    }

    func testAnOfferIsServedOnEveryOtherEndpointWithItsCount() {
        engine.changed(.general, on: a.id, count: 7, .offered(offer(1, from: a)))
        XCTAssertEqual(b.served[.general]?.types.map(\.rawValue), ["UTF8_STRING", "text/html"])
        XCTAssertNil(a.served[.general], "never served back to its origin")
        XCTAssertEqual(b.counts[.general], 7, "one pasteboard, one count")
        XCTAssertEqual(engine.counts[.general], 7)
    }

    func testAFetchGoesToTheOriginAndItsAnswerToTheReader() {
        engine.changed(.general, on: a.id, count: 1, .offered(offer(1, from: a)))
        var result: FetchResult?
        engine.fetch(.general, type: .html, serial: 1, origin: a.id, for: b.id) { result = $0 }
        XCTAssertEqual(a.fetches.map(\.type), [.html], "bytes cross only when a reader asks")
        XCTAssertNil(result)
        a.answer(.data(Array("<b>x</b>".utf8)))
        XCTAssertEqual(result, .data(Array("<b>x</b>".utf8)))
    }

    func testContentAtHandIsFetchedWithoutAskingTheOrigin() throws {
        let item = try PasteboardItem([(PasteboardType.utf8String, Array("copied".utf8))])
        var at = offer(1, from: a, types: ["UTF8_STRING"])
        at.content = PasteboardContent(items: [item])
        engine.changed(.general, on: a.id, count: 1, .offered(at))
        var result: FetchResult?
        engine.fetch(.general, type: .utf8String, serial: 1, origin: a.id, for: b.id) { result = $0 }
        XCTAssertEqual(result, .data(Array("copied".utf8)))
        XCTAssertTrue(a.fetches.isEmpty)
    }

    func testAFetchOfAChangedPasteboardIsRefusedAtOnce() {
        engine.changed(.general, on: a.id, count: 1, .offered(offer(1, from: a)))
        engine.changed(.general, on: b.id, count: 2, .offered(offer(1, from: b)))
        var result: FetchResult?
        engine.fetch(.general, type: .html, serial: 1, origin: a.id, for: b.id) { result = $0 }
        guard case .failed(let why)? = result else { return XCTFail("\(String(describing: result))") }
        XCTAssertTrue(why.contains("changed"), why)
        XCTAssertTrue(a.fetches.isEmpty, "a stale fetch never reaches the old origin")
        XCTAssertEqual(a.served[.general]?.origin, b.id, "the newer change is served on the first endpoint")
        XCTAssertEqual(a.counts[.general], 2)
    }

    func testAFetchIsNeverRoutedBackToTheSideAsking() {
        engine.changed(.general, on: a.id, count: 1, .offered(offer(1, from: a)))
        var result: FetchResult?
        engine.fetch(.general, type: .html, serial: 1, origin: a.id, for: a.id) { result = $0 }
        guard case .failed? = result else { return XCTFail("\(String(describing: result))") }
        XCTAssertTrue(a.fetches.isEmpty)
    }

    func testAnOriginThatDoesNotAnswerFailsTheFetchAtItsDeadline() {
        engine.fetchTimeout = .seconds(2)
        engine.changed(.general, on: a.id, count: 1, .offered(offer(1, from: a)))
        var result: FetchResult?
        engine.fetch(.general, type: .html, serial: 1, origin: a.id, for: b.id) { result = $0 }
        XCTAssertEqual(engine.nextDeadline, clock.now() + .seconds(2))
        clock.advance(by: .milliseconds(1999))
        engine.expire(now: clock.now())
        XCTAssertNil(result)
        clock.advance(by: .milliseconds(1))
        engine.expire(now: clock.now())
        guard case .failed(let why)? = result else { return XCTFail("\(String(describing: result))") }
        XCTAssertTrue(why.contains("did not answer"), why)
        a.answer(.data([1]))   // a late answer goes nowhere
        XCTAssertNil(engine.nextDeadline)
    }

    func testAStaleOfferIsDropped() {
        engine.changed(.general, on: a.id, count: 3, .offered(offer(5, from: a, types: ["text/html"])))
        engine.changed(.general, on: a.id, count: 3, .offered(offer(4, from: a, types: ["UTF8_STRING"])))
        XCTAssertEqual(b.served[.general]?.serial, 5)
        XCTAssertEqual(b.served[.general]?.types, [.html])
    }

    func testAClearOnOneSideEndsWhatTheOthersServedForIt() {
        engine.changed(.general, on: a.id, count: 1, .offered(offer(1, from: a)))
        engine.changed(.general, on: a.id, count: 2, .cleared)
        XCTAssertNil(b.served[.general])
        XCTAssertEqual(b.withdrawn, [.general])
        XCTAssertEqual(b.counts[.general], 2)
    }

    func testPrimaryIsPerEndpointUnlessShared() {
        engine.changed(.primary, on: a.id, count: 1, .offered(offer(1, from: a, pasteboard: .primary)))
        XCTAssertNil(b.served[.primary])
        engine.isShared = { _ in true }
        engine.changed(.primary, on: a.id, count: 2, .offered(offer(2, from: a, pasteboard: .primary)))
        XCTAssertEqual(b.served[.primary]?.serial, 2)
    }

    func testAnEndpointThatJoinsLateIsServedWhatIsHeldNow() {
        engine.changed(.general, on: a.id, count: 4, .offered(offer(1, from: a)))
        let c = FakeEndpoint(3, ":3")
        engine.attach(c)
        XCTAssertEqual(c.served[.general]?.origin, a.id)
        XCTAssertEqual(c.counts[.general], 4)
    }

    func testWhatADetachedOriginKeptIsServedOnByTheOthers() throws {
        engine.changed(.general, on: a.id, count: 3, .offered(offer(1, from: a, types: ["UTF8_STRING"])))
        a.kept[.general] = PasteboardContent(items: [try PasteboardItem([(PasteboardType.utf8String, Array("kept on A".utf8))])])
        engine.detach(a.id)
        XCTAssertEqual(b.served[.general]?.content?.data(for: .utf8String), Array("kept on A".utf8), "served on with its bytes")
        XCTAssertEqual(b.counts[.general], 3)
        var result: FetchResult?
        engine.fetch(.general, type: .utf8String, serial: 1, origin: a.id, for: b.id) { result = $0 }
        XCTAssertEqual(result, .data(Array("kept on A".utf8)), "answered without the detached origin")
    }

    func testADetachedOriginsLazyOfferIsWithdrawnAndItsFetchesFail() {
        engine.changed(.general, on: a.id, count: 1, .offered(offer(1, from: a)))
        var inFlight: FetchResult?
        engine.fetch(.general, type: .html, serial: 1, origin: a.id, for: b.id) { inFlight = $0 }
        engine.detach(a.id)
        guard case .failed? = inFlight else { return XCTFail("a fetch in flight fails at once: \(String(describing: inFlight))") }
        XCTAssertNil(engine.nextDeadline)
        XCTAssertNil(b.served[.general])
        var result: FetchResult?
        engine.fetch(.general, type: .html, serial: 1, origin: a.id, for: b.id) { result = $0 }
        guard case .failed? = result else { return XCTFail("\(String(describing: result))") }
    }

    /// Two endpoints whose echo guard is broken (each reports what it is served as a copy of its own) would
    /// ping-pong for ever; the valve holds them to a burst, then one offer per interval.
    func testTheRateValveHoldsTwoEndpointsThatEchoEachOther() {
        var serials: [EndpointID: UInt64] = [:]
        var exchanged = 0
        for endpoint in [a!, b!] {
            endpoint.echoes = { [unowned self, unowned endpoint] offer in
                exchanged += 1
                serials[endpoint.id, default: 1000] += 1
                var echo = offer
                echo.origin = endpoint.id
                echo.serial = serials[endpoint.id]!
                self.engine.changed(.general, on: endpoint.id, count: 1, .offered(echo))
            }
        }
        engine.changed(.general, on: a.id, count: 1, .offered(offer(1000, from: a)))
        XCTAssertLessThanOrEqual(exchanged, 2 * PasteboardEngine.offerBurst + 1, "the burst, then held")
        let afterBurst = exchanged
        for _ in 0..<20 {
            clock.advance(by: PasteboardEngine.offerInterval)
            engine.expire(now: clock.now())
        }
        XCTAssertLessThanOrEqual(exchanged - afterBurst, 2 * 20 + 2, "one per interval per endpoint once the burst is spent")
        XCTAssertTrue(logLines.contains { $0.contains("changes faster than") }, "\(logLines)")
    }

    func testAHeldOfferPassesLaterAndOnlyTheNewestOfItsPasteboard() {
        for serial in 1...UInt64(PasteboardEngine.offerBurst) {
            engine.changed(.general, on: a.id, count: serial, .offered(offer(serial, from: a)))
        }
        let burst = UInt64(PasteboardEngine.offerBurst)
        engine.changed(.general, on: a.id, count: burst + 1, .offered(offer(burst + 1, from: a, types: ["old"])))
        engine.changed(.general, on: a.id, count: burst + 2, .offered(offer(burst + 2, from: a, types: ["newest"])))
        XCTAssertEqual(b.served[.general]?.serial, burst, "held back")
        XCTAssertNotNil(engine.nextDeadline)
        clock.advance(by: PasteboardEngine.offerInterval)
        engine.expire(now: clock.now())
        XCTAssertEqual(b.served[.general]?.types.map(\.rawValue), ["newest"], "nothing lost: the newest passes")
        XCTAssertEqual(b.counts[.general], burst + 2)
    }

    /// Found by `make stress`'s xwayland churn (50 copies a second): a held offer is still a change, so the other
    /// sides count on from it at once — else the next copy on another side took the same number and one copy was
    /// lost from the count.
    func testAHeldOffersCountIsEverySidesAtOnce() {
        let burst = UInt64(PasteboardEngine.offerBurst)
        for serial in 1...burst {
            engine.changed(.general, on: a.id, count: serial, .offered(offer(serial, from: a)))
        }
        engine.changed(.general, on: a.id, count: burst + 1, .offered(offer(burst + 1, from: a)))
        XCTAssertEqual(b.served[.general]?.serial, burst, "held back")
        XCTAssertEqual(b.counts[.general], burst + 1, "but counted on the other side already")
        XCTAssertEqual(engine.counts[.general], burst + 1)
    }
}
