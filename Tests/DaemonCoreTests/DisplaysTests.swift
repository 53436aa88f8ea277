// SPDX-License-Identifier: Apache-2.0
import ControlProtocol
@testable import DaemonCore
import PasteboardCore
import TestSupport
import XCTest
import XTypes

/// Several X displays as one pasteboard, on fake servers: a copy on one is offered on the others with its
/// targets and the derived ones, the bytes fetched from the origin on paste, one count, no echo.
final class DisplaysTests: XCTestCase {
    /// Two displays, a copy owned on A by a test owner offering `targets`, settled; what A's owner was asked so far.
    func copiedOnA(_ targets: [(String, [UInt8])]) throws -> (Harness, Harness.Display, FakeOwner, Int) {
        let h = try Harness()
        let b = h.addDisplay()
        let owner = h.owner(targets)
        owner.own()
        h.settle()
        return (h, b, owner, owner.requested.count)
    }

    let text = Array("copied on A".utf8)
    let html = Array("<b>copied</b> on A".utf8)

    func testACopyOnOneDisplayPastesOnTheOtherWithItsTargetsAndTheDerivedOnes() throws {
        let h = try Harness()
        let b = h.addDisplay()
        let before = try XCTUnwrap(h.count())
        let owner = h.owner([("UTF8_STRING", text), ("text/html", html)])
        owner.own()
        h.settle()
        XCTAssertTrue(h.daemonOwns(on: b), "offered on B at once")
        XCTAssertFalse(h.daemonOwns(), "never taken from A's live owner")
        XCTAssertEqual(h.count(), before + 1, "one copy, one change")
        XCTAssertEqual(h.publishedCount(on: b).map(UInt64.init), before + 1, "the same count on every display")
        XCTAssertEqual(h.publishedCount().map(UInt64.init), before + 1)
        let targets = h.targets(on: b)
        XCTAssertTrue(targets.contains("UTF8_STRING") && targets.contains("text/html"), "\(targets)")
        XCTAssertTrue(targets.contains("text/rtf"), "the derived ones too: \(targets)")
        XCTAssertEqual(h.paste("text/html", on: b).text, "<b>copied</b> on A")
        XCTAssertEqual(h.paste("text/rtf", on: b).text?.hasPrefix("{\\rtf1"), true, "converted from the HTML fetched")
        XCTAssertEqual(h.paste("UTF8_STRING", on: b).text, "copied on A")
        XCTAssertEqual(owner.requested.filter { $0 == "TARGETS" }.count, 1, "one TARGETS read per copy: \(owner.requested)")
        XCTAssertEqual(h.count(), before + 1, "serving B and pasting there changed nothing")
    }

    func testTheBytesComeFromTheLiveOwnerAndOnceItExitedFromWhatWasKept() throws {
        let h = try Harness()
        let b = h.addDisplay()
        let owner = h.owner([("UTF8_STRING", text)])
        owner.own()
        h.settle()
        owner.targets = [("UTF8_STRING", Array("changed without a new owner".utf8))]
        XCTAssertEqual(h.paste("UTF8_STRING", on: b).text, "changed without a new owner", "read from the live owner at paste time")
        let count = h.count()
        owner.exit()
        h.advance(by: .zero)
        XCTAssertTrue(h.daemonOwns(), "A's manager took over with what it read")
        XCTAssertEqual(h.paste("UTF8_STRING", on: b).text, "changed without a new owner", "cached for this change on B")
        XCTAssertEqual(h.count(), count, "a takeover is no change anywhere")
        XCTAssertTrue(h.daemonOwns(on: b))
    }

