// SPDX-License-Identifier: Apache-2.0
import SystemSupport

/// `pasteboardd --autostart`, what the XDG autostart entry runs in sessions that start programs from
/// `~/.config/autostart` and `/etc/xdg/autostart`: pasteboardd starts only when nothing serves this user
/// yet. The systemd user unit is in charge when `pasteboardd.socket` or `pasteboardd.service` is enabled or
/// active in a running user manager; anything already listening on the control socket (a pasteboardd, or
/// systemd's socket) serves. Neither is disturbed: the socket is looked up in the kernel's table of Unix
/// sockets, not connected to, since a connection would start the unit.
public enum Autostart {
    public enum Verdict: Equatable, Sendable {
        case start
        /// Something else serves; the reason says what.
        case notNeeded(String)
    }

    public static func verdict(environment: [String: String]) -> Verdict {
        let socket = XDGDirectories(environment: environment).controlSocket
        if let table = try? FileSystem.readFile("/proc/net/unix", limit: 64 << 20),
           listeningUnixSockets(String(decoding: table, as: UTF8.self)).contains(socket) {
            return .notNeeded("something already listens on \(socket)")
        }
        if let output = systemdUserUnits(environment: environment), let reason = unitInCharge(systemctlShow: output) {
            return .notNeeded(reason)
        }
        return .start
    }

    /// The paths of the Unix stream sockets that listen, from `/proc/net/unix` (`Num RefCount Protocol
    /// Flags Type St Inode Path`; flag 0x10000 is `__SO_ACCEPTCON`, type 1 is `SOCK_STREAM`).
    static func listeningUnixSockets(_ table: String) -> Set<String> {
        var paths: Set<String> = []
        for line in table.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ", maxSplits: 7, omittingEmptySubsequences: true)
            guard fields.count == 8, let flags = UInt32(fields[3], radix: 16), flags & 0x10000 != 0,
                  UInt32(fields[4], radix: 16) == 1 else { continue }
            paths.insert(String(fields[7]))
        }
        return paths
    }

    /// `systemctl --user show` of both units, when a user manager answers (nil otherwise: no systemd, no
    /// manager for this session, systemctl missing).
    static func systemdUserUnits(environment: [String: String]) -> String? {
        guard let result = try? ChildProcess.run(
            argv: ["systemctl", "--user", "show", "--property=Id,UnitFileState,ActiveState", "pasteboardd.socket", "pasteboardd.service"],
            environment: environment, input: [], outputLimit: 64 << 10),
            result.status == .exited(0) else { return nil }
        return String(decoding: result.output, as: UTF8.self)
    }

    /// Why the user unit is in charge, from `systemctl show`'s `KEY=value` blocks (one per unit, separated
    /// by blank lines): a unit enabled (also `-runtime`, linked, aliased) or active (also activating,
    /// reloading). Nil when neither unit is.
    static func unitInCharge(systemctlShow output: String) -> String? {
        let enabled: Set<String> = ["enabled", "enabled-runtime", "linked", "linked-runtime", "alias"]
        let active: Set<String> = ["active", "activating", "reloading"]
        for block in output.split(separator: "\n\n", omittingEmptySubsequences: true) {
            var values: [String: String] = [:]
            for line in block.split(separator: "\n") {
                guard let equals = line.firstIndex(of: "=") else { continue }
                values[String(line[..<equals])] = String(line[line.index(after: equals)...])
            }
            let unit = values["Id"] ?? "the pasteboardd unit"
            if let state = values["ActiveState"], active.contains(state) { return "the systemd user unit \(unit) is \(state)" }
            if let state = values["UnitFileState"], enabled.contains(state) { return "the systemd user unit \(unit) is \(state)" }
        }
        return nil
    }
}
