// SPDX-License-Identifier: Apache-2.0
import SystemSupport
import XTypes

/// An X server in memory, with the selection protocol's semantics, for testing the daemon's logic (and
/// the library's requestor) without Xvfb — as swift-nio's EmbeddedChannel does for channels.
///
/// Clients are `FakeXServer.Connection`s, each an `XDisplay`: windows, properties with PropertyNotify,
/// selections with SelectionRequest/SelectionNotify/SelectionClear and ICCCM's time rule, XFixes selection
/// events (owner set, owner window destroyed, owner client closed), DestroyNotify, ClientMessage, and
/// BadWindow errors for requests naming windows that do not exist. Events are queued on the receiving
/// connection at once; nothing happens between calls, so a test runs every step in order, with no
/// threads and no sleeps. Server time advances by one millisecond per request that carries a time.
public final class FakeXServer {
    public private(set) var time: UInt32 = 1000
    private var atomsByName: [String: Atom] = [:]
    private var namesByAtom: [Atom: String] = [:]
    private var nextResource: UInt32 = 0x0020_0000
    fileprivate var windows: [WindowID: Window] = [:]
    fileprivate var selections: [Atom: (owner: WindowID, time: Timestamp)] = [:]
    fileprivate var connections: [Connection] = []
    /// The root window (owned by no client).
    public let root: WindowID

    fileprivate struct Window {
        var creator: Int?
        var properties: [Atom: PropertyValue] = [:]
        /// Event masks by connection index.
        var masks: [Int: EventMask] = [:]
        /// XFixes selection masks by connection index and selection.
        var fixes: [Int: [Atom: XFixesSelectionMask]] = [:]
    }

    public init() {
        root = WindowID(1)
        windows[root] = Window(creator: nil)
    }

    /// A new client connection.
    public func connect(maximumRequestBytes: Int = 1 << 20) -> Connection {
        let connection = Connection(server: self, index: connections.count, maximumRequestBytes: maximumRequestBytes)
        connections.append(connection)
        return connection
    }

    /// The current owner of `selection`.
    public func owner(of selection: Atom) -> WindowID { selections[selection]?.owner ?? .none }

    /// The time of `selection`'s last ownership change (kept when its owner goes away, as X keeps it).
    public func selectionTime(of selection: Atom) -> Timestamp? { selections[selection]?.time }

    /// A property's value as the server holds it.
    public func property(_ window: WindowID, _ property: Atom) -> PropertyValue? { windows[window]?.properties[property] }

    public func intern(_ name: String) -> Atom {
        if let atom = atomsByName[name] { return atom }
        let atom = Atom(UInt32(atomsByName.count + 1))
        atomsByName[name] = atom
        namesByAtom[atom] = name
        return atom
    }

    public func name(of atom: Atom) -> String? { namesByAtom[atom] }

    /// How many names were interned on this server (as an X server, it keeps every one for its life).
    public var internedCount: Int { atomsByName.count }

    fileprivate func tick() -> Timestamp {
        time += 1
        return Timestamp(time)
    }

    fileprivate func newWindow(for client: Int, mask: EventMask) -> WindowID {
        nextResource += 1
        let id = WindowID(nextResource)
        var window = Window(creator: client)
        window.masks[client] = mask
        windows[id] = window
        return id
    }

    /// Delivers `event` to every connection that selected one of `mask` on `window`.
    fileprivate func deliver(_ event: XEventValue, on window: WindowID, mask: EventMask) {
        guard let target = windows[window] else { return }
        for (client, selected) in target.masks where !selected.intersection(mask).isEmpty {
            connections[client].queue(event)
        }
    }

    /// Delivers `event` to the client that created `window` (XSendEvent with an empty mask).
    fileprivate func sendToCreator(_ event: XEventValue, of window: WindowID) {
        guard let creator = windows[window]?.creator else { return }
        connections[creator].queue(event)
    }

    fileprivate func selectionEvent(_ kind: SelectionOwnerChange.Kind, selection: Atom, owner: WindowID, selectionTime: Timestamp) {
        let flag: XFixesSelectionMask = switch kind {
        case .setOwner: .setSelectionOwner
        case .windowDestroyed: .selectionWindowDestroy
        case .clientClosed: .selectionClientClose
        }
        let change = SelectionOwnerChange(kind: kind, selection: selection, owner: owner, time: Timestamp(time),
                                          selectionTime: selectionTime)
        for window in windows.values {
            for (client, selected) in window.fixes where selected[selection]?.contains(flag) == true {
                connections[client].queue(.selectionOwnerChange(change))
            }
        }
    }

    fileprivate func destroy(_ id: WindowID, clientClosing: Bool) {
        guard windows[id] != nil else { return }
        deliver(.destroyNotify(window: id), on: id, mask: .structureNotify)
        windows[id] = nil
        for (selection, held) in selections where held.owner == id {
            selections[selection] = (.none, held.time)
            selectionEvent(clientClosing ? .clientClosed : .windowDestroyed, selection: selection, owner: .none,
                           selectionTime: held.time)
        }
    }

