// SPDX-License-Identifier: Apache-2.0
import ControlProtocol
@testable import DaemonCore
import PasteboardCore
import SystemSupport
import TestSupport
import XCTest
import XTypes

/// Lazy providers (`setItemProviders`): the types are announced at once, one change; a reader's first request
/// for a type asks the providing client over its connection, and the answer is kept for the change; a
/// provider that fails, never answers or goes away refuses that type, never hangs a reader; what it provided
/// outlives it.
final class ItemProviderTests: XCTestCase {
    /// The providing client: what the daemon sent it, and a way to answer.
    final class Provider {
        let h: Harness
        let id: UInt64
        private(set) var received: [ControlResponse] = []
        init(_ h: Harness, id: UInt64 = 7) { self.h = h; self.id = id }
        var client: DaemonEngine.Client { DaemonEngine.Client(id: id, send: { [weak self] in self?.received.append($0) }) }
        func send(_ request: ControlRequest) { h.engine.handle(request, from: client); h.settle() }
        /// The `provide` events so far: request number and type.
        var asked: [(UInt64, String)] { received.compactMap { if case .provide(let id, let type) = $0 { (id, type) } else { nil } } }
        var answers: [ControlResponse] { received.filter { !$0.isEvent } }
    }

    private func announce(_ h: Harness, _ types: [[String]], options: CopyOptions = []) -> Provider {
        let provider = Provider(h)
        provider.send(.setItemProviders(pasteboard: "CLIPBOARD", types: types, options: options))
        return provider
    }

    func testTypesAreAnnouncedAtOnceAndEachIsAskedForOnceWhenAReaderWantsIt() throws {
        let h = try Harness()
        let provider = announce(h, [["UTF8_STRING", "text/html"]])
        XCTAssertEqual(provider.answers, [.changeCount(pasteboard: "CLIPBOARD", count: 1)], "one change, answered at once")
        XCTAssertTrue(provider.asked.isEmpty, "nothing is made before a reader asks")
        XCTAssertTrue(h.targets().contains("text/html") && h.targets().contains("UTF8_STRING"), "\(h.targets())")

        let requestor = h.paste("text/html")
        XCTAssertNil(requestor.result, "the reader waits for the provider")
        XCTAssertEqual(provider.asked.map(\.1), ["text/html"])
        provider.send(.provided(request: provider.asked[0].0, data: Array("<b>made on request</b>".utf8)))
        XCTAssertEqual(requestor.text, "<b>made on request</b>")
        XCTAssertEqual(provider.answers.last, .ok)

        XCTAssertEqual(h.paste("text/html").text, "<b>made on request</b>", "kept for the change")
        XCTAssertEqual(provider.asked.count, 1, "asked once")
        XCTAssertEqual(h.count(), 1)
        XCTAssertTrue(h.engine.manager.history.entries.isEmpty, "lazy content is not recorded in history")
    }

    func testADerivedTypeIsMadeFromWhatTheProviderGives() throws {
        let h = try Harness()
        let provider = announce(h, [["text/html"]])
        let requestor = h.paste("text/rtf")
        XCTAssertEqual(provider.asked.map(\.1), ["text/html"], "the source of the conversion is asked for")
        provider.send(.provided(request: provider.asked[0].0, data: Array("<p>rich <b>bold</b></p>".utf8)))
        h.settle()
        XCTAssertTrue(requestor.text?.hasPrefix("{\\rtf1") == true, "\(requestor.text ?? "nil")")
        XCTAssertTrue(requestor.text?.contains("bold") == true)
    }

    func testAProviderThatFailsOrNeverAnswersRefusesThatTypeAndHarmsNothingElse() throws {
        let h = try Harness()
        let provider = announce(h, [["UTF8_STRING", "text/html", "image/png"]])
        let failed = h.paste("image/png")
        provider.send(.provideFailed(request: provider.asked[0].0, reason: "the chart could not be drawn"))
        XCTAssertEqual(failed.result, .some(nil), "refused, not empty bytes")

        let silent = h.paste("text/html")
        XCTAssertNil(silent.result)
        h.advance(by: .seconds(3))
        XCTAssertEqual(silent.result, .some(nil), "refused at the deadline, not left hanging")
        // A late answer, or one to a request never made, is an error to the client and nothing else.
        provider.send(.provided(request: provider.asked[1].0, data: Array("late".utf8)))
        provider.send(.provided(request: 999, data: Array("never asked".utf8)))
        let codes: [ErrorCode?] = provider.answers.suffix(2).map { answer -> ErrorCode? in
            if case .error(let code, _) = answer { return code }
            return nil
        }
        XCTAssertEqual(codes, [.notFound, .notFound])

        let text = h.paste("UTF8_STRING")
        provider.send(.provided(request: provider.asked[2].0, data: Array("still served".utf8)))
        XCTAssertEqual(text.text, "still served")
        XCTAssertFalse(h.log.contains { $0.contains("still served") },
                       "never content in the log")
    }

