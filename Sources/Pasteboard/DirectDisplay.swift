// SPDX-License-Identifier: Apache-2.0
import PasteboardCore

/// Which display the library reads a pasteboard from itself, when pasteboardd does not hold its content (or does
/// not run): a Wayland seat through data-control, or the X display.
///
/// The seat when `WAYLAND_DISPLAY` is set, for CLIPBOARD and PRIMARY (the seat's selection and primary selection),
/// even with `DISPLAY` set too — as wl-paste reads it. On a Wayland session `DISPLAY` is XWayland's, and the
/// compositor hands the seat's selection to XWayland only while an X window has focus (wlroots), dropping every
/// name without a `/`: X would show a stale or empty selection where the seat holds the user's copy. Named
/// pasteboards are X selections (or pasteboardd's): they are read through X — and with no X display at all (a
/// Wayland session without `DISPLAY`) they are pasteboardd's alone, no Wayland selection carrying them: what it does
/// not hold is empty. A seat that cannot be read (no compositor, none of the data-control protocols: GNOME's mutter)
/// gives way to X when `DISPLAY` is set.
enum DirectDisplay: Equatable, Sendable {
    case wayland(socket: String)
    case x
    /// A named pasteboard on a Wayland session without X: nothing but pasteboardd holds it.
    case daemonOnly

    static func choose(_ environment: [String: String], pasteboard: PasteboardName) -> DirectDisplay {
        guard let socket = environment["WAYLAND_DISPLAY"], !socket.isEmpty else { return .x }
        guard pasteboard == .general || pasteboard == .primary else { return hasXFallback(environment) ? .x : .daemonOnly }
        return .wayland(socket: socket)
    }

    /// Whether an X display stands behind a seat that cannot be read.
    static func hasXFallback(_ environment: [String: String]) -> Bool { !(environment["DISPLAY"] ?? "").isEmpty }
}
