// SPDX-License-Identifier: Apache-2.0
import PasteboardCore
import SystemSupport

/// Why pasteboardd could not start, in the words it logs and tells the clients waiting at its control socket
/// (`StartFailureNotice`): "pasteboardd could not start: <reason>", the reason saying what fixes it when the
/// daemon knows.
public struct StartFailure: Error, Equatable, Sendable, CustomStringConvertible {
    /// What is wrong, and what fixes it when known.
    public var reason: String

    public init(_ reason: String) { self.reason = reason }

    /// The line a client shows (`pb` prints it after "pb: ").
    public var message: String { "pasteboardd could not start: \(reason)" }
    public var description: String { message }

    /// The commonest, in every clipboard tool's issue tracker: the user manager that started the service has no
    /// DISPLAY (the session never imported it).
    public static let displayNotSet = StartFailure("DISPLAY is not set (systemctl --user import-environment DISPLAY)")

    /// The X server at `display` lacks XFixes, which the daemon watches owners with.
    public static func lacksXFixes(_ display: String) -> StartFailure {
        StartFailure("the X server at \(display) lacks the XFixes extension, which pasteboardd needs to watch owners")
    }

    /// With no X display, the Wayland compositor at `name` offers no data-control protocol to serve its seat with.
    public static func lacksDataControl(_ name: String) -> StartFailure {
        StartFailure("DISPLAY is not set and the Wayland compositor at \(name) offers no data-control protocol "
                     + "(GNOME's mutter and weston do not): there is no display to serve")
    }

    /// With no X display, the Wayland compositor at `name` could not be reached, for `why`. `stillTrying` while the
    /// daemon waits for it, as it does for an X server.
    public static func cannotReachCompositor(_ name: String, _ why: String, stillTrying: Bool) -> StartFailure {
        StartFailure("DISPLAY is not set and the Wayland compositor at \(name) cannot be reached (\(why))" + (stillTrying ? "; still trying" : ""))
    }

    /// `display` could not be opened, for `why`. `stillTrying` while the daemon waits for the server, as it does
    /// at session start.
    public static func cannotOpenDisplay(_ display: String, _ why: DisplayFailure, stillTrying: Bool) -> StartFailure {
        StartFailure("cannot open display \(display) (\(why))" + (stillTrying ? "; still trying" : ""))
    }
}

/// Why an X display could not be opened, as far as the daemon can tell: XOpenDisplay says nothing about it, so
/// the daemon looks at where a local server listens.
public enum DisplayFailure: Equatable, Sendable, CustomStringConvertible {
    /// Not `[host]:number[.screen]`.
    case malformedName
    /// A local display at whose socket nothing listens: no X server there (not up yet, or gone, or another
    /// number).
    case noServer(socket: String)
    /// Something listens at the local socket, yet the connection was not made: the server refused it, most often
    /// for want of the cookie `$XAUTHORITY` names.
    case refused
    /// A display over TCP, which the daemon does not probe.
    case remote

    public var description: String {
        switch self {
        case .malformedName: "not a display name: [host]:number[.screen]"
        case .noServer(let socket): "no X server listens at \(socket)"
        case .refused: "the X server refused the connection; if it wants a cookie: systemctl --user import-environment XAUTHORITY"
        case .remote: "no X server answered over TCP, or it refused the connection"
        }
    }

    /// Where the server of a local display listens: `/tmp/.X11-unix/X<number>`, as a file and, on Linux, as an
    /// abstract name; nil for a display over TCP.
    public static func localSocket(of display: DisplayName) -> String? {
        display.host.isEmpty ? "/tmp/.X11-unix/X\(display.number)" : nil
    }

    /// Why `display` could not be opened: a local display's socket is tried (the abstract name, then the file,
    /// as Xlib tries them) and the connection closed at once.
    public static func diagnose(_ display: String) -> DisplayFailure {
        guard let name = DisplayName(display) else { return .malformedName }
        guard let socket = localSocket(of: name) else { return .remote }
        for address in [UnixSocketAddress.abstract(socket), .path(socket)] {
            if let connection = try? UnixSocket.connect(address) {
                try? connection.close()
                return .refused
            }
        }
        return .noServer(socket: socket)
    }
}