    func testWhatWasProvidedOutlivesTheProviderAndTheRestIsWithdrawn() throws {
        let h = try Harness()
        let provider = announce(h, [["UTF8_STRING", "text/html"]])
        let requestor = h.paste("UTF8_STRING")
        provider.send(.provided(request: provider.asked[0].0, data: Array("kept after exit".utf8)))
        XCTAssertEqual(requestor.text, "kept after exit")
        h.engine.clientClosed(provider.id)
        h.settle()
        XCTAssertEqual(h.count(), 1, "withdrawing the types never provided is not a change")
        XCTAssertTrue(h.daemonOwns())
        XCTAssertEqual(h.paste("UTF8_STRING").text, "kept after exit")
        XCTAssertFalse(h.targets().contains("text/html"), "never provided: withdrawn")
    }

    func testAProviderThatGoesAwayHavingProvidedNothingClearsThePasteboard() throws {
        let h = try Harness()
        let provider = announce(h, [["UTF8_STRING"]])
        let waiting = h.paste("UTF8_STRING")
        h.engine.clientClosed(provider.id)
        h.settle()
        XCTAssertEqual(waiting.result, .some(nil), "the reader waiting is refused at once")
        XCTAssertEqual(h.count(), 2, "cleared: a change")
        XCTAssertFalse(h.daemonOwns())
    }

    func testANewCopyEndsTheProviderAndClosesItsConnection() throws {
        let h = try Harness()
        var closed: [UInt64] = []
        h.engine.closeClient = { closed.append($0) }
        let provider = announce(h, [["UTF8_STRING"]])
        try h.copy([(.utf8PlainText, "replaced")])
        XCTAssertEqual(closed, [provider.id], "the provider's connection is closed: its content is gone")
        h.engine.clientClosed(provider.id)   // what the loop does then
        h.settle()
        XCTAssertEqual(h.paste("UTF8_STRING").text, "replaced", "closing it does not touch the new content")
        XCTAssertEqual(h.count(), 2)
    }

    func testBadAnnouncementsAreRefusedWithAReason() throws {
        let h = try Harness()
        for types in [[], [[]], [["UTF8_STRING", "UTF8_STRING"]], [["bad\u{0}name"]]] as [[[String]]] {
            let provider = Provider(h, id: 9)
            provider.send(.setItemProviders(pasteboard: "CLIPBOARD", types: types, options: []))
            guard case .error(.badRequest, let message)? = provider.answers.first else { return XCTFail("\(types): \(provider.answers)") }
            XCTAssertFalse(message.isEmpty)
        }
        let provider = announce(h, [["UTF8_STRING"]])
        provider.send(.setItemProviders(pasteboard: "CLIPBOARD", types: [["text/html"]], options: []))
        guard case .error(.badRequest, _)? = provider.answers.last else { return XCTFail("a second announcement on one connection: \(provider.answers)") }
        XCTAssertEqual(h.count(), 1, "nothing changed")
    }

    func testAReaderOnAnotherDisplayIsAnsweredByTheProviderToo() throws {
        let h = try Harness()
        let b = h.addDisplay()
        h.settle()
        let provider = announce(h, [["text/html"]])
        XCTAssertTrue(h.targets(on: b).contains("text/html"), "offered on every display at once: \(h.targets(on: b))")
        let requestor = h.paste("text/html", on: b)
        XCTAssertEqual(provider.asked.map(\.1), ["text/html"], "asked over the provider's connection")
        provider.send(.provided(request: provider.asked[0].0, data: Array("<i>across</i>".utf8)))
        h.settle()
        XCTAssertEqual(requestor.text, "<i>across</i>")
        XCTAssertEqual(h.paste("text/html").text, "<i>across</i>", "and on its own display, without asking again")
        XCTAssertEqual(provider.asked.count, 1)
    }

    func testSensitiveLazyContentIsMarkedAndNeverKept() throws {
        let h = try Harness(keepState: true)
        let provider = announce(h, [["UTF8_STRING"]], options: [.sensitive])
        XCTAssertTrue(h.targets().contains(SnapshotPolicy.passwordManagerHint), "other managers are told it is a secret")
        let requestor = h.paste("UTF8_STRING")
        provider.send(.provided(request: provider.asked[0].0, data: Array("hunter2".utf8)))
        XCTAssertEqual(requestor.text, "hunter2")
        h.finishWrites()
        XCTAssertTrue(h.engine.manager.history.entries.isEmpty)
    }
}