    /// A reader on B that asks TARGETS first (Qt, Chromium, Firefox) finds the text read ahead: its request for it
    /// is answered from that read, not a second one of A's owner.
    func testTextIsReadAheadWhenTargetsIsAskedAndTheRequestThatFollowsTakesIt() throws {
        let (h, b, owner, before) = try copiedOnA([("UTF8_STRING", text), ("text/html", html)])
        XCTAssertTrue(h.targets(on: b).contains("UTF8_STRING"))
        XCTAssertEqual(Array(owner.requested.dropFirst(before)), ["UTF8_STRING"], "the text read ahead once TARGETS was answered")
        XCTAssertEqual(h.paste("UTF8_STRING", on: b).text, "copied on A")
        XCTAssertEqual(h.paste("text/plain;charset=utf-8", on: b).text, "copied on A", "another name of the text, from the same read")
        XCTAssertEqual(owner.requested.count, before + 1, "answered from the read ahead: \(owner.requested)")
        XCTAssertEqual(h.paste("text/html", on: b).text, "<b>copied</b> on A", "another type is read from the owner as before")
    }

    /// A request for the text that comes while the read ahead is still on its way waits for that read: one read.
    func testARequestForTheTextWhileItIsBeingReadAheadWaitsForThatRead() throws {
        let (h, b, owner, before) = try copiedOnA([("UTF8_STRING", text)])
        let lister = FakeRequestor(server: b.server)
        let reader = FakeRequestor(server: b.server)
        lister.ask("CLIPBOARD", "TARGETS")
        let onB = try XCTUnwrap(h.engine.sides.first { $0.name == b.name })
        while b.x.pendingEvents() > 0 { onB.handle(b.x.nextEvent()) }   // B answers TARGETS; A's owner not run yet
        _ = lister.pump()
        XCTAssertEqual(lister.result??.atoms.isEmpty, false, "TARGETS answered")
        XCTAssertNotNil(h.engine.bridge.nextDeadline, "the text is being read ahead")
        reader.ask("CLIPBOARD", "UTF8_STRING")
        h.settle()
        _ = reader.pump()
        XCTAssertEqual(reader.text, "copied on A")
        XCTAssertEqual(Array(owner.requested.dropFirst(before)), ["UTF8_STRING"], "one read of A's owner for both")
    }

    /// Bytes read ahead wait a short while only: a request after `fetchAheadWindow` reads A's live owner again, so
    /// content the owner changed since (without a new ownership) is what it gets.
    func testTextReadAheadThatNoRequestTookInItsWindowIsLetGoAndTheOwnerReadLive() throws {
        let (h, b, owner, before) = try copiedOnA([("UTF8_STRING", text)])
        XCTAssertTrue(h.targets(on: b).contains("UTF8_STRING"))
        XCTAssertEqual(Array(owner.requested.dropFirst(before)), ["UTF8_STRING"], "read ahead")
        let read = owner.requested.count
        owner.targets = [("UTF8_STRING", Array("changed without a new owner".utf8))]
        h.advance(by: ServedContent.fetchAheadWindow)
        XCTAssertEqual(h.paste("UTF8_STRING", on: b).text, "changed without a new owner", "read from the live owner, not from the read ahead")
        XCTAssertEqual(owner.requested.count, read + 1)
    }

    func testACopyOnTheSecondDisplayComesToTheFirst() throws {
        let h = try Harness()
        let b = h.addDisplay()
        let owner = h.owner(on: b, [("UTF8_STRING", Array("from B".utf8))])
        owner.own()
        h.settle()
        XCTAssertTrue(h.daemonOwns())
        XCTAssertEqual(h.paste("UTF8_STRING").text, "from B")
        XCTAssertEqual(h.paste("text/plain;charset=utf-8").text, "from B", "derived on A from what B offers")
        XCTAssertEqual(h.publishedCount().map(UInt64.init), h.publishedCount(on: b).map(UInt64.init))
    }

    func testAPbCopyIsServedOnEveryDisplayAndCountedOnce() throws {
        let h = try Harness()
        let b = h.addDisplay()
        let count = try h.copy([(.utf8String, "pb copy")])
        XCTAssertTrue(h.daemonOwns(on: b))
        XCTAssertEqual(h.paste("UTF8_STRING", on: b).text, "pb copy")
        XCTAssertEqual(h.publishedCount(on: b).map(UInt64.init), count)
        XCTAssertEqual(h.count(), count)
        XCTAssertEqual(h.engine.manager.history.entries.count, 1, "recorded once")
    }

