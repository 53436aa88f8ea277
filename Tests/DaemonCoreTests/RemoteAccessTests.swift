// SPDX-License-Identifier: Apache-2.0
import ControlProtocol
@testable import DaemonCore
import Foundation
import PasteboardCore
import SystemSupport
import TestSupport
import XCTest

/// The remote socket's rules (`RemoteAccess`): what a remote client may ask, what is never served to it, how fast
/// it may ask; the engine answering one, and the control server screening its requests on a real socket.
final class RemoteAccessTests: XCTestCase {
    let text = [(PasteboardType.utf8PlainText, "over ssh"), (PasteboardType.html, "<b>over ssh</b>")]

    /// Sends `request` as a remote client (no display of its own) and returns what it was answered.
    func remote(_ harness: Harness, _ request: ControlRequest) -> [ControlResponse] {
        var responses: [ControlResponse] = []
        harness.engine.handle(request, from: DaemonEngine.Client(id: 1 << 62, send: { responses.append($0) }, isRemote: true))
        harness.settle()
        return responses
    }

    func code(_ responses: [ControlResponse]) -> ErrorCode? {
        if case .error(let code, _)? = responses.first { return code }
        return nil
    }

    // MARK: - The rules

    func testOnlyCopyPasteTypesCountAndWatchAreServedAndTheRestIsDeniedWithAReason() {
        let access = RemoteAccess()
        var rate = access.newRate(now: MonotonicInstant(nanoseconds: 1))
        let served: [ControlRequest] = [
            .hello(version: 1, client: "pb"), .setItems(pasteboard: "general", items: [], options: []), .clear(pasteboard: "notes"),
            .addItems(pasteboard: "general", items: []), .changeCount(pasteboard: "primary"), .items(pasteboard: "general"),
            .read(pasteboard: "general", types: ["UTF8_STRING"], display: ""), .targets(pasteboard: "general"), .watch(pasteboards: []),
            .watchEvents(pasteboards: [], events: .changes),
            .setExpiringItems(pasteboard: "general", items: [], options: [], expiresAfterMilliseconds: 5),
            .peer(version: 1, daemon: 5, name: "another pasteboardd", maximumFrameBytes: 1 << 20),
            // A copy in pieces (`producer | pb copy` on the host).
            .beginCopy(pasteboard: "general", types: ["UTF8_STRING"], options: [], expiresAfterMilliseconds: 0),
            .copyChunk(representation: 0, data: [1]), .commitCopy,
        ]
        for request in served { XCTAssertNil(access.screen(request, rate: &rate, now: MonotonicInstant(nanoseconds: 1)), "\(request.kind)") }
        let denied: [ControlRequest] = [
            .history(limit: 0), .sourcedHistory(limit: 0), .historyItem(index: 0), .historyCopy(index: 0), .historyDelete(index: 0), .historyClear, .pause, .resume,
            .createPasteboard(name: "notes", persistent: true), .removePasteboard(name: "notes"), .pasteboards, .status,
            .displays, .addDisplay(name: ":1"), .removeDisplay(name: ":1"), .onDisplay(name: ":0"),
            // Lazy providers answer from the providing process: one at home, never through a forward.
            .setItemProviders(pasteboard: "CLIPBOARD", types: [["UTF8_STRING"]], options: []), .provided(request: 1, data: []),
            .provideFailed(request: 1, reason: "no"),
            .peers, .addPeer(socket: "/tmp/x.sock", persistent: true), .removePeer(socket: "/tmp/x.sock"),
        ]
        XCTAssertEqual(Set((served + denied).map(\.kind)), Set(ControlRequest.Kind.allCases), "every kind is decided")
        for request in denied {
            guard case .error(.denied, let message)? = access.screen(request, rate: &rate, now: MonotonicInstant(nanoseconds: 1)) else {
                return XCTFail("\(request.kind) is served through the remote socket")
            }
            XCTAssertTrue(message.hasSuffix("is not available through the remote socket, which serves copy, paste, types, count and watch"), message)
        }
        guard case .error(_, let message)? = access.screen(.historyClear, rate: &rate, now: MonotonicInstant(nanoseconds: 1)) else { return XCTFail() }
        XCTAssertEqual(message, "the history is not available through the remote socket, which serves copy, paste, types, count and watch")
    }

