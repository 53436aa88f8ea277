// SPDX-License-Identifier: Apache-2.0
import ControlProtocol

/// pasteboardd's command line.
public struct DaemonOptions: Equatable, Sendable {
    /// The X displays, in the order given (`--display` may be repeated; none: the configuration's `displays`,
    /// else `$DISPLAY`).
    public var displays: [String] = []
    /// The first display given.
    public var display: String? { displays.first }
    /// `--share-primary`: PRIMARY is one across the displays too.
    public var sharePrimary = false
    public var verbose = false
    /// The largest request a control client may send (a copy's whole data), in bytes.
    public var maximumRequestBytes = ControlLimits.defaultMaximumFrameLength
    /// `--autostart`: start only when nothing serves this user yet (`Autostart`).
    public var autostart = false
    /// Which Wayland compositor's seat to serve too.
    public var wayland: WaylandChoice = .fromEnvironment

    public enum WaylandChoice: Equatable, Sendable {
        /// `$WAYLAND_DISPLAY`, when set.
        case fromEnvironment
        /// `--wayland NAME`: a socket name under `$XDG_RUNTIME_DIR`, or a path.
        case named(String)
        /// `--no-wayland`.
        case none
    }

    public init() {}

    public enum Parsed: Equatable, Sendable {
        case run(DaemonOptions)
        /// Validate the configuration file and exit.
        case checkConfig
        case help
        case version
    }

    public static let usage = """
    usage: pasteboardd [--display DISPLAY]... [--wayland NAME | --no-wayland] [--share-primary] [--verbose] [--autostart]

    The pasteboard daemon: owns and serves X selections for pb and the Pasteboard library, watches
    every owner with XFixes and keeps each pasteboard's changeCount. Runs in the foreground (as a
    systemd user service, Type=notify, or started by its socket); stops cleanly on SIGTERM or SIGINT.

      --display DISPLAY   an X display to serve; give it again for each display that
                          shares the pasteboard (default: the configuration's
                          "displays", else $DISPLAY)
          --wayland NAME  the Wayland compositor whose seat shares the pasteboard too (a
                          socket name or path; default: $WAYLAND_DISPLAY, when set)
          --no-wayland    serve no Wayland seat, even with $WAYLAND_DISPLAY set
          --share-primary PRIMARY is one across the displays too (default: per display)
      -v, --verbose       log debug events too
          --autostart     start only if nothing serves yet: neither the systemd user unit
                          (pasteboardd.socket or .service enabled or active) nor a listener
                          on the control socket (what the XDG autostart entry runs)
          --check-config  validate $XDG_CONFIG_HOME/pasteboard/config.json and exit
      -h, --help          show this help
          --version       show the version
    """

    /// Parses argv (without argv[0]); a message for what is wrong.
    public static func parse(_ arguments: [String]) -> Result<Parsed, UsageMessage> {
        var options = DaemonOptions()
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "-h", "--help": return .success(.help)
            case "--version": return .success(.version)
            case "--check-config": return .success(.checkConfig)
            case "-v", "--verbose": options.verbose = true
            case "--autostart": options.autostart = true
            case "--share-primary": options.sharePrimary = true
            case "--no-wayland": options.wayland = .none
            case "--wayland":
                index += 1
                guard index < arguments.count, !arguments[index].isEmpty else { return .failure(UsageMessage("--wayland needs a value")) }
                options.wayland = .named(arguments[index])
            case "--display":
                index += 1
                guard index < arguments.count, !arguments[index].isEmpty else { return .failure(UsageMessage("--display needs a value")) }
                options.displays.append(arguments[index])
            default:
                if argument.hasPrefix("--display=") {
                    let value = String(argument.dropFirst("--display=".count))
                    guard !value.isEmpty else { return .failure(UsageMessage("--display needs a value")) }
                    options.displays.append(value)
                } else {
                    return .failure(UsageMessage("unknown argument '\(argument)'"))
                }
            }
            index += 1
        }
        return .success(.run(options))
    }
}

public struct UsageMessage: Error, Equatable, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
}
