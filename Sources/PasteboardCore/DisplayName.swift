// SPDX-License-Identifier: Apache-2.0
/// The X server a `$DISPLAY` string names: `[host]:number[.screen]`, with `unix` and the empty host
/// both meaning the local socket, and the screen not part of the server. Pure string parsing; it does not
/// resolve host names, so `localhost:0` and `:0` are different servers here (a caller comparing them
/// errs on the side of "not the same").
public struct DisplayName: Hashable, Sendable {
    /// The host part, empty for the local socket.
    public let host: String
    /// The display number.
    public let number: UInt32

    /// Nil for a string that is not `[host]:number[.screen]` (including the empty string).
    public init?(_ string: String) {
        guard let colon = string.lastIndex(of: ":") else { return nil }
        var host = String(string[..<colon])
        // DECnet's "host::0" is not something X11 servers offer any more: refuse rather than guess.
        if host.hasSuffix(":") { return nil }
        if host == "unix" { host = "" }
        let rest = string[string.index(after: colon)...]
        let digits = rest.prefix { $0 != "." }
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let number = UInt32(digits) else { return nil }
        let screen = rest.dropFirst(digits.count)
        if !screen.isEmpty {
            let screenDigits = screen.dropFirst()
            guard !screenDigits.isEmpty, screenDigits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        }
        self.host = host
        self.number = number
    }

    /// Whether `a` and `b` name the same server (false if either does not parse).
    public static func sameServer(_ a: String, _ b: String) -> Bool {
        guard let a = DisplayName(a), let b = DisplayName(b) else { return false }
        return a == b
    }
}
