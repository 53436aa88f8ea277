// SPDX-License-Identifier: Apache-2.0
import PasteboardCore

/// What `pb` (or `pbcopy`/`pbpaste`) was asked to do: the value argv parses into.
public enum Command: Equatable, Sendable {
    case copy(CopyRequest)
    case paste(PasteRequest)
    case types(TypesRequest)
    case count(PasteboardName)
    case clear(PasteboardName)
    /// Print the daemon's status (version, display, counts, transfers in flight).
    case status
    /// `pb pasteboard list|create|remove`.
    case pasteboards(PasteboardsRequest)
    /// `pb watch`: one record per change, or a command run per change.
    case watch(WatchRequest)
    /// `pb history ...`.
    case history(HistoryRequest)
    /// `pb pause` (true) and `pb resume` (false): stop and start recording.
    case pause(Bool)
    case convert(ConvertRequest)
    /// `pb displays [add|remove DISPLAY]`: the X displays pasteboardd serves as one pasteboard.
    case displays(DisplaysRequest)
    /// `pb peer [list|add SOCKET|remove SOCKET]`: the peer daemons sharing the pasteboard.
    case peer(PeerRequest)
    /// `pb ssh [SSH-OPTIONS...] HOST [COMMAND...]`: ssh's arguments, as given.
    case ssh([String])
    /// `pb ssh --peer [SSH-OPTIONS...] HOST [COMMAND...]`: as `ssh`, and the host's pasteboardd peered with this
    /// one for the session's life.
    case sshPeer([String])
    /// pb's own invocation by `pb ssh` (not in the usage): once process `parent` has ended, remove the
    /// session's socket on the host through `master` and close it.
    case sshCleanup(SSHMaster, parent: Int32)
    /// Print help for a command (nil: the overview) to standard output and exit 0.
    case help(String?)
    case version
}

/// `pb copy`: one item with one or more representations.
public struct CopyRequest: Equatable, Sendable {
    public var pasteboard: PasteboardName = .general
    /// Each representation's type and where its bytes come from (nil: standard input).
    public var sources: [(type: PasteboardType, path: String?)] = []
    public var sensitive = false
    /// Serve one paste, then clear (wl-copy's --paste-once).
    public var pasteOnce = false
    /// `--expire SECONDS`: the pasteboard is cleared this long after the copy, unless it changed meanwhile.
    public var expiresAfterMilliseconds: UInt64?
    /// `--local-only`: the content never leaves this machine.
    public var localOnly = false
    /// Remove one trailing newline (`\n` or `\r\n`) from text read from standard input.
    public var trimNewline = false
    /// pbcopy: recognise RTF on standard input by its `{\rtf` header.
    public var detectRichText = false
    /// Text given as operands (`pb copy hello world`), used instead of standard input.
    public var text: String?
    /// `--files`/`--cut`: the paths to offer as files, as file managers do, instead of data.
    public var files: [String] = []
    /// `--cut`: the files are to be moved where they are pasted.
    public var cut = false
    /// `--osc52`: ask the terminal to copy the text (OSC 52), not pasteboardd.
    public var osc52 = false
    /// The operands as given: one that names a picture file (`pb copy shot.png`) is copied as that picture.
    public var operands: [String] = []

    public init() {}

    public static func == (a: CopyRequest, b: CopyRequest) -> Bool {
        a.pasteboard == b.pasteboard && a.sensitive == b.sensitive && a.pasteOnce == b.pasteOnce && a.trimNewline == b.trimNewline
            && a.expiresAfterMilliseconds == b.expiresAfterMilliseconds && a.localOnly == b.localOnly
            && a.detectRichText == b.detectRichText && a.text == b.text && a.operands == b.operands && a.sources.count == b.sources.count
            && zip(a.sources, b.sources).allSatisfy { $0.type == $1.type && $0.path == $1.path }
            && a.files == b.files && a.cut == b.cut && a.osc52 == b.osc52
    }
}

/// `pb paste`.
public struct PasteRequest: Equatable, Sendable {
    public var pasteboard: PasteboardName = .general
    /// The type wanted; nil: text. With `strictType`, nothing else is accepted.
    public var types: [PasteboardType] = []
    /// Remove one trailing newline from what is written.
    public var trimNewline = false
    /// How long to wait for the owner, in milliseconds.
    public var timeoutMilliseconds = 5000
    /// Read this item (0-based) of the content pasteboardd holds, instead of the X selection.
    public var item: Int?
    /// `--files [DIR]`: copy (or, for a cut, move) the files on the pasteboard into `filesDirectory` (nil:
    /// the current directory) instead of writing data.
    public var files = false
    public var filesDirectory: String?
    /// `--force`: replace files of the same names in the directory.
    public var force = false
    public init() {}
}

/// `pb displays ...`: the X displays pasteboardd serves.
public enum DisplaysRequest: Equatable, Sendable {
    case list
    case add(String)
    case remove(String)
}

/// `pb peer ...`: the peer daemons (another machine's pasteboardd, through its forwarded remote.sock).
public enum PeerRequest: Equatable, Sendable {
    case list
    case add(String)
    case remove(String)
}

/// `pb pasteboard ...`: named pasteboards.
public enum PasteboardsRequest: Equatable, Sendable {
    case list
    case create(PasteboardName, persistent: Bool)
    case remove(PasteboardName)
}

/// `pb history`: list, show, copy, delete, clear. Entries are numbered from 0, the newest.
public enum HistoryRequest: Equatable, Sendable {
    case list(limit: Int, json: Bool)
    case show(Int, types: [PasteboardType])
    case copy(Int)
    case delete(Int)
    case clear
    /// Show the history in a menu; the chosen entry becomes the clipboard again.
    case pick(HistoryMenu.Menu)
}

/// `pb watch`.
public struct WatchRequest: Equatable, Sendable {
    /// The pasteboards to watch; empty: every pasteboard pasteboardd serves.
    public var pasteboards: [PasteboardName] = []
    public enum Format: Equatable, Sendable { case text, json, nul }
    public var format = Format.text
    /// A command to run per change (wl-paste --watch style), instead of printing records.
    public var command: [String] = []
    /// Print a record per read of content pasteboardd serves (`--reads`), instead of changes.
    public var reads = false
    public init() {}
}

/// `pb types`.
public struct TypesRequest: Equatable, Sendable {
    public var pasteboard: PasteboardName = .general
    public var timeoutMilliseconds = 5000
    /// List the types of each item pasteboardd holds, instead of the X targets.
    public var items = false
    public init() {}
}

/// `pb convert`.
public struct ConvertRequest: Equatable, Sendable {
    public var from: String?
    public var to: String?
    public var info = false
    public var inputPath: String?
    public var outputPath: String?
    public init() {}
}

/// A command line that does not parse: the message names what is wrong; exit status 64.
public struct UsageError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    /// The command whose usage to show, if known.
    public var command: String?
    public init(_ message: String, command: String? = nil) {
        self.message = message
        self.command = command
    }
    public var description: String { message }
}

/// Exit statuses shared by pb, pbcopy and pbpaste.
public enum ExitCode: Int32, Sendable {
    case success = 0
    case failure = 1
    /// The selection has no owner (the pasteboard is empty).
    case empty = 2
    /// The owner does not offer the requested type.
    case typeNotOffered = 3
    /// The owner did not answer in time.
    case timedOut = 4
    /// The type could be made from what is offered, but the conversion failed (the message says why).
    case conversionFailed = 5
    /// The command line was wrong (sysexits EX_USAGE).
    case usage = 64
}
