// SPDX-License-Identifier: Apache-2.0
import ControlProtocol
@testable import DaemonCore
import Foundation
import PasteboardCore
import SystemSupport
import TestSupport
import XCTest
import XTypes

/// Who copied, who read, and what the text is (issue 24, parts 5–7), on a fake X server: the sources found from
/// the owner's window, the change and read events, the history, the read policy.
final class ProvenanceTests: XCTestCase {
    /// The events the engine broadcasts, with reads watched.
    final class Events {
        var changes: [ChangeEvent] = []
        var reads: [ReadEvent] = []
    }

    private func watch(_ h: Harness) -> Events {
        let events = Events()
        h.engine.watchesReads = { true }
        h.engine.broadcast = { response, _ in
            if case .change(let change) = response { events.changes.append(change) }
            if case .read(let read) = response { events.reads.append(read) }
        }
        return events
    }

    private func setClass(_ connection: FakeXServer.Connection, _ window: WindowID, instance: String, className: String) {
        connection.changeProperty(window, connection.intern("WM_CLASS"),
                                  PropertyValue(type: connection.atoms.string, bytes: Array(instance.utf8) + [0] + Array(className.utf8) + [0]))
    }

    func testAForeignCopyIsTheOwnerWindowsClassAndItsPatternsComeOnceRead() throws {
        let h = try Harness()
        let events = watch(h)
        let owner = h.owner([("UTF8_STRING", Array("https://example.org/page".utf8))])
        setClass(owner.connection, owner.window, instance: "gedit", className: "Gedit")
        owner.own()
        h.settle()
        let foreign = try XCTUnwrap(events.changes.first { $0.state == "foreign" })
        XCTAssertEqual(foreign.source?.application, "Gedit", "the class, not the instance")
        XCTAssertNil(foreign.patterns, "unknown until read")
        let kept = try XCTUnwrap(events.changes.first { $0.state == "kept" }, "the manager's read is told")
        XCTAssertEqual(kept.count, foreign.count, "the same change")
        XCTAssertEqual(kept.patterns, .url)
        XCTAssertEqual(kept.source?.application, "Gedit")
        XCTAssertEqual(h.engine.manager.history.entries.first?.source?.application, "Gedit", "recorded in history")

        // The owner exits: the daemon takes over, keeps the source, and says who copied (nspasteboard.org).
        owner.exit()
        h.advance(by: .zero)
        XCTAssertTrue(h.daemonOwns())
        XCTAssertEqual(h.paste(ContentSource.sourceType).text, "Gedit")
        XCTAssertEqual(h.engine.service.content(of: .general)?.source?.application, "Gedit")
    }

    func testAHiddenOwnerWindowIsNamedByItsClientLeaderAndAClasslessOneByItsProcess() throws {
        let h = try Harness()
        let events = watch(h)
        // GTK owns with a hidden window without WM_CLASS; its client leader has one.
        let gtk = h.owner([("UTF8_STRING", Array("42".utf8))])
        let leader = gtk.connection.createWindow(eventMask: [])
        setClass(gtk.connection, leader, instance: "editor.py", className: "Editor.py")
        gtk.connection.changeProperty(gtk.window, gtk.connection.intern("WM_CLIENT_LEADER"),
                                      PropertyValue(type: gtk.connection.intern("WINDOW"), longs: [leader.rawValue]))
        gtk.own()
        h.settle()
        XCTAssertEqual(events.changes.last { $0.state == "foreign" }?.source?.application, "Editor.py")
        XCTAssertEqual(events.changes.last { $0.state == "kept" }?.patterns, .number)

        // No class anywhere: the process its _NET_WM_PID names on this host (this test's own), by /proc/PID/comm.
        let bare = h.owner([("UTF8_STRING", Array("/etc/hosts".utf8))])
        let pid = ProcessIdentity.processID
        bare.connection.changeProperty(bare.window, bare.connection.intern("_NET_WM_PID"),
                                       PropertyValue(type: bare.connection.atoms.cardinal, longs: [UInt32(pid)]))
        bare.connection.changeProperty(bare.window, bare.connection.intern("WM_CLIENT_MACHINE"),
                                       PropertyValue(type: bare.connection.atoms.string, bytes: Array((ProcessIdentity.hostName ?? "").utf8)))
        bare.own()
        h.settle()
        let comm = try String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8).trimmingCharacters(in: .newlines)
        let source = try XCTUnwrap(events.changes.last { $0.state == "foreign" }?.source)
        XCTAssertEqual(source.application, comm)
        XCTAssertEqual(source.processID, pid)

