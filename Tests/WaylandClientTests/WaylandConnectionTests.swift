// SPDX-License-Identifier: Apache-2.0
import Foundation
import SystemSupport
import TestSupport
import WaylandClient
import XCTest

/// The Wayland door against a real compositor (headless sway, wlroots) and wl-clipboard as the other client:
/// it binds data-control, sees every copy as an offer with its MIME types, reads one through a pipe, offers a
/// selection of its own that wl-paste reads, and knows when the compositor goes away.
final class WaylandConnectionTests: XCTestCase {
    nonisolated(unsafe) static var sway: Result<Sway, Error>?

    override class func setUp() {
        sway = Result { try Sway() }
    }

    override class func tearDown() {
        if case .success(let sway)? = sway { sway.stop() }
        sway = nil
    }

    /// The suite's compositor. Without sway a test is skipped (and says so, `SkipLog`), except in CI, where a
    /// test that needs the compositor runs: it fails there, never silently skips.
    private func compositor() throws -> Sway {
        switch Self.sway {
        case .success(let sway)?: return sway
        case .failure(let error)?:
            if Tools.isCI || Tools.path(of: "sway") != nil { throw error }
            throw XCTSkip(SkipLog.record(name, "\(error)"))
        case nil: throw FixtureError("the suite's compositor was not set up")
        }
    }

    private func connect() throws -> WaylandConnection {
        try WaylandConnection(name: try compositor().socket)
    }

    private func environment() throws -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["WAYLAND_DISPLAY"] = try compositor().socket
        return environment
    }

    /// `wl-copy --foreground` owning the selection with `bytes` until stopped (by its PID, at the end of the test).
    @discardableResult
    private func copy(_ bytes: [UInt8], _ arguments: [String] = []) throws -> Process {
        let process = try Runner(environment: try environment()).start("wl-copy", ["--foreground"] + arguments, stdin: bytes)
        addTeardownBlock { if process.isRunning { kill(process.processIdentifier, SIGTERM); process.waitUntilExit() } }
        return process
    }

    /// Reads and dispatches until `until` holds for the events so far (at most 5 s).
    private func events(on connection: WaylandConnection, until done: ([WaylandConnection.Event]) -> Bool) throws -> [WaylandConnection.Event] {
        var events = connection.takeEvents()
        let deadline = Date().addingTimeInterval(5)
        while !done(events) {
            guard Date() < deadline else { XCTFail("no such events within 5 s: \(events)"); return events }
            try connection.flush()
            let ready = try Poller.wait([PollRequest(FileDescriptor(rawValue: connection.descriptor), .readable)], timeoutMilliseconds: 200)
            if !(ready.first?.isEmpty ?? true) { events += try connection.read() }
        }
        return events
    }

    func testItBindsWlrDataControlWithThePrimarySelection() throws {
        let connection = try connect()
        XCTAssertEqual(connection.dataControl, .wlr(version: 2), "sway 1.7 offers wlr-data-control version 2, not ext")
        XCTAssertTrue(connection.dataControl?.hasPrimarySelection == true)
    }

    func testACopyIsAnOfferWithItsTypesAndReadsThroughAPipe() throws {
        let connection = try connect()
        _ = try events(on: connection) { _ in true }
        try copy(Array("<b>from wl-copy</b>".utf8), ["--type", "text/html"])
        let seen = try events(on: connection) { $0.contains { if case .selection(.some, primary: false) = $0 { true } else { false } } }
        guard case .selection(let offer?, _)? = seen.last(where: { if case .selection(.some, primary: false) = $0 { true } else { false } }) else {
            return XCTFail("\(seen)")
        }
        let types = seen.compactMap { if case .offerType(offer, let type) = $0 { type } else { nil } }
        XCTAssertTrue(types.contains("text/html"), "\(types)")

        let (readEnd, writeEnd) = try FileDescriptor.pipe()
        XCTAssertTrue(connection.receive(offer, mimeType: "text/html", into: writeEnd.rawValue))
        try connection.flush()
        try writeEnd.close()
        let bytes = try readEnd.readToEnd(limit: 1 << 20)
        try readEnd.close()
        XCTAssertEqual(String(decoding: bytes, as: UTF8.self), "<b>from wl-copy</b>")
        connection.destroy(offer)
    }

    func testASelectionItSetsIsReadByWlPasteAndCancelledByTheNextCopy() throws {
        let connection = try connect()
        let source = try XCTUnwrap(connection.makeSource(offering: ["text/plain;charset=utf-8", "text/plain"]))
        XCTAssertTrue(connection.setSelection(source))
        try connection.flush()
        // wl-paste runs while this connection answers its request on this thread.
        let paste = Process()
        paste.executableURL = URL(fileURLWithPath: try XCTUnwrap(Tools.path(of: "wl-paste")))
        paste.arguments = ["--no-newline", "--type", "text/plain"]
        paste.environment = try environment()
        let pasted = Pipe()
        paste.standardOutput = pasted
        try paste.run()
        addTeardownBlock { if paste.isRunning { kill(paste.processIdentifier, SIGTERM); paste.waitUntilExit() } }
        let asked = try events(on: connection) { $0.contains { if case .send = $0 { true } else { false } } }
        guard case .send(source, let type, let fd)? = asked.first(where: { if case .send = $0 { true } else { false } }) else {
            return XCTFail("\(asked)")
        }
        XCTAssertEqual(type, "text/plain")
        let out = FileDescriptor(rawValue: fd)
        try out.writeAll(Array("served over data-control".utf8))
        try out.close()
        let output = pasted.fileHandleForReading.readDataToEndOfFile()
        paste.waitUntilExit()
        XCTAssertEqual(paste.terminationStatus, 0)
        XCTAssertEqual(String(decoding: output, as: UTF8.self), "served over data-control")

        try copy(Array("another".utf8))
        let after = try events(on: connection) { $0.contains(.cancelled(source)) }
        XCTAssertTrue(after.contains(.cancelled(source)))
        connection.destroy(source)
    }

    func testThePrimarySelectionIsSeenApart() throws {
        let connection = try connect()
        _ = try events(on: connection) { _ in true }
        try copy(Array("selected".utf8), ["--primary"])
        let seen = try events(on: connection) { $0.contains { if case .selection(.some, primary: true) = $0 { true } else { false } } }
        XCTAssertTrue(seen.contains { if case .selection(.some, primary: true) = $0 { true } else { false } })
    }

    func testNoCompositorIsAClearError() {
        XCTAssertThrowsError(try WaylandConnection(name: "/nonexistent/wayland-9")) { error in
            XCTAssertTrue("\(error)".contains("cannot connect to the Wayland compositor"), "\(error)")
        }
    }
}
