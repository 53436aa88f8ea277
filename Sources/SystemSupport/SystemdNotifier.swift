// SPDX-License-Identifier: Apache-2.0
/// Tells systemd about our state (`READY=1`, `STATUS=…`, `STOPPING=1`, `WATCHDOG=1`): the
/// `sd_notify(3)` protocol, which is one datagram of newline-separated `KEY=value` lines sent to the
/// Unix socket named by `$NOTIFY_SOCKET`.
///
/// Without `$NOTIFY_SOCKET` (not started by systemd with `Type=notify`) every call does nothing.
public struct SystemdNotifier: Hashable, Sendable {
    /// Where notifications go, or nil when not running under systemd.
    public let address: UnixSocketAddress?
    /// How often systemd expects `WATCHDOG=1`, from `$WATCHDOG_USEC`, when `$WATCHDOG_PID` is unset or
    /// names this process. Ping at half this interval.
    public let watchdogInterval: Duration?

    /// Reads `$NOTIFY_SOCKET` (a path, or `@name` for the abstract namespace), `$WATCHDOG_USEC` and
    /// `$WATCHDOG_PID`. The environment is not changed (`sd_notify`'s unset-environment is not offered).
    public init(environment: [String: String], processID: Int32 = ProcessIdentity.processID) {
        if let socket = environment["NOTIFY_SOCKET"], socket.hasPrefix("/") || (socket.hasPrefix("@") && socket.count > 1) {
            address = UnixSocketAddress(parsing: socket)
        } else {
            address = nil
        }
        if let microseconds = environment["WATCHDOG_USEC"].flatMap(UInt64.init), microseconds > 0,
           environment["WATCHDOG_PID"].map({ Int32($0) == processID }) ?? true {
            watchdogInterval = .microseconds(Int64(clamping: microseconds))
        } else {
            watchdogInterval = nil
        }
    }

    /// Whether notifications go anywhere.
    public var isEnabled: Bool { address != nil }

    /// Sends `state` (e.g. `"READY=1\nSTATUS=Serving CLIPBOARD"`) as one datagram; nothing when disabled.
    ///
    /// The corresponding C function is `sendto(2)` on a `SOCK_DGRAM` Unix socket.
    public func notify(_ state: String) throws {
        guard let address else { return }
        let socket = try UnixDatagramSocket()
        defer { try? socket.close() }
        try socket.send(Array(state.utf8), to: address)
    }

    /// `READY=1` plus an optional `STATUS=`.
    public func ready(status: String? = nil) throws {
        try notify("READY=1" + (status.map { "\nSTATUS=" + $0 } ?? ""))
    }

    /// `STATUS=…`: one line shown by `systemctl status`.
    public func status(_ text: String) throws {
        try notify("STATUS=" + text)
    }

    /// `STOPPING=1`.
    public func stopping() throws {
        try notify("STOPPING=1")
    }

    /// `RELOADING=1` with `MONOTONIC_USEC`, as `Type=notify-reload` wants.
    public func reloading(now: MonotonicInstant) throws {
        try notify("RELOADING=1\nMONOTONIC_USEC=\(now.rawValue / 1000)")
    }

    /// `WATCHDOG=1`: still alive.
    public func watchdog() throws {
        try notify("WATCHDOG=1")
    }
}