    func testNoEchoAndNoFightAfterACopy() throws {
        let h = try Harness()
        let b = h.addDisplay()
        let owner = h.owner([("UTF8_STRING", text)])
        owner.own()
        h.settle()
        let count = h.count()
        for _ in 0..<10 { h.advance(by: .seconds(1)) }
        XCTAssertEqual(h.count(), count, "serving B made no change that came back")
        XCTAssertEqual(owner.requested.filter { $0 == "TARGETS" }.count, 1)
        XCTAssertTrue(h.daemonOwns(on: b))
        XCTAssertFalse(h.daemonOwns())
        XCTAssertEqual(h.engine.manager.history.entries.count, 1)
    }

    func testAClearOnOneDisplayEmptiesTheOtherWithOneChange() throws {
        let h = try Harness()
        let b = h.addDisplay()
        let count = try h.copy([(.utf8String, "to be cleared")])
        XCTAssertTrue(h.daemonOwns(on: b))
        h.send(.clear(pasteboard: "CLIPBOARD"))
        XCTAssertFalse(h.daemonOwns(on: b))
        XCTAssertEqual(h.count(), count + 1)
        XCTAssertEqual(h.publishedCount(on: b).map(UInt64.init), count + 1)
        h.advance(by: .seconds(1))
        XCTAssertEqual(h.count(), count + 1, "releasing B was no second change")
    }

    func testPrimaryStaysPerDisplayUnlessShared() throws {
        let h = try Harness()
        let b = h.addDisplay()
        let owner = h.owner([("UTF8_STRING", text)], selection: "PRIMARY")
        owner.own()
        h.settle()
        XCTAssertFalse(h.daemonOwns("PRIMARY", on: b))

        var shared = DaemonConfiguration()
        shared.sharePrimary = true
        let s = try Harness(configuration: shared)
        let c = s.addDisplay()
        let selecting = s.owner([("UTF8_STRING", text)], selection: "PRIMARY")
        selecting.own()
        s.settle()
        XCTAssertTrue(s.daemonOwns("PRIMARY", on: c))
        XCTAssertEqual(s.paste("UTF8_STRING", from: "PRIMARY", on: c).text, "copied on A")
    }

    func testANamedPasteboardIsOneAcrossDisplays() throws {
        let h = try Harness()
        let b = h.addDisplay()
        try h.copy([(.utf8String, "named")], to: "work")
        XCTAssertTrue(h.daemonOwns("work", on: b))
        XCTAssertEqual(h.paste("UTF8_STRING", from: "work", on: b).text, "named")
    }

    func testAnOwnerThatDoesNotAnswerOnOneDisplayIsRefusedOnTheOtherWithinTheDeadline() throws {
        let h = try Harness()
        let b = h.addDisplay()
        let owner = h.owner([("UTF8_STRING", text)])
        owner.own()
        h.settle()
        owner.silent = true
        let requestor = FakeRequestor(server: b.server)
        requestor.ask("CLIPBOARD", "UTF8_STRING")
        h.settle()
        XCTAssertNil(requestor.result, "waits for the origin")
        // Serve B from nothing at hand: the live owner is asked, says nothing, the engine's deadline refuses.
        h.advance(by: h.engine.bridge.fetchTimeout)
        _ = requestor.pump()
        h.settle()
        guard case .some(.none) = requestor.result else {
            return XCTFail("refused, not left hanging nor answered: \(String(describing: requestor.result))")
        }
    }

