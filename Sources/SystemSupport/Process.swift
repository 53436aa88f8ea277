// SPDX-License-Identifier: Apache-2.0
import CSystemShims
import Glibc

/// Who this process is.
public enum ProcessIdentity {
    /// The real user ID.
    ///
    /// The corresponding C function is `getuid(2)`.
    public static var userID: UInt32 { UInt32(getuid()) }

    /// The real group ID.
    ///
    /// The corresponding C function is `getgid(2)`.
    public static var groupID: UInt32 { UInt32(getgid()) }

    /// The machine's host name (what `file://HOST/` URIs name for this machine).
    ///
    /// The corresponding C function is `gethostname(2)`.
    public static var hostName: String? {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return nil }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.isEmpty ? nil : name
    }

    /// This process's ID.
    ///
    /// The corresponding C function is `getpid(2)`.
    public static var processID: Int32 { getpid() }

    /// The ID of this process's parent: once the parent has ended, the process that adopted this one (init,
    /// or a subreaper).
    ///
    /// The corresponding C function is `getppid(2)`.
    public static var parentProcessID: Int32 { getppid() }

    /// Whether process `processID` still runs: false when no such process exists (`kill(pid, 0)` fails with
    /// `ESRCH`) or when it has ended and waits for its parent to reap it (a zombie, `Z` or `X` in `/proc/PID/stat`:
    /// its descriptors, and so its connections, are closed already). True for another user's process (`EPERM`)
    /// and when the state cannot be read. An id of 0 or less names no one process: false.
    ///
    /// The corresponding C function is `kill(2)` with signal 0.
    public static func isRunning(_ processID: Int32) -> Bool {
        guard processID > 0 else { return false }
        if kill(processID, 0) != 0 && errno == ESRCH { return false }
        // "PID (COMM) STATE ...": COMM may hold spaces and parentheses; the state follows the last ')'.
        guard let stat = try? FileSystem.readFile("/proc/\(processID)/stat", limit: 1024),
              let close = stat.lastIndex(of: UInt8(ascii: ")")) else { return true }
        let state = stat[(close + 1)...].first { $0 != UInt8(ascii: " ") }
        return state != UInt8(ascii: "Z") && state != UInt8(ascii: "X")
    }

    /// This program's own executable file, as the kernel names it, to start it again whatever name or path it
    /// was run by.
    public static let executable = "/proc/self/exe"

    /// Asks the kernel to send `signal` to this process when its parent ends (precisely: the thread that started
    /// it). Not inherited by children; a parent that has already ended sends nothing, so check
    /// `parentProcessID` after it.
    ///
    /// The corresponding C function is `prctl(2)` with `PR_SET_PDEATHSIG`.
    public static func signalWhenParentEnds(_ signal: Signal) throws {
        _ = try valueOrErrno("prctl(PR_SET_PDEATHSIG, \(signal))") { pbs_set_parent_death_signal(signal.rawValue) }
    }
}

/// The process environment, read when asked (the daemon passes dictionaries around, so tests can inject one).
public enum Environment {
    /// The value of `name`, or nil when unset.
    ///
    /// The corresponding C function is `getenv(3)`.
    public static func value(_ name: String) -> String? {
        guard let value = getenv(name) else { return nil }
        return String(cString: value)
    }

    /// Every `NAME=value` pair of the process environment; for repeated names the first wins.
    ///
    /// Read as bytes (the name ends at the first `=`), the pairs from last to first so that the first of a
    /// repeated name is stored last, into a dictionary sized once: one hash per pair, no resizing — every
    /// start of `pb` builds it.
    ///
    /// The corresponding C variable is `environ(7)`.
    public static var all: [String: String] {
        // NULL after clearenv(3).
        guard let entries = Optional(environ) else { return [:] }
        var count = 0
        while entries[count] != nil { count += 1 }
        var result = [String: String](minimumCapacity: count)
        for index in stride(from: count - 1, through: 0, by: -1) {
            let pointer = entries[index]!
            let pair = UnsafeRawBufferPointer(start: pointer, count: strlen(pointer))
            guard let equals = pair.firstIndex(of: UInt8(ascii: "=")) else { continue }
            result[String(decoding: pair[..<equals], as: UTF8.self)] = String(decoding: pair[(equals + 1)...], as: UTF8.self)
        }
        return result
    }
}