    func testABurstOfTwiceTheRateIsServedThenOneRequestPerTickOfTheRate() {
        let access = RemoteAccess(requestsPerSecond: 10)
        var now = MonotonicInstant(nanoseconds: 1_000_000_000)
        var rate = access.newRate(now: now)
        let count = ControlRequest.changeCount(pasteboard: "general")
        for index in 0..<20 { XCTAssertNil(access.screen(count, rate: &rate, now: now), "request \(index) of the burst") }
        guard case .error(.unavailable, let message)? = access.screen(count, rate: &rate, now: now) else { return XCTFail("the 21st is served") }
        XCTAssertEqual(message, "too many requests through the remote socket (at most 10 a second); try again")
        now += .milliseconds(99)
        XCTAssertNotNil(access.screen(count, rate: &rate, now: now), "a tenth of a second has not passed")
        now += .milliseconds(1)
        XCTAssertNil(access.screen(count, rate: &rate, now: now), "a tenth of a second refills one")
        XCTAssertNotNil(access.screen(count, rate: &rate, now: now))
        now += .seconds(86_400 * 365)
        for _ in 0..<20 { XCTAssertNil(access.screen(count, rate: &rate, now: now)) }
        XCTAssertNotNil(access.screen(count, rate: &rate, now: now), "a year idle refills one burst, no more")
    }

    func testSensitiveLocalOnlyAndSecretContentIsWithheldWithItsReason() throws {
        let item = try PasteboardItem([(PasteboardType.utf8PlainText, Array("pw".utf8))])
        XCTAssertNil(RemoteAccess.withholding(PasteboardContent(items: [item])))
        XCTAssertNil(RemoteAccess.withholding(PasteboardContent(items: [item], isTransient: true)), "expiring content is served while it lasts")
        XCTAssertEqual(RemoteAccess.withholding(PasteboardContent(items: [item], isSensitive: true)), "was copied with --sensitive")
        XCTAssertEqual(RemoteAccess.withholding(PasteboardContent(items: [item], isLocalOnly: true)), "was copied with --local-only")
        let concealed = try PasteboardItem([(PasteboardType.utf8PlainText, Array("pw".utf8)),
                                            (PasteboardType(SnapshotPolicy.concealedMarkers.sorted()[0]), [])])
        XCTAssertEqual(RemoteAccess.withholding(PasteboardContent(items: [concealed])), "was marked secret by the application that copied it")
        let hinted = { (value: String) in
            try PasteboardItem([(PasteboardType.utf8PlainText, Array("pw".utf8)),
                                (PasteboardType(SnapshotPolicy.passwordManagerHint), Array(value.utf8))])
        }
        XCTAssertNotNil(RemoteAccess.withholding(PasteboardContent(items: [try hinted("secret")])))
        XCTAssertNil(RemoteAccess.withholding(PasteboardContent(items: [try hinted("0")])), "KDE's hint saying 'not secret'")
    }

    // MARK: - The engine answering a remote client

    func testARemoteClientCopiesAndPastesWithoutADisplayConvertedAtHome() throws {
        let harness = try Harness()
        let item = try PasteboardItem(text.map { ($0.0, Array($0.1.utf8)) })
        guard case .changeCount(_, let count)? = remote(harness, .setItems(pasteboard: "general", items: [item], options: [])).first else {
            return XCTFail("a remote copy is answered with the count")
        }
        XCTAssertEqual(harness.count(), count)
        XCTAssertEqual(harness.paste("UTF8_STRING").text, "over ssh", "the copy is served on the display at home")
        // RTF is made at home from the HTML.
        guard case .items(let items)? = remote(harness, .read(pasteboard: "general", types: ["text/rtf"], display: "")).first else {
            return XCTFail("a remote read with no display is answered")
        }
        XCTAssertTrue(String(decoding: items[0].representations[0].data, as: UTF8.self).hasPrefix("{\\rtf1"))
        guard case .targets(let targets)? = remote(harness, .targets(pasteboard: "general")).first else { return XCTFail() }
        XCTAssertEqual(Array(targets.prefix(3)), ["TARGETS", "TIMESTAMP", "MULTIPLE"])
        XCTAssertTrue(targets.contains("UTF8_STRING") && targets.contains("text/html") && targets.contains("text/rtf"), "\(targets)")
        guard case .items? = harness.send(.read(pasteboard: "general", types: ["UTF8_STRING"], display: "")).first else {
            return XCTFail("a local client naming no display is answered by the daemon too (DisplaysTests)")
        }
    }