    func testAPrimaryWriteGoesToTheDisplayTheClientIsOn() throws {
        let h = try Harness()
        let b = h.addDisplay()
        var answers: [ControlResponse] = []
        let client = DaemonEngine.Client(id: 9, send: { answers.append($0) }, display: b.name)
        let item = try PasteboardItem([(PasteboardType.utf8String, Array("selected on B".utf8))])
        h.engine.handle(.setItems(pasteboard: "PRIMARY", items: [item], options: []), from: client)
        h.settle()
        guard case .changeCount? = answers.first else { return XCTFail("\(answers)") }
        XCTAssertTrue(h.daemonOwns("PRIMARY", on: b))
        XCTAssertFalse(h.daemonOwns("PRIMARY"), "PRIMARY is per display")
        XCTAssertEqual(h.paste("UTF8_STRING", from: "PRIMARY", on: b).text, "selected on B")
        h.engine.handle(.clear(pasteboard: "PRIMARY"), from: client)
        h.settle()
        XCTAssertFalse(h.daemonOwns("PRIMARY", on: b))
    }

    /// A client naming no display (a script run by cron, or over ssh to this machine: pb has no X display to read)
    /// reads CLIPBOARD from the daemon — another application's copy fetched from its owner — and its TARGETS, and
    /// reads back the PRIMARY it wrote (the first display's). A client of a display the daemon does not serve reads
    /// that display's own selections there (refused here, so pb reads its own X server), and a PRIMARY written from
    /// it — that display's own — is refused with the way to serve it, never written on a display served.
    func testAClientNamingNoDisplayIsAnsweredByTheDaemonAndOneOfAnotherDisplayIsSentToIt() throws {
        let (h, _, _, _) = try copiedOnA([("UTF8_STRING", text), ("text/html", html)])
        var answers: [ControlResponse] = []
        let nowhere = DaemonEngine.Client(id: 9, send: { answers.append($0) })
        h.engine.handle(.read(pasteboard: "CLIPBOARD", types: ["UTF8_STRING"], display: ""), from: nowhere)
        h.engine.handle(.targets(pasteboard: "CLIPBOARD"), from: nowhere)
        h.settle()
        guard answers.count == 2, case .items(let items) = answers[0], case .targets(let targets) = answers[1] else {
            return XCTFail("\(answers)")
        }
        XCTAssertEqual(items.first?.data(for: .utf8String), text, "fetched from A's owner through the daemon")
        XCTAssertTrue(targets.contains("text/html"), "\(targets)")

        let item = try PasteboardItem([(PasteboardType.utf8String, Array("not for A".utf8))])
        let elsewhere = DaemonEngine.Client(id: 10, send: { answers.append($0) }, display: ":42")
        for (request, refusal) in [(ControlRequest.read(pasteboard: "CLIPBOARD", types: ["UTF8_STRING"], display: ":42"), "another X display"),
                                   (.targets(pasteboard: "CLIPBOARD"), "another X display"),
                                   (.setItems(pasteboard: "PRIMARY", items: [item], options: []), "pb displays add :42"),
                                   (.changeCount(pasteboard: "PRIMARY"), "pb displays add :42")] {
            answers = []
            h.engine.handle(request, from: elsewhere)
            h.settle()
            guard case .error(.notFound, let message)? = answers.first else { return XCTFail("\(request): \(answers)") }
            XCTAssertTrue(message.contains(refusal), message)
        }
        XCTAssertFalse(h.daemonOwns("PRIMARY"), "A's PRIMARY is not :42's")
        // A lazy provider of :42's PRIMARY likewise; its connection may still provide CLIPBOARD (nothing was left of it).
        answers = []
        h.engine.handle(.setItemProviders(pasteboard: "PRIMARY", types: [["UTF8_STRING"]], options: []), from: elsewhere)
        h.settle()
        guard case .error(.notFound, _)? = answers.first else { return XCTFail("\(answers)") }
        answers = []
        h.engine.handle(.setItemProviders(pasteboard: "CLIPBOARD", types: [["UTF8_STRING"]], options: []), from: elsewhere)
        h.settle()
        guard case .changeCount? = answers.first else { return XCTFail("a refused provider leaves nothing behind: \(answers)") }

        answers = []
        h.engine.handle(.setItems(pasteboard: "PRIMARY", items: [item], options: []), from: nowhere)
        h.settle()
        h.engine.handle(.read(pasteboard: "PRIMARY", types: ["UTF8_STRING"], display: ""), from: nowhere)
        h.settle()
        guard answers.count == 2, case .changeCount = answers[0], case .items(let primary) = answers[1] else { return XCTFail("\(answers)") }
        XCTAssertEqual(primary.first?.data(for: .utf8String), Array("not for A".utf8), "what it wrote, read back")
    }

