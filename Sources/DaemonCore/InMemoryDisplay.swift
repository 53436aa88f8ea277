// SPDX-License-Identifier: Apache-2.0
import PasteboardCore
import XTypes

/// The pasteboards' home when the daemon serves no X display (a Wayland session without `DISPLAY`): an X display
/// in memory whose only client is the daemon itself.
///
/// The engine keeps its pasteboards on its first side — the counts and their store, the content pb copies and the
/// manager keeps, its restore at start, history, persistence, pause — and that side's selection service and
/// clipboard manager speak X. With no X server to speak it to, they speak it to this one: the same code, the
/// same loop guards and the same tests as on a display, with no second implementation of any of them. Nobody
/// else connects, so nothing is ever asked of it but what the daemon does itself: taking and clearing
/// selections (with ICCCM's time rule and XFixes' echo of each change, as an X server gives them), properties
/// with their PropertyNotify (the server time `OwnershipChanges` asks for), the manager selection and the
/// published counts. Every Wayland copy reaches it as another endpoint's offer, served here silently, as a second
/// X display would serve it.
///
/// Events are queued as requests are made (`pendingEvents`); there is no descriptor to poll (`pollDescriptor` is
/// nil: nothing comes by waiting). Server time is a counter of its own, one millisecond per request that carries a
/// time. COMPOUND_TEXT is not made here: no X client is there to ask for it.
final class InMemoryDisplay: XDisplay {
    let root = WindowID(1)
    let atoms: StandardAtoms
    let maximumRequestBytes = 1 << 20
    private(set) var nextRequestSerial: UInt64 = 1
    var isConnectionLost: Bool { false }
    var pollDescriptor: Int32? { nil }

    private var time: UInt32 = 1000
    /// Names and their atoms, numbered as interned (the standard ones first: 1 and up); a content's type names are
    /// in a table of its own (`contentNames()`).
    private let table = LocalAtoms()
    private var nextWindow: UInt32 = 0x0020_0000
    private var windows: [WindowID: Window] = [WindowID(1): Window(mask: [])]
    private var selections: [Atom: (owner: WindowID, time: Timestamp)] = [:]
    private var events: [XEventValue] = []

    private struct Window {
        var mask: EventMask
        var properties: [Atom: PropertyValue] = [:]
        var fixes: [Atom: XFixesSelectionMask] = [:]
    }

    init() {
        // The standard names are atoms 1 and up.
        atoms = StandardAtoms(atoms: table.intern(StandardAtoms.names))
    }

    /// One request made; false (nothing done) when it names a window that does not exist, as X's BadWindow.
    private func request(window: WindowID? = nil) -> Bool {
        nextRequestSerial += 1
        return window.map { windows[$0] != nil } ?? true
    }

    private func tick() -> Timestamp {
        time &+= 1
        return Timestamp(time)
    }

    private func deliver(_ event: XEventValue, on window: WindowID, mask: EventMask) {
        guard let target = windows[window], !target.mask.intersection(mask).isEmpty else { return }
        events.append(event)
    }

    private func selectionEvent(_ kind: SelectionOwnerChange.Kind, _ selection: Atom, owner: WindowID, selectionTime: Timestamp) {
        let flag: XFixesSelectionMask = switch kind {
        case .setOwner: .setSelectionOwner
        case .windowDestroyed: .selectionWindowDestroy
        case .clientClosed: .selectionClientClose
        }
        for window in windows.values where window.fixes[selection]?.contains(flag) == true {
            events.append(.selectionOwnerChange(SelectionOwnerChange(kind: kind, selection: selection, owner: owner,
                                                                     time: Timestamp(time), selectionTime: selectionTime)))
        }
    }

    func flush() {}
    func sync() {}
    func pendingEvents() -> Int { events.count }
    func nextEvent() -> XEventValue { events.removeFirst() }
    func takeErrors() -> [XProtocolError] { [] }

    func intern(_ name: String) -> Atom { intern([name])[0] }

    func intern(_ list: [String]) -> [Atom] {
        _ = request()
        return table.intern(list)
    }

    func name(of atom: Atom) -> String? { table.name(of: atom) }

    /// Each content served here numbers its names in a table of its own, from `contentAtomBase` up (above every
    /// atom of this display's own table), read back through the content: an X server keeps every atom interned for
    /// its life, and so this display kept every type name any Wayland client offered, or any client asked for, for
    /// the daemon's (up to 256 names of 64 KiB a copy). This display's own table holds the protocol's names and
    /// those of the pasteboards, windows' properties and markers the daemon uses.
    func contentNames() -> ContentNames {
        let own = LocalAtoms(first: Self.contentAtomBase)
        return ContentNames(intern: own.intern, name: { own.name(of: $0) ?? self.table.name(of: $0) })
    }

    /// Where a content's own numbers start (atoms are 29 bits in X; this display's own table never comes near).
    static let contentAtomBase: UInt32 = 1 << 28

    /// How many names this display's own table holds (not those of the contents served).
    var internedNameCount: Int { table.count }

    func createWindow(eventMask: EventMask) -> WindowID {
        _ = request()
        nextWindow += 1
        let id = WindowID(nextWindow)
        windows[id] = Window(mask: eventMask)
        return id
    }

    func destroyWindow(_ window: WindowID) {
        guard request(window: window), window != root else { return }
        deliver(.destroyNotify(window: window), on: window, mask: .structureNotify)
        windows[window] = nil
        for (selection, held) in selections where held.owner == window {
            selections[selection] = (.none, held.time)
            selectionEvent(.windowDestroyed, selection, owner: .none, selectionTime: held.time)
        }
    }

