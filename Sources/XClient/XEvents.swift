// SPDX-License-Identifier: Apache-2.0
import CX11
import CX11Shims
import XTypes

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
            return .selectionRequest(XTypes.SelectionRequest(
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