    func testWithheldContentIsNeverReadListedOrDescribedToARemoteClient() throws {
        for options in [CopyOptions.sensitive, .localOnly] {
            let harness = try Harness()
            try harness.copy(text, options: options)
            XCTAssertEqual(harness.paste("UTF8_STRING").text, "over ssh", "served at home")
            for request in [ControlRequest.read(pasteboard: "general", types: ["UTF8_STRING"], display: ""), .items(pasteboard: "general"),
                            .targets(pasteboard: "general")] {
                let answer = remote(harness, request)
                guard case .error(.denied, let message)? = answer.first else { return XCTFail("\(request.kind) of \(options): \(answer)") }
                XCTAssertEqual(message, "what CLIPBOARD holds \(options == .sensitive ? "was copied with --sensitive" : "was copied with --local-only"): it is never served through the remote socket")
            }
            guard case .items? = harness.send(.items(pasteboard: "general")).first else { return XCTFail("served to a local client") }
        }
    }

    func testARemoteWatcherLearnsOfAChangeButNotWhatWithheldContentIs() {
        let event = ControlResponse.changed(pasteboard: "general", count: 4, types: ["UTF8_STRING"], state: "data",
                                            image: ImageSummary(type: .png, width: 1, height: 1, byteCount: 9))
        XCTAssertEqual(RemoteAccess.event(event, contentWithheld: false), event)
        XCTAssertEqual(RemoteAccess.event(event, contentWithheld: true),
                       .changed(pasteboard: "general", count: 4, types: [], state: "sensitive", image: nil))
        XCTAssertEqual(RemoteAccess.event(.ok, contentWithheld: true), .ok)
    }

    // MARK: - Sockets passed by a service manager

    func testPassedSocketsAreToldApartByNameThenByPath() {
        let remotePath = "/run/user/1000/pasteboard/remote.sock"
        XCTAssertEqual(try PassedSockets.roles([("/run/user/1000/pasteboard/control.sock", nil), (remotePath, nil)], remotePath: remotePath).get(),
                       [.control, .remote])
        XCTAssertEqual(try PassedSockets.roles([("/a", "remote"), ("/b", "control")], remotePath: remotePath).get(), [.remote, .control])
        XCTAssertEqual(try PassedSockets.roles([("/elsewhere/x.sock", nil)], remotePath: remotePath).get(), [.control],
                       "a lone socket of an older unit file is the control socket")
        XCTAssertEqual(try PassedSockets.roles([("/tmp/t/remote.sock", nil), ("", nil)], remotePath: remotePath).get(), [.remote, .control])
        guard case .failure(let failure) = PassedSockets.roles([("/a", nil), ("/b", nil)], remotePath: remotePath) else { return XCTFail() }
        XCTAssertTrue(failure.reason.contains("one of each"), failure.reason)
        XCTAssertThrowsError(try PassedSockets.roles([("/a", nil), ("/b", "remote"), ("/c", nil)], remotePath: remotePath).get())
    }

    func testListenFDNamesNamesThePassedSocketsInOrder() {
        XCTAssertEqual(SocketActivation.names(environment: ["LISTEN_FDNAMES": "control:remote"], count: 2), ["control", "remote"])
        XCTAssertEqual(SocketActivation.names(environment: ["LISTEN_FDNAMES": "unknown::x"], count: 4), [nil, nil, "x", nil])
        XCTAssertEqual(SocketActivation.names(environment: [:], count: 1), [nil])
    }

    // MARK: - The control server screening a remote client, on a real socket

