// SPDX-License-Identifier: Apache-2.0
import ControlProtocol
@testable import DaemonCore
import Foundation
import PasteboardCore
import SystemSupport
import TestSupport
import XCTest
import XTypes

/// The daemon's engine on a fake X server with a manual clock: no Xvfb, no display, no sleeps. Peers
/// (fake owners and requestors) live on the same server; `settle()` runs everyone until nothing moves.
final class Harness {
    let server: FakeXServer
    let x: FakeXServer.Connection
    let clock = ManualClock()
    let engine: DaemonEngine
    let stateDirectory: String?
    private(set) var logLines: [String] = []
    private var peers: [() -> Bool] = []

    /// - Parameters:
    ///   - keepState: use a state directory (counts, kept content, history) under `directory`, created if nil.
    ///   - server: the X server to connect to (one that outlived an earlier daemon); a new one if nil.
    ///   - beforeStart: called with the engine before it starts.
    init(configuration: DaemonConfiguration = DaemonConfiguration(), keepState: Bool = false, directory: String? = nil,
         table: ConversionTable = .standard, server: FakeXServer? = nil, beforeStart: (DaemonEngine) -> Void = { _ in }) throws {
        self.server = server ?? FakeXServer()
        x = self.server.connect()
        if keepState {
            let path = directory ?? NSTemporaryDirectory() + "daemoncore-" + UUID().uuidString
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            stateDirectory = path
        } else {
            stateDirectory = nil
        }
        var lines: [String] = []
        let log = Logger(sink: { lines.append($0) })
        engine = try DaemonEngine(x: x, clock: clock, configuration: configuration, display: ":99",
                                  stateDirectory: stateDirectory, log: log, table: table)
        logSink = { lines }
        beforeStart(engine)
        engine.start()
        settle()
    }

    private var logSink: () -> [String] = { [] }
    /// What the daemon logged so far.
    var log: [String] { logSink() }

    // MARK: - More displays

    /// A display the daemon serves besides the first, on its own fake server.
    struct Display {
        let server: FakeXServer
        let x: FakeXServer.Connection
        let name: String
    }
    private(set) var displays: [Display] = []

    /// Serves another display, on a new fake server; returns it.
    @discardableResult
    func addDisplay(_ name: String? = nil) -> Display {
        let server = FakeXServer()
        let display = Display(server: server, x: server.connect(), name: name ?? ":\(100 + displays.count)")
        displays.append(display)
        engine.addDisplay(display.name, x: display.x)
        settle()
        return display
    }

    func owner(on display: Display, _ targets: [(String, [UInt8])], selection: String = "CLIPBOARD") -> FakeOwner {
        let owner = FakeOwner(server: display.server, selection: selection, targets: targets)
        peers.append(owner.pump)
        return owner
    }

    /// What a requestor on `display` gets for `target` of `selection` once everyone settled.
    func paste(_ target: String, from selection: String = "CLIPBOARD", on display: Display) -> FakeRequestor {
        let requestor = FakeRequestor(server: display.server)
        peers.append(requestor.pump)
        requestor.ask(selection, target)
        settle()
        return requestor
    }

    /// The count published on `display`'s root window.
    func publishedCount(_ pasteboard: String = "CLIPBOARD", on display: Display) -> UInt32? {
        let server = display.server
        return server.property(server.root, server.intern(PasteboardName.changeCountPropertyPrefix + pasteboard))?.atoms.first?.rawValue
    }

    /// The target names a requestor on `display` gets for TARGETS.
    func targets(_ selection: String = "CLIPBOARD", on display: Display) -> [String] {
        let requestor = paste("TARGETS", from: selection, on: display)
        guard case .some(.some(let value)) = requestor.result else { return [] }
        return value.atoms.compactMap { display.server.name(of: $0) }
    }

    /// Whether the daemon owns `selection` on `display`.
    func daemonOwns(_ selection: String = "CLIPBOARD", on display: Display) -> Bool {
        guard let side = engine.sides.first(where: { $0.name == display.name }) else { return false }
        return display.server.owner(of: display.server.intern(selection)) == side.service.ownerWindow
    }

    // MARK: - Peers

    func owner(_ targets: [(String, [UInt8])], selection: String = "CLIPBOARD") -> FakeOwner {
        let owner = FakeOwner(server: server, selection: selection, targets: targets)
        peers.append(owner.pump)
        return owner
    }

    func requestor() -> FakeRequestor {
        let requestor = FakeRequestor(server: server)
        peers.append(requestor.pump)
        return requestor
    }