    func testSensitiveContentCrossesDisplaysButIsNeverRecorded() throws {
        let h = try Harness(keepState: true)
        let b = h.addDisplay()
        try h.copy([(.utf8String, "hunter2")], options: [.sensitive])
        XCTAssertEqual(h.paste("UTF8_STRING", on: b).text, "hunter2", "the same user's other display")
        XCTAssertTrue(h.engine.manager.history.entries.isEmpty)
        let secret = h.owner(on: b, [("UTF8_STRING", Array("from a password manager".utf8)), ("x-kde-passwordManagerHint", Array("secret".utf8))])
        secret.own()
        h.settle()
        XCTAssertEqual(h.paste("UTF8_STRING").text, "from a password manager")
        XCTAssertTrue(h.engine.manager.history.entries.isEmpty, "marked secret by its owner: in no history")
    }

    func testStatusListsTheDisplays() throws {
        let h = try Harness()
        let b = h.addDisplay()
        guard case .status(let pairs)? = h.send(.status).first else { return XCTFail() }
        XCTAssertEqual(pairs.filter { $0.key.hasPrefix("display.") }.map { "\($0.key)=\($0.value)" },
                       ["display.:99=connected", "display.\(b.name)=connected"])
        guard case .status(let listed)? = h.send(.displays).first else { return XCTFail() }
        XCTAssertEqual(listed.map(\.key), [":99", b.name])
    }

    /// Two displays and a copy on A whose owner gives its text but never answers for `application/x-slow`: the
    /// manager's snapshot of it stays under way.
    func slowCopy() throws -> (Harness, Harness.Display, FakeOwner) {
        let h = try Harness()
        let b = h.addDisplay()
        let owner = h.owner([("UTF8_STRING", text), ("application/x-slow", Array("slow".utf8))])
        owner.silentFor = ["application/x-slow"]
        owner.own()
        h.settle()
        return (h, b, owner)
    }

    /// A paste on B of a type the manager's snapshot on A has read already is answered at once, while the
    /// snapshot still waits for another target of the copy.
    func testAPasteElsewhereIsAnsweredAsSoonAsTheSnapshotReadItsType() throws {
        let (h, b, owner) = try slowCopy()
        XCTAssertEqual(h.engine.manager.snapshotsInProgress, 1, "still waiting for the slow target")
        let requested = owner.requested.count
        XCTAssertEqual(h.paste("UTF8_STRING", on: b).text, "copied on A")
        XCTAssertEqual(owner.requested.count, requested, "answered from what the snapshot read, the owner not asked again")
    }

    /// A paste on B waiting for A's snapshot of a copy that is cleared meanwhile is refused at once (that
    /// snapshot is abandoned and will never end), its fetch not left to its deadline.
    func testAPasteWaitingForAClearedCopyIsRefusedAtOnce() throws {
        let (h, b, _) = try slowCopy()
        let waiting = FakeRequestor(server: b.server)
        waiting.ask("CLIPBOARD", "application/x-slow")
        h.settle()
        XCTAssertNil(waiting.result, "waits for A's snapshot")
        XCTAssertNotNil(h.engine.bridge.nextDeadline, "a fetch in flight")
        h.send(.clear(pasteboard: "CLIPBOARD"))
        _ = waiting.pump()
        guard case .some(.none) = waiting.result else { return XCTFail("refused at once: \(String(describing: waiting.result))") }
        XCTAssertNil(h.engine.bridge.nextDeadline, "the fetch for the cleared copy ended with it, not left to its deadline")
    }

