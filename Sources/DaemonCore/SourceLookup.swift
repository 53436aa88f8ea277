// SPDX-License-Identifier: Apache-2.0
import PasteboardCore
import SystemSupport
import XTypes

/// Which application a window belongs to: who copied (the selection owner's window) and who reads (a
/// requestor's window).
///
/// The name is the window's `WM_CLASS` class, else its client leader's (`WM_CLIENT_LEADER`: GTK owns the
/// clipboard with a hidden window that has no `WM_CLASS` of its own), else the name of its process; the process
/// is the one the X server names (X-Resource's client id), else the window's (or its leader's) `_NET_WM_PID` when
/// its `WM_CLIENT_MACHINE` is this host. Every property read is capped (`ContentSource.maximumReadBytes`), and
/// a window that is gone simply has no source. A few round trips, on the loop.
struct SourceLookup {
    let x: any XDisplay
    /// The name of the process with an id, from `/proc/PID/comm` (a test gives its own).
    var processName: (Int32) -> String? = SourceLookup.processName(of:)

    /// The application that made `window`; nil when nothing names it (or `window` is none).
    func source(of window: WindowID) -> ContentSource? {
        guard !window.isNone else { return nil }
        let windows = [window] + [clientLeader(of: window)].compactMap { $0 }
        let application = windows.lazy.compactMap { self.wmClass(of: $0).flatMap(ContentSource.windowClass(fromWMClass:)) }.first
        let pid = x.clientProcessID(of: window) ?? windows.lazy.compactMap { self.localNetWMPID(of: $0) }.first
        guard let name = application ?? pid.flatMap(processName) else { return nil }
        return ContentSource(application: name, processID: pid)
    }

    /// Both names (instance and class) of the `WM_CLASS` of `window` and of its client leader, for rules that
    /// match either (`excludedWindowClasses`, `readPolicy`).
    func classNames(of window: WindowID) -> [String] {
        guard !window.isNone else { return [] }
        return ([window] + [clientLeader(of: window)].compactMap { $0 })
            .flatMap { wmClass(of: $0).map(ContentSource.windowClassNames(fromWMClass:)) ?? [] }
    }

    private func wmClass(of window: WindowID) -> [UInt8]? {
        x.getProperty(window, x.intern("WM_CLASS"), delete: false, maximumBytes: ContentSource.maximumReadBytes).value?.bytes
    }

    private func clientLeader(of window: WindowID) -> WindowID? {
        guard let value = x.getProperty(window, x.intern("WM_CLIENT_LEADER"), delete: false, maximumBytes: 8).value,
              value.format == 32, let first = value.atoms.first, first.rawValue != 0, first.rawValue != window.rawValue else { return nil }
        return WindowID(first.rawValue)
    }

    /// `_NET_WM_PID` is only a process of this machine when `WM_CLIENT_MACHINE` says so (EWMH).
    private func localNetWMPID(of window: WindowID) -> Int32? {
        guard let value = x.getProperty(window, x.intern("_NET_WM_PID"), delete: false, maximumBytes: 8).value,
              value.format == 32, let pid = value.atoms.first?.rawValue, pid > 0, pid <= UInt32(Int32.max) else { return nil }
        let machine = x.getProperty(window, x.intern("WM_CLIENT_MACHINE"), delete: false, maximumBytes: 256).value?.bytes
        guard let machine, let host = ProcessIdentity.hostName,
              String(decoding: machine.prefix { $0 != 0 }, as: UTF8.self) == host else { return nil }
        return Int32(pid)
    }

    /// The process's name from `/proc/PID/comm` (at most `ContentSource.maximumReadBytes` read); nil when it
    /// is gone or unreadable.
    static func processName(of pid: Int32) -> String? {
        guard pid > 0, let bytes = try? FileSystem.readFile("/proc/\(pid)/comm", limit: ContentSource.maximumReadBytes) else { return nil }
        return ContentSource.processName(fromComm: bytes)
    }
}