    /// A frame still arriving is given 30 s and a second more for each 64 KiB of it that came: a large copy over a
    /// slow link goes on while it progresses; a client that stalls, or trickles, is closed as before.
    func testALargeFrameStillArrivingIsGivenTimeByWhatCameAndAStalledOneIsClosed() throws {
        let since = MonotonicInstant(nanoseconds: 0)
        XCTAssertEqual(ControlServer.partialFrameDeadline(since: since, received: 15, idleTimeout: .seconds(30)), since + .seconds(30))
        XCTAssertEqual(ControlServer.partialFrameDeadline(since: since, received: 64 << 20, idleTimeout: .seconds(30)), since + .seconds(30 + 1024))

        let directory = NSTemporaryDirectory() + "partial-frames-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let clock = ManualClock()
        let server = ControlServer(listener: try UnixListener(path: directory + "/control.sock"), userID: ProcessIdentity.userID,
                                   log: Logger(sink: { _ in }), maximumFrameLength: 64 << 20, clock: clock)
        defer { server.close() }
        let copying = try UnixSocket.connect(path: directory + "/control.sock")
        let stalled = try UnixSocket.connect(path: directory + "/control.sock")
        defer { try? copying.close(); try? stalled.close() }
        server.acceptPending(now: clock.now())
        XCTAssertEqual(server.clients.count, 2)
        let hello = ControlRequest.hello(version: 1, client: "test").encode()
        let copy = ControlRequest.setItems(pasteboard: "CLIPBOARD", items: [try PasteboardItem([(.utf8String, [UInt8](repeating: 0x61, count: 4 << 20))])],
                                           options: []).encode()
        // The copier has sent 1 MiB of a 4 MiB frame (16 s more), the other client 10 bytes of its frame; the
        // server reads as they write (64 KiB at a time: a socket's buffer holds less than the megabyte).
        let ids = server.clients.keys.sorted()
        let sent = hello + copy.prefix(1 << 20)
        for start in stride(from: 0, to: sent.count, by: 64 << 10) {
            try copying.writeAll(Array(sent[start..<min(start + (64 << 10), sent.count)]))
            for id in ids { server.receive(from: id, now: clock.now()) }
        }
        try stalled.writeAll(Array(hello.prefix(10)))
        for _ in 0..<3 { for id in ids { server.receive(from: id, now: clock.now()) } }
        clock.advance(by: .seconds(31))
        server.expireIdle(now: clock.now())
        XCTAssertEqual(server.clients.count, 1, "the stalled client is closed after 30 s, the copier kept")
        clock.advance(by: .seconds(16))
        server.expireIdle(now: clock.now())
        XCTAssertEqual(server.clients.count, 0, "and the copier too once what it sent no longer pays for the wait")
    }

    func testTheRemoteServerAnswersRefusedRequestsItselfAndKeepsTheConnection() throws {
        let directory = NSTemporaryDirectory() + "remote-server-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let clock = ManualClock()
        let server = ControlServer(listener: try UnixListener(path: directory + "/remote.sock"), userID: ProcessIdentity.userID,
                                   log: Logger(sink: { _ in }), maximumFrameLength: 1 << 20,
                                   access: RemoteAccess(requestsPerSecond: 2), clock: clock)
        defer { server.close() }
        let peer = try UnixSocket.connect(path: directory + "/remote.sock")
        defer { try? peer.close() }
        server.acceptPending(now: clock.now())
        let id = try XCTUnwrap(server.clients.keys.first)
        XCTAssertGreaterThanOrEqual(id, 1 << 62, "remote clients are numbered apart from control clients")
        let requests: [ControlRequest] = [.hello(version: 1, client: "test"), .history(limit: 0), .changeCount(pasteboard: "general"),
                                          .changeCount(pasteboard: "general"), .changeCount(pasteboard: "general")]
        try peer.writeAll(requests.flatMap { $0.encode() })
        _ = try Poller.wait([PollRequest(server.listener.fileDescriptor, .readable)], timeoutMilliseconds: 50)
        server.receive(from: id, now: clock.now())
        var handedOut: [ControlRequest.Kind] = []
        while let request = server.nextRequest(from: id) {
            handedOut.append(request.kind)
            server.send(.ok, to: id)
        }
        // hello and two counts take the burst of 4 with the history request; the third count is one too many.
        XCTAssertEqual(handedOut, [.hello, .changeCount, .changeCount])
        var decoder = FrameDecoder()
        var answers: [ControlResponse] = []
        for _ in 0..<50 where answers.count < 5 {
            guard try Poller.wait([PollRequest(peer, .readable)], timeoutMilliseconds: 1000).first?.isEmpty == false,
                  case .data(let bytes) = try peer.readAvailable(max: 1 << 16) else { break }
            decoder.append(bytes[...])
            while let body = try decoder.nextFrame() { answers.append(try ControlResponse.decode(body: body)) }
        }
        XCTAssertEqual(answers.count, 5)
        XCTAssertEqual(code([answers[1]]), .denied)
        XCTAssertEqual(code([answers[4]]), .unavailable)
        XCTAssertNotNil(server.clients[id], "refusals keep the connection")
    }
}
