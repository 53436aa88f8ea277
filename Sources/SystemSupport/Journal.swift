// SPDX-License-Identifier: Apache-2.0
import Glibc

/// Whether our log lines go to the systemd journal, which understands `<N>` priority prefixes.
public enum Journal {
    /// True when `$JOURNAL_STREAM` (`"device:inode"` in decimal) names the file that descriptor 2 is,
    /// i.e. systemd connected our stderr to the journal and it was not redirected since.
    ///
    /// The corresponding C function is `fstat(2)` on descriptor 2.
    public static func stderrIsJournal(environment: [String: String]) -> Bool {
        guard let stream = environment["JOURNAL_STREAM"] else { return false }
        let parts = stream.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        guard let status = try? FileDescriptor.standardError.status() else { return false }
        return status.device == device && status.inode == inode
    }
}
