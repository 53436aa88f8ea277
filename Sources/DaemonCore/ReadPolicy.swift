// SPDX-License-Identifier: Apache-2.0
import PasteboardCore

/// Who may read sensitive content the daemon serves (`readPolicy` in config.json, pasteboardd.conf(5)): X cannot
/// stop a client from asking, but the daemon answers. Never the applications `neverTo` names (a window class,
/// instance or process name, matched without regard to case); with `focusedWindowOnly`, only the application
/// whose window has the input focus (the requestor's process is the focused window's, as the X server says).
/// Applies to content copied sensitive (`pb copy --sensitive`, `PasteboardOptions.sensitive`); a refusal is
/// logged and told to `pb watch --reads`. Pure: the daemon looks the names and processes up.
public struct ReadPolicy: Equatable, Sendable {
    /// Applications never served sensitive content.
    public var neverTo: [String] = []
    /// Sensitive content is served only to the application whose window has the input focus.
    public var focusedWindowOnly = false

    public init(neverTo: [String] = [], focusedWindowOnly: Bool = false) {
        self.neverTo = neverTo
        self.focusedWindowOnly = focusedWindowOnly
    }

    /// True when the policy refuses no one.
    public var isEmpty: Bool { neverTo.isEmpty && !focusedWindowOnly }

    /// What the daemon knows of a reader when it judges a read.
    public struct Reader: Equatable, Sendable {
        /// Its names: both of its window's (and client leader's) `WM_CLASS`, its process name.
        public var names: [String]
        /// Its process, when the X server (or the socket) says.
        public var processID: Int32?
        /// An X requestor (the focus rule applies), or a control client (pb, the library: it has no window).
        public var hasWindow: Bool

        public init(names: [String], processID: Int32?, hasWindow: Bool) {
            self.names = names
            self.processID = processID
            self.hasWindow = hasWindow
        }
    }

    /// Why `reader` is refused sensitive content, or nil when it may read it. `focus` is the process of the
    /// window that has the input focus (nil: none, or the server cannot say), `focusName` its name for the reason.
    public func refusal(of reader: Reader, focus: Int32?, focusName: String? = nil) -> String? {
        if let name = reader.names.first(where: { name in neverTo.contains { $0.lowercased() == name.lowercased() } }) {
            return "readPolicy: sensitive content is never served to \(name)"
        }
        guard focusedWindowOnly, reader.hasWindow else { return nil }
        guard let pid = reader.processID, let focus, pid == focus else {
            let focused = focusName.map { "the focus is on \($0)" } ?? (focus == nil ? "no window has the input focus" : "the focus is elsewhere")
            return "readPolicy: sensitive content is served only to the window that has the input focus (\(focused))"
        }
        return nil
    }
}
