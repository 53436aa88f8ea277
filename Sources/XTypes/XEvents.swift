// SPDX-License-Identifier: Apache-2.0
/// A SelectionRequest event as the owner receives it.
public struct SelectionRequest: Equatable, Sendable {
    public var requestor: WindowID
    public var selection: Atom
    public var target: Atom
    /// Where the requestor wants the data; `.none` from obsolete clients (ICCCM 2.2: use the target atom).
    public var property: Atom
    public var time: Timestamp

    public init(requestor: WindowID, selection: Atom, target: Atom, property: Atom, time: Timestamp) {
        self.requestor = requestor
        self.selection = selection
        self.target = target
        self.property = property
        self.time = time
    }
}

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