    /// One client of the fake server.
    public final class Connection: XDisplay {
        // Strong: a test may keep only its connections; the server lives as long as any of them (a cycle a test run can afford).
        let server: FakeXServer
        let index: Int
        private var events: [XEventValue] = []
        private var errors: [XProtocolError] = []
        private var serial: UInt64 = 1
        public let maximumRequestBytes: Int
        public private(set) var atoms: StandardAtoms
        public private(set) var isConnectionLost = false
        /// Every request this client sent, by name, for tests that assert what was (not) done.
        public private(set) var requestLog: [String] = []
        /// Called after an event is queued here: a peer that answers at once (while a blocking reader on
        /// another connection waits) handles it from this.
        public var onEvent: (() -> Void)?

        init(server: FakeXServer, index: Int, maximumRequestBytes: Int) {
            self.server = server
            self.index = index
            self.maximumRequestBytes = maximumRequestBytes
            atoms = StandardAtoms(atoms: StandardAtoms.names.map(server.intern))
        }

        public var root: WindowID { server.root }
        public var nextRequestSerial: UInt64 { serial }
        public var pollDescriptor: Int32? { nil }

        fileprivate func queue(_ event: XEventValue) {
            guard !isConnectionLost else { return }
            events.append(event)
            onEvent?()
        }

        /// Counts a request; returns false (recording BadWindow) when it names a window that does not exist.
        @discardableResult
        private func request(_ name: String, window: WindowID? = nil) -> Bool {
            requestLog.append(name)
            defer { serial += 1 }
            if let window, server.windows[window] == nil {
                errors.append(XProtocolError(serial: serial, errorCode: XProtocolError.badWindowCode, requestCode: 0,
                                             minorCode: 0, resourceID: window.rawValue))
                return false
            }
            return true
        }

        /// Closes the connection: its windows are destroyed, its selections lost (XFixes: client closed).
        public func close() {
            guard !isConnectionLost else { return }
            for (id, window) in server.windows where window.creator == index { server.destroy(id, clientClosing: true) }
            for id in server.windows.keys {
                server.windows[id]?.masks[index] = nil
                server.windows[id]?.fixes[index] = nil
            }
            isConnectionLost = true
            events = []
        }

        public func flush() {}
        public func sync() {}
        public func pendingEvents() -> Int { events.count }
        public func nextEvent() -> XEventValue { events.removeFirst() }
        public func takeErrors() -> [XProtocolError] {
            defer { errors = [] }
            return errors
        }

        public func intern(_ name: String) -> Atom {
            request("InternAtom")
            return server.intern(name)
        }

        public func intern(_ names: [String]) -> [Atom] {
            request("InternAtom")
            return names.map(server.intern)
        }

        public func name(of atom: Atom) -> String? { server.name(of: atom) }

        public func createWindow(eventMask: EventMask) -> WindowID {
            request("CreateWindow")
            return server.newWindow(for: index, mask: eventMask)
        }

        public func destroyWindow(_ window: WindowID) {
            guard request("DestroyWindow", window: window) else { return }
            server.destroy(window, clientClosing: false)
        }

        public func selectInput(_ window: WindowID, _ mask: EventMask) {
            guard request("ChangeWindowAttributes", window: window) else { return }
            server.windows[window]?.masks[index] = mask
        }

        public func setSelectionOwner(_ selection: Atom, owner: WindowID, time: Timestamp) {
            guard request("SetSelectionOwner", window: owner.isNone ? nil : owner) else { return }
            let now = server.tick()
            let at = time.isCurrentTime ? now : time
            // ICCCM: a time earlier than the last change, or later than the server's, changes nothing.
            if let held = server.selections[selection], at.isEarlier(than: held.time) { return }
            if !time.isCurrentTime && now.isEarlier(than: at) { return }
            let previous = server.selections[selection]?.owner ?? .none
            server.selections[selection] = (owner, at)
            if !previous.isNone && previous != owner {
                server.sendToCreator(.selectionClear(selection: selection, window: previous, time: at), of: previous)
            }
            server.selectionEvent(.setOwner, selection: selection, owner: owner, selectionTime: at)
        }

        public func selectionOwner(_ selection: Atom) -> WindowID {
            request("GetSelectionOwner")
            return server.owner(of: selection)
        }

        public func convertSelection(_ selection: Atom, target: Atom, property: Atom, requestor: WindowID, time: Timestamp) {
            guard request("ConvertSelection", window: requestor) else { return }
            let owner = server.owner(of: selection)
            if owner.isNone {
                server.sendToCreator(.selectionNotify(requestor: requestor, selection: selection, target: target,
                                                      property: .none, time: time), of: requestor)
            } else {
                server.sendToCreator(.selectionRequest(SelectionRequest(requestor: requestor, selection: selection, target: target,
                                                                        property: property, time: time)), of: owner)
            }
        }

