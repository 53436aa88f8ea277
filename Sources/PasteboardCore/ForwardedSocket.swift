// SPDX-License-Identifier: Apache-2.0
/// Where `pb ssh` asks sshd to put the forward of pasteboardd's remote socket on the host it connects to,
/// and how pb on that host finds it again (docs/remote.md).
///
/// sshd binds a forwarded Unix socket at the absolute path the client names, as the user, and creates no
/// directory; the client cannot know the remote user's uid, home or `$XDG_RUNTIME_DIR` beforehand, and a
/// stock sshd accepts only `LANG` and `LC_*` from the client's environment. So each session's socket is
/// `/tmp/pasteboard-ssh-<session>.sock`, `<session>` 32 random lowercase hexadecimal digits made by `pb ssh`
/// (no two sessions share a socket, and nobody can guess one to take its place first), and the session is
/// named to the remote shell in `LC_PASTEBOARD_SESSION`, which a stock sshd passes on. pb on the host, with
/// no `PASTEBOARD_SOCKET` and no display, takes its session's socket, or else any of the user's own that
/// answers (`preferred(among:session:)`).
public enum ForwardedSocket {
    /// The directory every host has and every user may create sockets in (sticky: nobody removes another's).
    public static let directory = "/tmp"
    /// The environment variable naming the session (an `LC_*` name, so that a stock sshd accepts it).
    public static let sessionVariable = "LC_PASTEBOARD_SESSION"
    /// The environment variable naming the socket of the daemon to use, whatever else there is.
    public static let socketVariable = "PASTEBOARD_SOCKET"
    static let prefix = "pasteboard-ssh-"
    static let suffix = ".sock"
    /// The length of the session names `pb ssh` makes: 128 random bits in hexadecimal.
    public static let sessionLength = 32
    /// The longest session name taken (a recipe's `%r`, a user name, is one too).
    public static let maximumSessionLength = 64

    /// A session name made of `bits`, two 64-bit random numbers.
    public static func session(from bits: (UInt64, UInt64)) -> String {
        func hex(_ value: UInt64) -> String {
            let digits = String(value, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }
        return hex(bits.0) + hex(bits.1)
    }

    /// Whether `text` is a session name: 1 to `maximumSessionLength` ASCII letters, digits, `.`, `_` and `-`, not
    /// starting with `.` — what `pb ssh` makes (hexadecimal) and what an ssh_config's `%r` gives (docs/remote.md).
    public static func isSession(_ text: String) -> Bool {
        let bytes = text.utf8
        return (1...maximumSessionLength).contains(bytes.count) && bytes.first != UInt8(ascii: ".")
            && bytes.allSatisfy { (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || [0x2E, 0x5F, 0x2D].contains($0) }
    }

    /// The socket's path for `session`.
    public static func path(session: String) -> String {
        directory + "/" + prefix + session + suffix
    }

    /// The session a file name in `directory` stands for, or nil when it is not one of these sockets' names.
    public static func session(ofFileName name: String) -> String? {
        guard name.hasPrefix(prefix), name.hasSuffix(suffix) else { return nil }
        let session = String(name.dropFirst(prefix.count).dropLast(suffix.count))
        return isSession(session) ? session : nil
    }

    /// A socket file found in `directory`, as `preferred(among:session:)` weighs it.
    public struct Candidate: Equatable, Sendable {
        public var session: String
        /// Owned by this user, a socket, reachable by nobody else (sshd makes them 0600).
        public var isOurs: Bool
        /// When it was bound (seconds since 1970), to prefer the newest session.
        public var modified: Int64

        public init(session: String, isOurs: Bool, modified: Int64) {
            self.session = session
            self.isOurs = isOurs
            self.modified = modified
        }

        public var path: String { ForwardedSocket.path(session: session) }
    }

    /// The order in which to try `candidates`: only this user's own; the one of `session` (this shell's, from
    /// `LC_PASTEBOARD_SESSION`) first, then the newest. Whoever else made a file of that name is never tried.
    public static func preferred(among candidates: [Candidate], session: String?) -> [Candidate] {
        candidates.filter(\.isOurs).sorted {
            if ($0.session == session) != ($1.session == session) { return $0.session == session }
            return $0.modified != $1.modified ? $0.modified > $1.modified : $0.session < $1.session
        }
    }
}