    /// A harness with a second display and an owner of `value` as application/x-large sending it by INCR in
    /// chunks of `chunk` bytes (pausing after `pause` of them when given), on the first display or on B.
    func largeCopy(_ value: [UInt8], chunk: Int = 256 << 10, pause: Int? = nil, announcesSize: Bool = true,
                   onB: Bool = false, keepState: Bool = false) throws -> (Harness, Harness.Display, FakeOwner) {
        let h = try Harness(keepState: keepState)
        let b = h.addDisplay()
        let owner = onB ? h.owner(on: b, [("application/x-large", value)]) : h.owner([("application/x-large", value)])
        owner.incrThreshold = chunk
        owner.announcesSize = announcesSize
        owner.pausesAfterChunks = pause
        owner.own()
        h.settle()
        return (h, b, owner)
    }

    /// A large copy on A reaches a reader on B as it arrives: while A's owner is still sending, B's reader
    /// already has what came (one pass, not read whole on A and then sent whole to B), and in the end it has
    /// exactly the owner's bytes.
    func testALargeValueCrossesToTheOtherDisplayAsItArrives() throws {
        let value = (0..<(5 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 9) }
        let (h, b, owner) = try largeCopy(value, pause: 8)
        let reader = h.paste("application/x-large", on: b)
        XCTAssertNil(reader.result, "not complete while A's owner is still sending")
        let halfway = try XCTUnwrap(reader.receivedSoFar, "B's reader is in an INCR transfer before A's has ended")
        XCTAssertGreaterThanOrEqual(halfway, 7 * (256 << 10), "what came from A was sent on to B as it came")
        XCTAssertLessThanOrEqual(halfway, 8 * (256 << 10))
        owner.resumeTransfers()
        h.settle()
        guard case .some(.some(let pasted)) = reader.result else { return XCTFail("B's reader got the whole value: \(String(describing: reader.result))") }
        XCTAssertEqual(pasted.bytes?.count, value.count)
        XCTAssertTrue(pasted.bytes == value, "exactly the owner's bytes")
        XCTAssertEqual(h.paste("application/x-large", on: b).bytes?.count, value.count, "a second paste on B from what B has now")
    }