        public func sendSelectionNotify(requestor: WindowID, selection: Atom, target: Atom, property: Atom, time: Timestamp) {
            guard request("SendEvent(SelectionNotify)", window: requestor) else { return }
            server.sendToCreator(.selectionNotify(requestor: requestor, selection: selection, target: target,
                                                  property: property, time: time), of: requestor)
        }

        public func sendClientMessage(to destination: WindowID, eventMask: EventMask, window: WindowID, type: Atom, data: [Int]) {
            guard request("SendEvent(ClientMessage)", window: destination) else { return }
            server.deliver(.clientMessage(window: window, type: type, data: data), on: destination, mask: eventMask)
        }

        public func watchSelection(_ selection: Atom, on window: WindowID, mask: XFixesSelectionMask) {
            guard request("XFixesSelectSelectionInput", window: window) else { return }
            server.windows[window]?.fixes[index, default: [:]][selection] = mask
        }

        public func changeProperty(_ window: WindowID, _ property: Atom, _ value: PropertyValue, mode: PropertyMode) {
            guard request("ChangeProperty", window: window) else { return }
            // As the X door: a source's bytes are read and sent (an X server never holds a file).
            var stored = (try? value.inMemory()) ?? PropertyValue(type: value.type, bytes: [])
            if mode != .replace, let old = server.windows[window]?.properties[property], old.format == value.format {
                switch (old.items, value.items) {
                case (.bytes(let a), .bytes(let b)): stored = PropertyValue(type: value.type, items: .bytes(mode == .append ? a + b : b + a))
                case (.longs(let a), .longs(let b)): stored = PropertyValue(type: value.type, items: .longs(mode == .append ? a + b : b + a))
                case (.shorts(let a), .shorts(let b)): stored = PropertyValue(type: value.type, items: .shorts(mode == .append ? a + b : b + a))
                default: break
                }
            }
            server.windows[window]?.properties[property] = stored
            server.deliver(.propertyNotify(window: window, property: property, time: server.tick(), deleted: false),
                           on: window, mask: .propertyChange)
        }

        public func changeProperty(_ window: WindowID, _ property: Atom, type: Atom, bytes: UnsafeRawBufferPointer, mode: PropertyMode) {
            changeProperty(window, property, PropertyValue(type: type, bytes: Array(bytes)), mode: mode)
        }

        public func getProperty(_ window: WindowID, _ property: Atom, offset: Int, delete: Bool, maximumBytes: Int) -> PropertyRead {
            guard request("GetProperty", window: window) else { return PropertyRead(value: nil, bytesAfter: 0) }
            guard let value = server.windows[window]?.properties[property] else { return PropertyRead(value: nil, bytesAfter: 0) }
            // XGetWindowProperty: from byte `offset` (BadValue past the end: read as nothing here), at most
            // `maximumBytes` rounded up to 32-bit units; bytes_after is what is left after the read.
            let unit = value.format / 8
            let first = offset / unit
            let items = max(0, (maximumBytes + 3) / 4 * 4 / unit)
            func part<Item>(_ all: [Item]) -> (items: [Item], after: Int) {
                let start = min(first, all.count), end = min(start + items, all.count)
                return (Array(all[start..<end]), (all.count - end) * unit)
            }
            let read: PropertyValue.Items
            let after: Int
            switch value.items {
            case .bytes(let all): let p = part(all); read = .bytes(p.items); after = p.after
            case .shorts(let all): let p = part(all); read = .shorts(p.items); after = p.after
            case .longs(let all): let p = part(all); read = .longs(p.items); after = p.after
            case .source: read = .bytes([]); after = 0   // never stored (changeProperty reads it)
            }
            if delete && after == 0 {
                server.windows[window]?.properties[property] = nil
                server.deliver(.propertyNotify(window: window, property: property, time: server.tick(), deleted: true),
                               on: window, mask: .propertyChange)
            }
            return PropertyRead(value: PropertyValue(type: value.type, items: read), bytesAfter: after)
        }

        public func deleteProperty(_ window: WindowID, _ property: Atom) {
            guard request("DeleteProperty", window: window) else { return }
            guard server.windows[window]?.properties.removeValue(forKey: property) != nil else { return }
            server.deliver(.propertyNotify(window: window, property: property, time: server.tick(), deleted: true),
                           on: window, mask: .propertyChange)
        }

        /// COMPOUND_TEXT as this fake encodes it: the UTF-8 bytes behind a marker, so tests can tell.
        public func compoundText(fromUTF8 text: [UInt8]) -> [UInt8]? { Array("CT:".utf8) + text }
        public func utf8(fromCompoundText bytes: [UInt8]) -> [UInt8]? {
            bytes.starts(with: Array("CT:".utf8)) ? Array(bytes.dropFirst(3)) : nil
        }
    }
}

/// A monotonic clock a test moves by hand.
public final class ManualClock: MonotonicClock, @unchecked Sendable {
    private var current = MonotonicInstant(nanoseconds: 1_000_000_000)
    public init() {}
    public func now() -> MonotonicInstant { current }
    public func advance(by duration: Duration) { current += duration }
}
