// SPDX-License-Identifier: Apache-2.0
import PasteboardCore
/// Flags for a copy.
public struct CopyOptions: OptionSet, Hashable, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Passwords and the like: not recorded in history, not persisted, marked for clipboard
    /// managers (`x-kde-passwordManagerHint`).
    public static let sensitive = CopyOptions(rawValue: 1 << 0)
    /// Serve the content for one paste, then clear the pasteboard (after a short quiet period, since one
    /// paste can be several requests).
    public static let pasteOnce = CopyOptions(rawValue: 1 << 1)
    /// The content never leaves this machine (UIPasteboard's `localOnly`): not served through the remote
    /// socket nor to peer daemons.
    public static let localOnly = CopyOptions(rawValue: 1 << 2)

    /// Every flag this version defines; others are refused when decoding.
    public static let all: CopyOptions = [.sensitive, .pasteOnce, .localOnly]
}

/// Why a request failed. Unknown codes from a newer daemon are kept as they are; treat them like `internal`.
public struct ErrorCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// The request is malformed or not understood (a decoding error, an unknown kind, a bad argument).
    public static let badRequest = ErrorCode(rawValue: 1)
    /// No such pasteboard or history entry.
    public static let notFound = ErrorCode(rawValue: 2)
    /// Over a size or count limit.
    public static let tooLarge = ErrorCode(rawValue: 3)
    /// The daemon cannot do it now (no X connection, paused, shutting down).
    public static let unavailable = ErrorCode(rawValue: 4)
    /// Not allowed (a peer with another uid, a protected pasteboard).
    public static let denied = ErrorCode(rawValue: 5)
    /// A bug or unexpected failure in the daemon.
    public static let `internal` = ErrorCode(rawValue: 6)
    /// The selection owner did not answer in time.
    public static let timedOut = ErrorCode(rawValue: 7)
    /// The pasteboard is empty (the selection has no owner).
    public static let empty = ErrorCode(rawValue: 8)
    /// The owner does not offer the requested type, and nothing it offers converts to it.
    public static let typeNotOffered = ErrorCode(rawValue: 9)
    /// The type could be made, but converting to it failed (the message says why: malformed input, a limit).
    public static let conversionFailed = ErrorCode(rawValue: 10)

    public var description: String {
        switch self {
        case .badRequest: return "badRequest"
        case .notFound: return "notFound"
        case .tooLarge: return "tooLarge"
        case .unavailable: return "unavailable"
        case .denied: return "denied"
        case .internal: return "internal"
        case .timedOut: return "timedOut"
        case .empty: return "empty"
        case .typeNotOffered: return "typeNotOffered"
        case .conversionFailed: return "conversionFailed"
        default: return "error \(rawValue)"
        }
    }
}

/// One line of `status`: a name and a value, in the daemon's order.
public struct StatusPair: Hashable, Sendable {
    public var key: String
    public var value: String

    public init(_ key: String, _ value: String) {
        self.key = key
        self.value = value
    }
}

/// A pasteboard the daemon knows.
public struct PasteboardInfo: Hashable, Sendable {
    public var name: String
    public var changeCount: UInt64
    /// Kept across daemon restarts.
    public var persistent: Bool
    /// The daemon currently owns its content (as opposed to another X client, or nobody).
    public var owned: Bool

    public init(name: String, changeCount: UInt64, persistent: Bool, owned: Bool) {
        self.name = name
        self.changeCount = changeCount
        self.persistent = persistent
        self.owned = owned
    }
}

/// One remembered copy.
public struct HistoryEntry: Hashable, Sendable {
    /// Position in history, 0 = most recent.
    public var index: UInt32
    /// Seconds since the Unix epoch when it was copied.
    public var timestamp: Int64
    public var pasteboard: String
    public var types: [String]
    /// Total bytes over all representations.
    public var size: UInt64
    /// A short, single-line text preview (the daemon chooses and truncates it).
    public var preview: String
    /// Who copied it, when known (sent only in `sourcedHistory`).
    public var source: ContentSource?

    public init(index: UInt32, timestamp: Int64, pasteboard: String, types: [String], size: UInt64, preview: String,
                source: ContentSource? = nil) {
        self.index = index
        self.timestamp = timestamp
        self.pasteboard = pasteboard
        self.types = types
        self.size = size
        self.preview = preview
        self.source = source
    }
}

/// The events a `watchEvents` request asks for; unknown bits are refused.
public struct WatchEvents: OptionSet, Hashable, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    /// `change` events: each change, with who copied and the text's patterns.
    public static let changes = WatchEvents(rawValue: 1 << 0)
    /// `read` events: each read of content the daemon serves, by X requestors and control clients.
    public static let reads = WatchEvents(rawValue: 1 << 1)
    /// Every flag this version defines.
    public static let all: WatchEvents = [.changes, .reads]
}

/// One change as a `change` event carries it: a `changed` event's fields, who copied, and the text's patterns.
public struct ChangeEvent: Hashable, Sendable {
    public var pasteboard: String
    public var count: UInt64
    public var types: [String]
    /// `data`, `sensitive`, `clear`, `foreign`, `empty`, `removed`, or `kept`: the clipboard manager read
    /// another application's copy (change `count`, told as `foreign` before): its types, source and patterns
    /// are known now.
    public var state: String
    public var image: ImageSummary?
    /// Who copied, when known.
    public var source: ContentSource?
    /// The patterns of the text (`TextPatterns`); nil while unknown (another application's copy not read yet,
    /// or secret content).
    public var patterns: TextPatterns?

    public init(pasteboard: String, count: UInt64, types: [String], state: String, image: ImageSummary? = nil,
                source: ContentSource? = nil, patterns: TextPatterns? = nil) {
        self.pasteboard = pasteboard
        self.count = count
        self.types = types
        self.state = state
        self.image = image
        self.source = source
        self.patterns = patterns
    }

    /// The event as a client of `watch` gets it (`changed`); nil for a state such clients were never told of.
    public var legacy: ControlResponse? {
        state == "kept" ? nil : .changed(pasteboard: pasteboard, count: count, types: types, state: state, image: image)
    }
}

/// One read of content the daemon serves, as a `read` event carries it.
public struct ReadEvent: Hashable, Sendable {
    public var pasteboard: String
    /// The type asked for (a target's name, or the first type a control client's `read` got).
    public var type: String
    /// Who read, when known.
    public var reader: ContentSource?
    /// Milliseconds since the Unix epoch.
    public var time: Int64
    /// Why it was refused (`readPolicy`, a type not offered); nil when served.
    public var refusal: String?
    /// `x` (an X requestor) or `socket` (a control client's `read`).
    public var via: String

    public init(pasteboard: String, type: String, reader: ContentSource?, time: Int64, refusal: String? = nil, via: String) {
        self.pasteboard = pasteboard
        self.type = type
        self.reader = reader
        self.time = time
        self.refusal = refusal
        self.via = via
    }
}

/// A peer daemon this daemon was asked to share with, and how that stands.
public struct PeerInfo: Hashable, Sendable {
    /// The socket it is reached at (its remote.sock, or a forward of it).
    public var socket: String
    /// `connected`, `connecting`, `disconnected` (retried), or `redundant` (the same daemon is peered through
    /// another connection).
    public var state: String
    /// Why the last attempt or connection ended, empty if none did.
    public var lastError: String

    public init(socket: String, state: String, lastError: String) {
        self.socket = socket
        self.state = state
        self.lastError = lastError
    }
}