    func selectInput(_ window: WindowID, _ mask: EventMask) {
        guard request(window: window) else { return }
        windows[window]?.mask = mask
    }

    func setSelectionOwner(_ selection: Atom, owner: WindowID, time requested: Timestamp) {
        guard request(window: owner.isNone ? nil : owner) else { return }
        let now = tick()
        let at = requested.isCurrentTime ? now : requested
        // ICCCM: a time earlier than the last change, or later than the server's, changes nothing.
        if let held = selections[selection], at.isEarlier(than: held.time) { return }
        if !requested.isCurrentTime && now.isEarlier(than: at) { return }
        let previous = selections[selection]?.owner ?? .none
        selections[selection] = (owner, at)
        if !previous.isNone && previous != owner && windows[previous] != nil {
            events.append(.selectionClear(selection: selection, window: previous, time: at))
        }
        selectionEvent(.setOwner, selection, owner: owner, selectionTime: at)
    }

    func selectionOwner(_ selection: Atom) -> WindowID {
        _ = request()
        return selections[selection]?.owner ?? .none
    }

    func convertSelection(_ selection: Atom, target: Atom, property: Atom, requestor: WindowID, time: Timestamp) {
        guard request(window: requestor) else { return }
        let owner = selections[selection]?.owner ?? .none
        // The daemon is the only client: it asks itself, or nobody.
        if owner.isNone {
            events.append(.selectionNotify(requestor: requestor, selection: selection, target: target, property: .none, time: time))
        } else {
            events.append(.selectionRequest(SelectionRequest(requestor: requestor, selection: selection, target: target,
                                                             property: property, time: time)))
        }
    }

    func sendSelectionNotify(requestor: WindowID, selection: Atom, target: Atom, property: Atom, time: Timestamp) {
        guard request(window: requestor) else { return }
        events.append(.selectionNotify(requestor: requestor, selection: selection, target: target, property: property, time: time))
    }

    func sendClientMessage(to destination: WindowID, eventMask: EventMask, window: WindowID, type: Atom, data: [Int]) {
        guard request(window: destination) else { return }
        deliver(.clientMessage(window: window, type: type, data: data), on: destination, mask: eventMask)
    }

    func watchSelection(_ selection: Atom, on window: WindowID, mask: XFixesSelectionMask) {
        guard request(window: window) else { return }
        windows[window]?.fixes[selection] = mask
    }

    func changeProperty(_ window: WindowID, _ property: Atom, _ value: PropertyValue, mode: PropertyMode) {
        guard request(window: window) else { return }
        // As an X server: a source's bytes are read (nobody reads them back here but the daemon).
        var stored = (try? value.inMemory()) ?? PropertyValue(type: value.type, bytes: [])
        if mode != .replace, let old = windows[window]?.properties[property], old.format == stored.format {
            switch (old.items, stored.items) {
            case (.bytes(let a), .bytes(let b)): stored = PropertyValue(type: value.type, items: .bytes(mode == .append ? a + b : b + a))
            case (.shorts(let a), .shorts(let b)): stored = PropertyValue(type: value.type, items: .shorts(mode == .append ? a + b : b + a))
            case (.longs(let a), .longs(let b)): stored = PropertyValue(type: value.type, items: .longs(mode == .append ? a + b : b + a))
            default: break
            }
        }
        windows[window]?.properties[property] = stored
        deliver(.propertyNotify(window: window, property: property, time: tick(), deleted: false), on: window, mask: .propertyChange)
    }

    func changeProperty(_ window: WindowID, _ property: Atom, type: Atom, bytes: UnsafeRawBufferPointer, mode: PropertyMode) {
        changeProperty(window, property, PropertyValue(type: type, bytes: Array(bytes)), mode: mode)
    }

    func getProperty(_ window: WindowID, _ property: Atom, offset: Int, delete: Bool, maximumBytes: Int) -> PropertyRead {
        guard request(window: window), let value = windows[window]?.properties[property] else {
            return PropertyRead(value: nil, bytesAfter: 0)
        }
        // XGetWindowProperty: from byte `offset`, at most `maximumBytes` rounded up to 32-bit units.
        let unit = value.format / 8
        let first = offset / unit
        let wanted = max(0, (maximumBytes + 3) / 4 * 4 / unit)
        func part<Item>(_ all: [Item]) -> (items: [Item], after: Int) {
            let start = min(first, all.count), end = min(start + wanted, all.count)
            return (Array(all[start..<end]), (all.count - end) * unit)
        }
        let items: PropertyValue.Items
        let after: Int
        switch value.items {
        case .bytes(let all): let p = part(all); items = .bytes(p.items); after = p.after
        case .shorts(let all): let p = part(all); items = .shorts(p.items); after = p.after
        case .longs(let all): let p = part(all); items = .longs(p.items); after = p.after
        case .source: items = .bytes([]); after = 0   // never stored: changeProperty reads it
        }
        if delete && after == 0 {
            windows[window]?.properties[property] = nil
            deliver(.propertyNotify(window: window, property: property, time: tick(), deleted: true), on: window, mask: .propertyChange)
        }
        return PropertyRead(value: PropertyValue(type: value.type, items: items), bytesAfter: after)
    }

    func deleteProperty(_ window: WindowID, _ property: Atom) {
        guard request(window: window), windows[window]?.properties.removeValue(forKey: property) != nil else { return }
        deliver(.propertyNotify(window: window, property: property, time: tick(), deleted: true), on: window, mask: .propertyChange)
    }

    func compoundText(fromUTF8 text: [UInt8]) -> [UInt8]? { nil }
    func utf8(fromCompoundText bytes: [UInt8]) -> [UInt8]? { nil }
}
