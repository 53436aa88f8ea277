// SPDX-License-Identifier: Apache-2.0
import Glibc

/// The controlling terminal of this process (`/dev/tty`), whatever standard input and output are: where
/// a program talks to the person at the terminal when its standard streams are pipes (`… | pb copy`).
public enum ControllingTerminal {
    /// Opens the controlling terminal for writing (`O_NOCTTY`, `O_CLOEXEC`). Throws when the process has
    /// none (`ENXIO`: started from a desktop, a service, or with `setsid`).
    ///
    /// The corresponding C function is `open(2)` of `/dev/tty`.
    public static func openForWriting() throws -> FileDescriptor {
        try FileDescriptor(rawValue: retryingInterrupts("open(/dev/tty)") {
            Glibc.open("/dev/tty", O_WRONLY | O_NOCTTY | O_CLOEXEC)
        })
    }

    /// Whether the process has a controlling terminal it may write to.
    public static var isAvailable: Bool {
        guard let fd = try? openForWriting() else { return false }
        try? fd.close()
        return true
    }
}