        // Another host's _NET_WM_PID names no process here.
        let remote = h.owner([("UTF8_STRING", Array("x".utf8))])
        remote.connection.changeProperty(remote.window, remote.connection.intern("_NET_WM_PID"),
                                         PropertyValue(type: remote.connection.atoms.cardinal, longs: [UInt32(pid)]))
        remote.connection.changeProperty(remote.window, remote.connection.intern("WM_CLIENT_MACHINE"),
                                         PropertyValue(type: remote.connection.atoms.string, bytes: Array("elsewhere.example".utf8)))
        remote.own()
        h.settle()
        XCTAssertNil(events.changes.last { $0.state == "foreign" }?.source)
    }

    func testTheOwnersOwnSourceTargetNamesItAndAHugeClassIsCut() throws {
        let h = try Harness()
        let events = watch(h)
        let owner = h.owner([("UTF8_STRING", Array("hi".utf8)), (ContentSource.sourceType, Array("org.keepassxc.KeePassXC".utf8))])
        setClass(owner.connection, owner.window, instance: String(repeating: "i", count: 5000), className: String(repeating: "C", count: 5000))
        owner.own()
        h.settle()
        let foreign = try XCTUnwrap(events.changes.last { $0.state == "foreign" })
        XCTAssertEqual(foreign.source?.application.utf8.count, ContentSource.maximumNameBytes, "a peer's name is cut to its cap")
        XCTAssertEqual(events.changes.last { $0.state == "kept" }?.source?.application, "org.keepassxc.KeePassXC",
                       "org.nspasteboard.source names the source once read")
    }

    func testAutoGeneratedContentIsServedAndTakenOverButNeverInHistory() throws {
        let h = try Harness()
        let owner = h.owner([("UTF8_STRING", Array("generated".utf8)), (ContentSource.autoGeneratedMarker, [])])
        owner.own()
        h.settle()
        XCTAssertEqual(h.engine.manager.history.entries.count, 0, "not the user's copy")
        owner.exit()
        h.advance(by: .zero)
        XCTAssertEqual(h.paste("UTF8_STRING").text, "generated", "still served")
        XCTAssertEqual(h.engine.manager.history.entries.count, 0)
        XCTAssertTrue(h.log.contains { $0.contains("AutoGeneratedType") })
    }

    func testASocketCopyIsItsProcessAndCarriesPatterns() throws {
        let h = try Harness()
        let events = watch(h)
        var answers: [ControlResponse] = []
        let client = DaemonEngine.Client(id: 7, send: { answers.append($0) }, source: ContentSource(application: "pb", processID: 4242))
        let item = try PasteboardItem([(type: .utf8String, data: Array("someone@example.org".utf8))])
        h.engine.handle(.setItems(pasteboard: "general", items: [item], options: []), from: client)
        h.settle()
        let data = try XCTUnwrap(events.changes.last)
        XCTAssertEqual(data.state, "data")
        XCTAssertEqual(data.source, ContentSource(application: "pb", processID: 4242))
        XCTAssertEqual(data.patterns, .email)
        XCTAssertEqual(h.engine.manager.history.entries.first?.source?.application, "pb")
        // Sensitive content tells no patterns.
        h.engine.handle(.setItems(pasteboard: "general", items: [item], options: .sensitive), from: client)
        h.settle()
        XCTAssertEqual(events.changes.last?.state, "sensitive")
        XCTAssertNil(events.changes.last?.patterns)
        // A client of `watch` is told as before: no `kept`, no source.
        XCTAssertEqual(Daemon.event(.change(data), for: nil),
                       .changed(pasteboard: "CLIPBOARD", count: data.count, types: data.types, state: "data", image: nil))
        XCTAssertNil(Daemon.event(.change(ChangeEvent(pasteboard: "general", count: 1, types: [], state: "kept")), for: nil))
        XCTAssertNil(Daemon.event(.read(ReadEvent(pasteboard: "general", type: "x", reader: nil, time: 0, via: "x")), for: .changes))
    }

    func testTheSourcedHistorySurvivesARestartAndAHistoryCopyKeepsIt() throws {
        let directory = NSTemporaryDirectory() + "provenance-" + UUID().uuidString
        do {
            let h = try Harness(keepState: true, directory: directory)
            let owner = h.owner([("UTF8_STRING", Array("from gedit".utf8))])
            setClass(owner.connection, owner.window, instance: "gedit", className: "Gedit")
            owner.own()
            h.settle()
            try h.copy([(.utf8String, "plain")])
            h.engine.manager.finishWrites()
        }
        let h = try Harness(keepState: true, directory: directory)
        guard case .sourcedHistory(let entries)? = h.send(.sourcedHistory(limit: 0)).first else { return XCTFail("no sourcedHistory answer") }
        XCTAssertEqual(entries.map(\.preview), ["plain", "from gedit"])
        XCTAssertEqual(entries.map(\.source?.application), [nil, "Gedit"], "the harness's client has no process; gedit's class is kept")
        guard case .history(let plain)? = h.send(.history(limit: 0)).first else { return XCTFail("no history answer") }
        XCTAssertEqual(plain.count, 2, "the old request is answered as before")
        h.send(.historyCopy(index: 1))
        XCTAssertEqual(h.engine.service.content(of: .general)?.source?.application, "Gedit", "copied back, still gedit's copy")
    }

    func testContentRestoredAfterARestartIsStillItsApplicationsCopy() throws {
        let directory = NSTemporaryDirectory() + "provenance-" + UUID().uuidString
        do {
            let h = try Harness(keepState: true, directory: directory)
            let owner = h.owner([("UTF8_STRING", Array("kept across".utf8))])
            setClass(owner.connection, owner.window, instance: "gedit", className: "Gedit")
            owner.own()
            h.settle()
            h.engine.manager.finishWrites()
            owner.exit()
        }
        let h = try Harness(keepState: true, directory: directory)
        XCTAssertTrue(h.daemonOwns(), "restored")
        XCTAssertEqual(h.engine.service.content(of: .general)?.source?.application, "Gedit")
        XCTAssertEqual(h.paste(ContentSource.sourceType).text, "Gedit", "and said so")
    }

    func testReadsAreRecordedPerContentTargetAndTheProtocolsOwnAreNot() throws {
        let h = try Harness()
        let events = watch(h)
        try h.copy([(.utf8String, "hello")])
        let reader = h.requestor()
        setClass(reader.connection, reader.window, instance: "firefox", className: "Firefox")
        for target in ["TARGETS", "TIMESTAMP"] {
            reader.ask("CLIPBOARD", target)
            h.settle()
        }
        XCTAssertEqual(events.reads, [], "TARGETS and TIMESTAMP are not reads")
        reader.ask("CLIPBOARD", "UTF8_STRING")
        h.settle()
        XCTAssertEqual(reader.text, "hello")
        let read = try XCTUnwrap(events.reads.last)
        XCTAssertEqual(read.pasteboard, "CLIPBOARD", "as pb names it")
        XCTAssertEqual(read.type, "UTF8_STRING")
        XCTAssertEqual(read.reader?.application, "Firefox")
        XCTAssertNil(read.refusal)
        XCTAssertEqual(read.via, "x")
        XCTAssertLessThan(abs(read.time - WallClock.nowMilliseconds), 60_000, "wall-clock milliseconds")
        // Another window read at once after is named for itself (the last reader is remembered a second only
        // for its own window).
        let other = h.requestor()
        setClass(other.connection, other.window, instance: "gedit", className: "Gedit")
        other.ask("CLIPBOARD", "UTF8_STRING")
        h.settle()
        XCTAssertEqual(events.reads.last?.reader?.application, "Gedit")
        reader.ask("CLIPBOARD", "image/png")
        h.settle()
        XCTAssertEqual(events.reads.last?.reader?.application, "Firefox")
        XCTAssertEqual(events.reads.last?.type, "image/png")
        XCTAssertNotNil(events.reads.last?.refusal, "a target not served is recorded as refused")

        // A paste through the socket is a read, by the client's process.
        let client = DaemonEngine.Client(id: 8, send: { _ in }, source: ContentSource(application: "pb", processID: 99))
        h.engine.handle(.read(pasteboard: "general", types: ["UTF8_STRING"], display: ":99"), from: client)
        h.settle()
        XCTAssertEqual(events.reads.last, ReadEvent(pasteboard: "CLIPBOARD", type: "UTF8_STRING", reader: ContentSource(application: "pb", processID: 99),
                                                    time: events.reads.last?.time ?? 0, via: "socket"))
    }

    func testMULTIPLEIsOneReadPerTargetItAsksFor() {
        let multiple = Atom(10), targets = Atom(11), timestamp = Atom(12), utf8 = Atom(20), html = Atom(21), p1 = Atom(30), p2 = Atom(31), p3 = Atom(32)
        let reads = RequestServer.readTargets(target: multiple, multiple: multiple, pairs: [utf8, p1, targets, p2, html, p3],
                                              protocolTargets: [targets, timestamp, multiple])
        XCTAssertEqual(reads, [utf8, html], "the wrapper and TARGETS inside it are not reads")
        XCTAssertEqual(RequestServer.readTargets(target: utf8, multiple: multiple, pairs: nil, protocolTargets: [targets, timestamp, multiple]), [utf8])
        XCTAssertEqual(RequestServer.readTargets(target: timestamp, multiple: multiple, pairs: nil, protocolTargets: [targets, timestamp, multiple]), [])
        XCTAssertEqual(RequestServer.readTargets(target: multiple, multiple: multiple, pairs: [utf8], protocolTargets: [targets, timestamp, multiple]), [],
                       "an odd pair list names no whole pair")
    }

    func testTheReadPolicyRefusesNamedClassesAndTheUnfocusedAndTellsWhy() throws {
        var configuration = DaemonConfiguration()
        configuration.readPolicy = ReadPolicy(neverTo: ["firefox"])
        let h = try Harness(configuration: configuration)
        let events = watch(h)
        try h.copy([(.utf8String, "hunter2")], options: .sensitive)
        let browser = h.requestor()
        setClass(browser.connection, browser.window, instance: "Navigator", className: "Firefox")
        browser.ask("CLIPBOARD", "UTF8_STRING")
        h.settle()
        XCTAssertEqual(browser.result, .some(nil), "refused")
        XCTAssertEqual(events.reads.last?.reader?.application, "Firefox")
        XCTAssertEqual(events.reads.last?.refusal, "readPolicy: sensitive content is never served to Firefox")
        XCTAssertTrue(h.log.contains { $0.contains("refused") && $0.contains("readPolicy") && !$0.contains("hunter2") }, "logged, never the content")
        browser.ask("CLIPBOARD", "TARGETS")
        h.settle()
        XCTAssertNotNil(browser.result ?? nil, "TARGETS is not a read: answered")
        let editor = h.requestor()
        setClass(editor.connection, editor.window, instance: "gedit", className: "Gedit")
        XCTAssertEqual(h.paste("UTF8_STRING").text, "hunter2", "others are served")
        // Content that is not sensitive is served to anyone.
        try h.copy([(.utf8String, "public")])
        browser.ask("CLIPBOARD", "UTF8_STRING")
        h.settle()
        XCTAssertEqual(browser.text, "public")

        // focusedWindowOnly: with no window focused (the fake server has none), nobody is served sensitive content.
        configuration.readPolicy = ReadPolicy(focusedWindowOnly: true)
        h.engine.reconfigure(configuration)
        try h.copy([(.utf8String, "hunter3")], options: .sensitive)
        editor.ask("CLIPBOARD", "UTF8_STRING")
        h.settle()
        XCTAssertEqual(editor.result, .some(nil))
        XCTAssertEqual(events.reads.last?.refusal,
                       "readPolicy: sensitive content is served only to the window that has the input focus (no window has the input focus)")
        // A control client has no window: the focus rule does not apply to it.
        var answer: [ControlResponse] = []
        let pb = DaemonEngine.Client(id: 9, send: { answer.append($0) }, source: ContentSource(application: "pb", processID: 5))
        h.engine.handle(.read(pasteboard: "general", types: ["UTF8_STRING"], display: ":99"), from: pb)
        h.settle()
        guard case .items(let items)? = answer.first else { return XCTFail("\(answer)") }
        XCTAssertEqual(items.first?.data(for: .utf8String), Array("hunter3".utf8))
    }

    func testTheNeverToRuleAppliesToASocketClientsProcessName() throws {
        var configuration = DaemonConfiguration()
        configuration.readPolicy = ReadPolicy(neverTo: ["pb"])
        let h = try Harness(configuration: configuration)
        let events = watch(h)
        try h.copy([(.utf8String, "hunter2")], options: .sensitive)
        var answer: [ControlResponse] = []
        let pb = DaemonEngine.Client(id: 9, send: { answer.append($0) }, source: ContentSource(application: "pb", processID: 5))
        h.engine.handle(.read(pasteboard: "general", types: ["UTF8_STRING"], display: ":99"), from: pb)
        h.settle()
        guard case .error(.denied, let message)? = answer.first else { return XCTFail("\(answer)") }
        XCTAssertEqual(message, "readPolicy: sensitive content is never served to pb")
        XCTAssertEqual(events.reads.last?.refusal, message)
        XCTAssertEqual(events.reads.last?.via, "socket")
    }

    func testReadPolicyConfiguration() throws {
        let parsed = try DaemonConfiguration.parse(Array(#"{"readPolicy": {"neverTo": ["Firefox", "chromium"], "focusedWindowOnly": true}}"#.utf8), path: "c")
        XCTAssertEqual(parsed.readPolicy, ReadPolicy(neverTo: ["Firefox", "chromium"], focusedWindowOnly: true))
        for (bad, message) in [(#"{"readPolicy": []}"#, "readPolicy must be an object"),
                               (#"{"readPolicy": {"neverTo": "x"}}"#, "readPolicy.neverTo must be a list"),
                               (#"{"readPolicy": {"focusedWindowOnly": 1}}"#, "readPolicy.focusedWindowOnly must be true or false"),
                               (#"{"readPolicy": {"never": []}}"#, "unknown key \"readPolicy.never\"")] {
            XCTAssertThrowsError(try DaemonConfiguration.parse(Array(bad.utf8), path: "c"), bad) { error in
                XCTAssertTrue("\(error)".contains(message), "\(error)")
            }
        }
    }

    func testTheReadPolicysRules() {
        let policy = ReadPolicy(neverTo: ["KeePassXC"], focusedWindowOnly: true)
        let focused = ReadPolicy.Reader(names: ["gedit", "Gedit"], processID: 10, hasWindow: true)
        XCTAssertNil(policy.refusal(of: focused, focus: 10))
        XCTAssertNotNil(policy.refusal(of: focused, focus: 11, focusName: "xterm"))
        XCTAssertEqual(policy.refusal(of: focused, focus: 11, focusName: "XTerm"),
                       "readPolicy: sensitive content is served only to the window that has the input focus (the focus is on XTerm)")
        XCTAssertNotNil(policy.refusal(of: ReadPolicy.Reader(names: [], processID: nil, hasWindow: true), focus: 10), "an unknown process is not the focused one")
        XCTAssertNotNil(policy.refusal(of: ReadPolicy.Reader(names: ["keepassxc"], processID: 10, hasWindow: true), focus: 10), "names match without case")
        XCTAssertNil(policy.refusal(of: ReadPolicy.Reader(names: ["pb"], processID: 3, hasWindow: false), focus: nil), "no window, no focus rule")
        XCTAssertTrue(ReadPolicy().isEmpty)
    }
}
