// SPDX-License-Identifier: Apache-2.0
import PasteboardCore
import SystemSupport
import XTypes

/// What a pasteboardd's window says of the daemon that made it: `_PASTEBOARD_DAEMON` (CARDINAL/32, its process
/// id) and `WM_CLIENT_MACHINE` (STRING, its host, as ICCCM 4.1.2.9 has clients say — a process id means
/// something only on the machine it was given on).
///
/// A daemon killed (SIGKILL) and started again at once can find its selections still owned by the dead one's
/// window: the X server has not yet seen that connection close. The mark lets the new daemon tell such a
/// window from a live daemon's (`hasEnded`).
struct DaemonMark: Equatable {
    /// The property holding the process id.
    static let processProperty = "_PASTEBOARD_DAEMON"
    static let hostProperty = "WM_CLIENT_MACHINE"

    var processID: UInt32
    /// The daemon's host; nil when its window does not say (a pasteboardd older than this mark).
    var host: String?

    /// The mark of this process.
    static var own: DaemonMark {
        DaemonMark(processID: UInt32(truncatingIfNeeded: ProcessIdentity.processID), host: ProcessIdentity.hostName)
    }

    /// Puts the mark on `window` (the daemon's own).
    func write(on window: WindowID, _ x: any XDisplay) {
        x.changeProperty(window, x.intern(Self.processProperty), PropertyValue(type: x.atoms.cardinal, longs: [processID]))
        if let host {
            x.changeProperty(window, x.intern(Self.hostProperty), PropertyValue(type: x.atoms.string, bytes: Array(host.utf8)))
        }
    }

    /// The mark on `window`, if a pasteboardd made it; nil for any other window, or none. Two round trips at
    /// most, each read capped.
    static func read(from window: WindowID, _ x: any XDisplay) -> DaemonMark? {
        guard !window.isNone else { return nil }
        let read = x.getProperty(window, x.intern(processProperty), delete: false, maximumBytes: 8)
        guard let value = read.value, value.type == x.atoms.cardinal, let first = value.atoms.first else { return nil }
        let machine = x.getProperty(window, x.intern(hostProperty), delete: false, maximumBytes: 256).value?.bytes
        return DaemonMark(processID: first.rawValue, host: machine.map { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) })
    }

    /// True when the daemon that made the window is known to be gone: its host is this one (`local`'s) and its
    /// process no longer runs pasteboardd (`runsDaemon` says no: ended, a zombie, or its id taken by another
    /// program), or its id is this process's own (a window this process did not make: an earlier process with
    /// the same id, as a container's first process is). False whenever it cannot be told — another host's daemon
    /// (a TCP display, `ssh -X`: its id means nothing here), a window that names no host, an id that is no process
    /// id — and while the process runs: then the window is taken for a live daemon's.
    func hasEnded(local: DaemonMark, runsDaemon: (Int32) -> Bool) -> Bool {
        guard let host, let localHost = local.host, host == localHost,
              processID > 0, processID <= UInt32(Int32.max) else { return false }
        if processID == local.processID { return true }
        return !runsDaemon(Int32(processID))
    }

    /// Whether process `pid` of this machine runs pasteboardd: it runs (`ProcessIdentity.isRunning`) under this
    /// program's name (`/proc/PID/comm`) — a process of another program may have been given the id of one that
    /// ended.
    static func runsDaemon(_ pid: Int32) -> Bool {
        guard ProcessIdentity.isRunning(pid) else { return false }
        let name = SourceLookup.processName(of: pid)
        return name == nil || name == SourceLookup.processName(of: ProcessIdentity.processID)
    }
}
