// SPDX-License-Identifier: Apache-2.0
import PasteboardCore
import SystemSupport
import XTypes

/// The compositor's own X↔Wayland clipboard bridge on an XWayland display the daemon serves beside the
/// compositor's seat: a second bridge between the same two sides, which the daemon must neither count nor fight.
///
/// What it is (wlroots' xwm, as sway 1.7 runs it; `xwayland/selection/*.c`): one X client of the compositor's
/// own process. Its window for CLIPBOARD owns `CLIPBOARD_MANAGER` from the start. While the seat's selection is
/// a Wayland source (any client's, the daemon's included), that window owns CLIPBOARD on X, and answers X readers
/// only while an X window has the focus. When another X client takes CLIPBOARD, it asks that client for TARGETS
/// and, if an X window has the focus then, sets the seat's selection to a source of its own offering the MIME
/// forms of those targets (`mimeTypes(relaying:)`). The same for PRIMARY with a second window.
///
/// How the daemon tells it: the window owning `CLIPBOARD_MANAGER` is not a pasteboardd's and was made by the
/// process at the other end of the daemon's Wayland socket (X-Resource's client pid against SO_PEERCRED):
/// nothing is guessed from names or timing. A window is the relay's when the same process made it.
final class XWaylandRelay {
    /// The compositor's process.
    let compositor: Int32
    /// The relay's window that owns `CLIPBOARD_MANAGER` (and CLIPBOARD for the seat).
    let managerWindow: WindowID
    private let x: any XDisplay
    private var relayWindows: Set<WindowID>
    /// Windows found not to be the relay's (a requestor's, an owner's), forgotten when many.
    private var otherWindows: Set<WindowID> = []

    private init(x: any XDisplay, compositor: Int32, managerWindow: WindowID) {
        self.x = x
        self.compositor = compositor
        self.managerWindow = managerWindow
        relayWindows = [managerWindow]
    }

    /// The relay on `x`, if `x` is the XWayland display of the compositor whose process is `compositor`: its
    /// `CLIPBOARD_MANAGER` owner is a window of that process (two round trips).
    static func find(on x: any XDisplay, compositor: Int32) -> XWaylandRelay? {
        let owner = x.selectionOwner(x.intern("CLIPBOARD_MANAGER"))
        guard !owner.isNone, DaemonMark.read(from: owner, x) == nil, x.clientProcessID(of: owner) == compositor else {
            return nil
        }
        return XWaylandRelay(x: x, compositor: compositor, managerWindow: owner)
    }

    /// True when `window` is one of the relay's (a round trip the first time a window is asked about).
    func isRelayWindow(_ window: WindowID) -> Bool {
        if window.isNone { return false }
        if relayWindows.contains(window) { return true }
        if otherWindows.contains(window) { return false }
        if x.clientProcessID(of: window) == compositor {
            relayWindows.insert(window)
            return true
        }
        if otherWindows.count >= 256 { otherWindows.removeAll() }
        otherWindows.insert(window)
        return false
    }

    /// True while an X window has the input focus: the relay then answers X readers and carries X copies to the
    /// seat (a round trip).
    var xHasFocus: Bool { !x.inputFocus().isNone }

    /// The MIME types the relay's Wayland source offers for an X copy offering `targets`, as wlroots makes them:
    /// UTF8_STRING is `text/plain;charset=utf-8`, TEXT is `text/plain`, a name with a `/` is itself, and every
    /// other name (STRING, COMPOUND_TEXT, TARGETS…) is dropped.
    static func mimeTypes(relaying targets: [String]) -> Set<String> {
        Set(targets.compactMap { target in
            switch target {
            case "UTF8_STRING": "text/plain;charset=utf-8"
            case "TEXT": "text/plain"
            default: target.contains("/") ? target : nil
            }
        })
    }
}
