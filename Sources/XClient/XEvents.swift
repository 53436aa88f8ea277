import CX11
import CX11Shims
import Selection

/// Core event masks this project uses. The values are Xlib's.
public struct EventMask: OptionSet, Sendable {
    public var rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public static let structureNotify = EventMask(rawValue: 1 << 17)
    public static let substructureNotify = EventMask(rawValue: 1 << 19)
    public static let propertyChange = EventMask(rawValue: 1 << 22)
}

/// XFixes selection event masks (XFixesSelectSelectionInput).
public struct XFixesSelectionMask: OptionSet, Sendable {
    public var rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public static let setSelectionOwner = XFixesSelectionMask(rawValue: 1 << 0)
    public static let selectionWindowDestroy = XFixesSelectionMask(rawValue: 1 << 1)
    public static let selectionClientClose = XFixesSelectionMask(rawValue: 1 << 2)
    public static let all: XFixesSelectionMask = [.setSelectionOwner, .selectionWindowDestroy, .selectionClientClose]
}

/// An XFixes SelectionNotify: a selection's owner changed, or its window died, or its client closed.
public struct SelectionOwnerChange: Equatable, Sendable {
    public enum Kind: Int32, Sendable {
        case setOwner = 0, windowDestroyed = 1, clientClosed = 2
    }
    public var kind: Kind
    public var selection: Atom
    /// The new owner; `.none` when cleared and for window-destroyed and client-closed events.
    public var owner: WindowID
    /// The server time of the event.
    public var time: Timestamp
    /// The time of the selection's last ownership change (not updated by destroy/close events).
    public var selectionTime: Timestamp

    public init(kind: Kind, selection: Atom, owner: WindowID, time: Timestamp, selectionTime: Timestamp) {
        self.kind = kind
        self.selection = selection
        self.owner = owner
        self.time = time
        self.selectionTime = selectionTime
    }
}

/// The events this project handles, decoded from Xlib's XEvent union.
public enum XEventValue: Sendable {
    case selectionRequest(SelectionRequest)
    case selectionNotify(requestor: WindowID, selection: Atom, target: Atom, property: Atom, time: Timestamp)
    case selectionClear(selection: Atom, window: WindowID, time: Timestamp)
    case propertyNotify(window: WindowID, property: Atom, time: Timestamp, deleted: Bool)
    case destroyNotify(window: WindowID)
    case selectionOwnerChange(SelectionOwnerChange)
    case clientMessage(window: WindowID, type: Atom, data: [Int])
    case other(type: Int32)
}

extension XConnection {
    /// The next event, blocking until one arrives; call `pendingEvents()` first to avoid blocking.
    /// The corresponding Xlib function is XNextEvent.
    public func nextEvent() -> XEventValue {
        var event = XEvent()
        XNextEvent(display, &event)
        return decode(&event)
    }

    private func decode(_ event: inout XEvent) -> XEventValue {
        func atom(_ raw: CX11.Atom) -> Atom { Atom(UInt32(truncatingIfNeeded: raw)) }
        func window(_ raw: CX11.Window) -> WindowID { WindowID(UInt32(truncatingIfNeeded: raw)) }
        func time(_ raw: CX11.Time) -> Timestamp { Timestamp(UInt32(truncatingIfNeeded: raw)) }
        switch event.type {
        case SelectionRequest:
            let e = event.xselectionrequest
            return .selectionRequest(Selection.SelectionRequest(
                requestor: window(e.requestor), selection: atom(e.selection), target: atom(e.target),
                property: atom(e.property), time: time(e.time)))
        case SelectionNotify:
            let e = event.xselection
            return .selectionNotify(requestor: window(e.requestor), selection: atom(e.selection),
                                    target: atom(e.target), property: atom(e.property), time: time(e.time))
        case SelectionClear:
            let e = event.xselectionclear
            return .selectionClear(selection: atom(e.selection), window: window(e.window), time: time(e.time))
        case PropertyNotify:
            let e = event.xproperty
            return .propertyNotify(window: window(e.window), property: atom(e.atom), time: time(e.time),
                                   deleted: e.state == PropertyDelete)
        case DestroyNotify:
            return .destroyNotify(window: window(event.xdestroywindow.window))
        case ClientMessage:
            let e = event.xclient
            let l = e.data.l
            return .clientMessage(window: window(e.window), type: atom(e.message_type),
                                  data: [Int(l.0), Int(l.1), Int(l.2), Int(l.3), Int(l.4)])
        default:
            if let base = xfixesEventBase, event.type == base + XFixesSelectionNotify {
                let e = withUnsafePointer(to: &event) { pbx_xfixes_selection_event($0) }
                return .selectionOwnerChange(SelectionOwnerChange(
                    kind: SelectionOwnerChange.Kind(rawValue: e.subtype) ?? .setOwner,
                    selection: atom(e.selection), owner: window(e.owner), time: time(e.timestamp),
                    selectionTime: time(e.selection_timestamp)))
            }
            return .other(type: event.type)
        }
    }
}