    /// What a requestor gets for `target` of `selection` once everyone settled.
    func paste(_ target: String, from selection: String = "CLIPBOARD", waitForConversions: Bool = true) -> FakeRequestor {
        let requestor = requestor()
        requestor.ask(selection, target)
        settle(waitForConversions: waitForConversions)
        return requestor
    }

    // MARK: - Running

    /// Runs the daemon and every peer until nothing happens; waits (on the worker's descriptor, at most
    /// `conversionWait`) for conversions under way when `waitForConversions`.
    func settle(waitForConversions: Bool = true, conversionWait: Duration = .seconds(20)) {
        while true {
            var worked = false
            while x.pendingEvents() > 0 {
                engine.handle(x.nextEvent())
                worked = true
            }
            engine.handle(errors: x.takeErrors())
            for (display, side) in zip(displays, engine.sides.dropFirst()) {
                while display.x.pendingEvents() > 0 {
                    side.handle(display.x.nextEvent())
                    worked = true
                }
                side.handle(errors: display.x.takeErrors())
            }
            for pump in peers where pump() { worked = true }
            if worked { continue }
            if waitForConversions && engine.service.server.conversions.pendingCount > 0 {
                _ = try? Poller.wait([PollRequest(engine.conversionsDescriptor, .readable)],
                                     timeoutMilliseconds: Int(conversionWait.components.seconds * 1000))
            }
            if (try? Poller.wait([PollRequest(engine.conversionsDescriptor, .readable)], timeoutMilliseconds: 0))?.first?.isEmpty == false {
                engine.conversionsFinished()
                continue
            }
            return
        }
    }

    /// Waits until every file the daemon asked for is written, hands the writer's notices to the daemon (as
    /// the loop does when they arrive) and settles.
    func finishWrites() {
        engine.manager.writer.drain()
        engine.writesFinished()
        settle()
    }

    /// Moves the clock and lets timers fire.
    func advance(by duration: Duration) {
        settle()
        clock.advance(by: duration)
        engine.expire(now: clock.now())
        settle()
    }

    // MARK: - Control requests

    /// Sends `request` as a control client and returns what it was answered once everything settled.
    @discardableResult
    func send(_ request: ControlRequest, waitForConversions: Bool = true) -> [ControlResponse] {
        var responses: [ControlResponse] = []
        let client = DaemonEngine.Client(id: 1, send: { responses.append($0) })
        engine.handle(request, from: client)
        settle(waitForConversions: waitForConversions)
        return responses
    }

    /// Sends `request` and returns a box that fills in with the answer later (for requests left waiting).
    func sendLater(_ request: ControlRequest) -> ResponseBox {
        let box = ResponseBox()
        engine.handle(request, from: DaemonEngine.Client(id: 2, send: { box.responses.append($0) }))
        return box
    }

    final class ResponseBox { var responses: [ControlResponse] = [] }

    /// `pb copy`: one item of `representations` on `pasteboard`; returns the new count.
    @discardableResult
    func copy(_ representations: [(PasteboardType, String)], to pasteboard: String = "CLIPBOARD",
              options: CopyOptions = [], waitForConversions: Bool = true) throws -> UInt64 {
        let item = try PasteboardItem(representations.map { ($0.0, Array($0.1.utf8)) })
        let answer = send(.setItems(pasteboard: pasteboard, items: [item], options: options), waitForConversions: waitForConversions)
        guard case .changeCount(_, let count)? = answer.first else {
            XCTFail("setItems answered \(answer)")
            return 0
        }
        return count
    }

    func count(_ pasteboard: String = "CLIPBOARD") -> UInt64? {
        guard case .changeCount(_, let count)? = send(.changeCount(pasteboard: pasteboard)).first else { return nil }
        return count
    }

    /// The count published on the root window.
    func publishedCount(_ pasteboard: String = "CLIPBOARD") -> UInt32? {
        server.property(server.root, server.intern(PasteboardName.changeCountPropertyPrefix + pasteboard))?.atoms.first?.rawValue
    }

    /// The target names a requestor gets for TARGETS.
    func targets(_ selection: String = "CLIPBOARD") -> [String] {
        let requestor = paste("TARGETS", from: selection)
        guard case .some(.some(let value)) = requestor.result else { return [] }
        return value.atoms.compactMap { server.name(of: $0) }
    }

    /// Whether the daemon owns `selection` on the server.
    func daemonOwns(_ selection: String = "CLIPBOARD") -> Bool {
        let owner = server.owner(of: server.intern(selection))
        return owner == engine.service.ownerWindow
    }
}
