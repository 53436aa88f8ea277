// SPDX-License-Identifier: Apache-2.0
import Glibc

/// Sockets a service manager opened for us and passed at start (socket activation, `sd_listen_fds(3)`):
/// systemd, `systemd-socket-activate` and others put them at descriptors 3, 4, … and say so with
/// `$LISTEN_FDS` (how many) and `$LISTEN_PID` (for which process: a child that inherited the variables
/// must not take descriptors meant for its parent), names in `$LISTEN_FDNAMES`.
public enum SocketActivation {
    /// The first descriptor passed (`SD_LISTEN_FDS_START`).
    public static let firstDescriptor: Int32 = 3
    /// The most descriptors taken: a manager passes the sockets of one unit; more is a broken environment.
    public static let maximumDescriptors = 64

    /// The variables' values do not follow the protocol.
    public struct Malformed: Error, Equatable, Sendable, CustomStringConvertible {
        public var reason: String
        public var description: String { "socket activation: \(reason)" }
    }

    /// The descriptors passed to this process, with `O_CLOEXEC` set, or `[]` when none were (no
    /// `$LISTEN_PID`, or one naming another process). As `sd_listen_fds(1)` does, the variables are removed
    /// from the process environment either way, so nothing started later takes them for its own.
    /// Throws `Malformed` for a `$LISTEN_PID` or `$LISTEN_FDS` that is not a number, a count over
    /// `maximumDescriptors`, or a descriptor that is not open.
    ///
    /// The corresponding C functions are `getenv(3)`, `unsetenv(3)` and `fcntl(2)`.
    public static func takeListeningDescriptors(environment: [String: String], processID: Int32 = ProcessIdentity.processID,
                                                firstDescriptor: Int32 = firstDescriptor) throws(Malformed) -> [FileDescriptor] {
        defer { for name in ["LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"] { unsetenv(name) } }
        guard let pidText = environment["LISTEN_PID"] else { return [] }
        guard let pid = Int32(pidText), pid > 0 else { throw Malformed(reason: "$LISTEN_PID is not a process ID") }
        guard pid == processID else { return [] }
        guard let countText = environment["LISTEN_FDS"], let count = Int(countText), count >= 0 else {
            throw Malformed(reason: "$LISTEN_FDS is not a number of descriptors")
        }
        guard count <= maximumDescriptors else {
            throw Malformed(reason: "$LISTEN_FDS says \(count) descriptors; at most \(maximumDescriptors) are taken")
        }
        var descriptors: [FileDescriptor] = []
        for raw in firstDescriptor..<(firstDescriptor + Int32(count)) {
            let flags = fcntl(raw, F_GETFD)
            guard flags != -1 else { throw Malformed(reason: "$LISTEN_FDS names descriptor \(raw), which is not open") }
            _ = fcntl(raw, F_SETFD, flags | FD_CLOEXEC)
            descriptors.append(FileDescriptor(rawValue: raw))
        }
        return descriptors
    }

    /// The names `$LISTEN_FDNAMES` gives the `count` descriptors passed (systemd's `FileDescriptorName=`,
    /// `systemd-socket-activate --fdname`), in order: nil for one it does not name, or names `unknown` (what
    /// systemd says for a socket without a name). The variable is read from `environment` as it was at start.
    public static func names(environment: [String: String], count: Int) -> [String?] {
        let given = environment["LISTEN_FDNAMES"].map { $0.split(separator: ":", omittingEmptySubsequences: false).map(String.init) } ?? []
        return (0..<count).map { index in
            guard index < given.count, !given[index].isEmpty, given[index] != "unknown" else { return nil }
            return given[index]
        }
    }
}