    /// With the history on disk A's manager reads a large copy into its archive's file as it comes: a reader on B is
    /// sent the bytes from there as they arrive, gets exactly the owner's, and what A keeps is that file.
    func testALargeCopyReadIntoItsFileIsRelayedFromThereAsItArrives() throws {
        let value = (0..<(5 << 20) + 999).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ $0 >> 10) }
        let (h, b, owner) = try largeCopy(value, pause: 8, keepState: true)
        let reader = h.paste("application/x-large", on: b)
        XCTAssertNil(reader.result, "not complete while A's owner is still sending")
        let halfway = try XCTUnwrap(reader.receivedSoFar, "B's reader is in an INCR transfer before A's has ended")
        XCTAssertGreaterThanOrEqual(halfway, 7 * (256 << 10), "what came from A was sent on to B as it came")
        owner.resumeTransfers()
        h.settle()
        guard case .some(.some(let pasted)) = reader.result else { return XCTFail("B's reader got the whole value") }
        XCTAssertTrue(pasted.bytes == value, "exactly the owner's bytes (\(pasted.bytes?.count ?? 0))")
        guard case .read(_, let kept)? = h.engine.manager.state.phase(of: .general) else { return XCTFail("A kept it") }
        XCTAssertNotNil(kept.source(for: PasteboardType("application/x-large")), "kept in the file it was read into")
        XCTAssertTrue(h.paste("application/x-large", on: b).bytes == value, "a second paste on B, from the file")
    }

    /// The same once A's manager has read the copy: a paste on B reads A's live owner, and that read is relayed
    /// as it arrives too.
    func testALiveReadOfALargeValueIsRelayedAsItArrives() throws {
        let value = (0..<(5 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 11) }
        let (h, b, owner) = try largeCopy(value)
        XCTAssertEqual(h.engine.manager.snapshotsInProgress, 0, "A's manager has read it")
        owner.pausesAfterChunks = 8
        let reader = h.paste("application/x-large", on: b)
        XCTAssertNil(reader.result)
        XCTAssertGreaterThanOrEqual(reader.receivedSoFar ?? 0, 7 * (256 << 10), "the live read's bytes sent on as they came")
        owner.resumeTransfers()
        h.settle()
        XCTAssertTrue(reader.bytes == value, "exactly the owner's bytes")
    }

    /// An owner whose INCR header gives no size (xclip) is relayed too, once `Snapshotter.relayedFrom` bytes
    /// are in: before that, a failure is still a refusal.
    func testAnINCRTransferOfNoAnnouncedSizeIsRelayedOnceFourMiBAreIn() throws {
        let value = (0..<(6 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 3 &+ $0 >> 11) }
        let (h, b, owner) = try largeCopy(value, pause: 12, announcesSize: false)
        let reader = h.paste("application/x-large", on: b)
        XCTAssertNil(reader.receivedSoFar, "3 MiB in: not relayed yet")
        owner.resumeTransfers(pausingAfter: 20)
        h.settle()
        XCTAssertGreaterThanOrEqual(reader.receivedSoFar ?? 0, 16 * (256 << 10), "relayed once 4 MiB were in")
        XCTAssertNil(reader.result)
        owner.resumeTransfers()
        h.settle()
        XCTAssertTrue(reader.bytes == value, "exactly the owner's bytes")
    }

    /// The display a relayed transfer comes from is removed midway: the reader's transfer on the other display
    /// ends at once (cut off, never short), not at its idle timeout.
    func testARelayedTransferEndsAtOnceWhenItsDisplayIsRemoved() throws {
        let (h, b, _) = try largeCopy([UInt8](repeating: 0x43, count: 5 << 20), pause: 8, onB: true)
        let reader = h.paste("application/x-large")
        XCTAssertNotNil(reader.receivedSoFar, "relaying from B to A")
        XCTAssertEqual(h.engine.service.transfers.count, 1, "A sends it on")
        h.send(.removeDisplay(name: b.name))
        h.settle()
        XCTAssertEqual(h.engine.service.transfers.count, 0, "A's transfer ended with B, at once")
        if case .some(.some(let value)) = reader.result { XCTFail("never the part as a whole value: \(value.bytes?.count ?? 0) bytes") }
    }

    /// A value announced smaller than `Snapshotter.relayedFrom` is read whole first: a reader elsewhere is
    /// still refused cleanly when its read fails.
    func testASmallerValueIsReadWholeFirstSoAFailureIsStillARefusal() throws {
        let (h, b, owner) = try largeCopy([UInt8](repeating: 0x42, count: 1 << 20), chunk: 64 << 10, pause: 4)
        let reader = h.paste("application/x-large", on: b)
        XCTAssertNil(reader.receivedSoFar, "nothing sent on before the whole value is in")
        owner.exit()
        h.advance(by: .seconds(60))
        guard case .some(.none) = reader.result else { return XCTFail("refused: \(String(describing: reader.result))") }
    }

    /// A relayed transfer whose origin stops midway is cut off on B (the reader never gets a short value as if
    /// it were whole), and the daemon goes on serving.
    func testARelayedTransferWhoseOriginExitsMidwayIsCutOffNeverShort() throws {
        let (h, b, owner) = try largeCopy([UInt8](repeating: 0x41, count: 5 << 20), pause: 4)
        let reader = h.paste("application/x-large", on: b)
        XCTAssertNotNil(reader.receivedSoFar, "relaying")
        owner.exit()
        h.advance(by: .seconds(60))
        if case .some(.some(let value)) = reader.result {
            XCTFail("the part that came was given as a whole value: \(value.bytes?.count ?? 0) bytes")
        }
        let after = h.owner(on: b, [("UTF8_STRING", Array("next".utf8))])
        after.own()
        h.settle()
        XCTAssertEqual(h.paste("UTF8_STRING").text, "next", "the daemon goes on serving")
    }
}
