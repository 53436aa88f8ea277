// SPDX-License-Identifier: Apache-2.0
/// The history as a menu, the way clipmenu and greenclip show it: one line per entry, newest first, for a
/// program that reads lines on standard input and prints the chosen one (rofi, dmenu, fzf, or any other),
/// and the entry a printed line names.
///
/// A line is `N  AGE  PREVIEW`: the entry's number (0 is the newest), how long ago it was copied, and its
/// one-line preview (text, "image/png 1920×1080", "3 files: a.txt, …"), made safe for a menu: no control
/// character, at most `maximumPreviewLength` characters. The number makes every line distinct.
public enum HistoryMenu {
    /// Which menu program shows the lines.
    public enum Menu: Equatable, Sendable {
        /// rofi when there is a display, then dmenu, then fzf when there is a terminal.
        case auto
        case rofi, dmenu, fzf
        /// A shell command line (run by `/bin/sh -c`) that reads lines and prints the chosen one.
        case command(String)
    }

    /// One entry as the menu shows it.
    public struct Entry: Equatable, Sendable {
        public var index: Int
        /// Seconds since 1970 (UTC).
        public var time: Int64
        public var preview: String
        /// Who copied it, when known: shown before the preview, in parentheses.
        public var source: String?

        public init(index: Int, time: Int64, preview: String, source: String? = nil) {
            self.index = index
            self.time = time
            self.preview = preview
            self.source = source
        }
    }

    /// The most characters of a preview a line shows.
    public static let maximumPreviewLength = 100
    /// The most bytes a menu may print: a chosen line is far shorter.
    public static let maximumOutputBytes = 64 << 10

    /// The menu's lines, in the order of `entries`, as of `now` (seconds since 1970).
    public static func lines(_ entries: [Entry], now: Int64) -> [String] {
        entries.map { entry in
            let source = entry.source.map { "(\(OneLine.make($0, limit: 32)))  " } ?? ""
            return "\(entry.index)  \(age(seconds: now - entry.time))  \(source)\(OneLine.make(entry.preview, limit: maximumPreviewLength))"
        }
    }

    /// "12 s ago", "5 min ago", "3 h ago", "2 d ago"; "now" for the future (a clock set back).
    public static func age(seconds: Int64) -> String {
        switch seconds {
        case ..<1: "now"
        case ..<60: "\(seconds) s ago"
        case ..<3600: "\(seconds / 60) min ago"
        case ..<86_400: "\(seconds / 3600) h ago"
        default: "\(seconds / 86_400) d ago"
        }
    }

    /// Why a menu's output names no entry.
    public enum ChoiceError: Error, Equatable, Sendable, CustomStringConvertible {
        /// The menu printed nothing (the person pressed Escape).
        case nothingChosen
        case tooLong(Int)
        case severalLines(Int)
        /// A line that is none of the menu's (dmenu prints what was typed).
        case notAnEntry

        public var description: String {
            switch self {
            case .nothingChosen: "no entry was chosen"
            case .tooLong(let count): "the menu printed \(count) bytes, more than one line of it (\(maximumOutputBytes) at most)"
            case .severalLines(let count): "the menu printed \(count) lines; choose one entry"
            case .notAnEntry: "the menu printed a line that is not one of the entries"
            }
        }
    }

    /// The position in `lines` of the line the menu printed: exactly one of them, with its newline, and
    /// spaces around it forgiven.
    public static func choice(output: [UInt8], lines: [String]) throws(ChoiceError) -> Int {
        guard output.count <= maximumOutputBytes else { throw .tooLong(output.count) }
        let printed = output.split(separator: 0x0A, omittingEmptySubsequences: true)
            .map { String(decoding: $0, as: UTF8.self) }
            .map { $0.trimmed { $0 == " " || $0 == "\r" || $0 == "\t" } }
            .filter { !$0.isEmpty }
        guard let line = printed.first else { throw .nothingChosen }
        guard printed.count == 1 else { throw .severalLines(printed.count) }
        guard let index = lines.firstIndex(where: { $0.trimmed { $0 == " " || $0 == "\r" || $0 == "\t" } == line }) else { throw .notAnEntry }
        return index
    }

    /// The program and arguments that show a menu of `menu`'s kind, or nil when `.auto` finds none:
    /// `isInstalled` says whether a program is on the search path, `hasDisplay` whether there is an X
    /// display to show rofi or dmenu on, `hasTerminal` whether fzf has a terminal to draw in.
    public static func command(for menu: Menu, isInstalled: (String) -> Bool, hasDisplay: Bool, hasTerminal: Bool) -> [String]? {
        switch menu {
        case .rofi: return ["rofi", "-dmenu", "-i", "-no-custom", "-p", "clipboard"]
        case .dmenu: return ["dmenu", "-i", "-l", "20", "-p", "clipboard"]
        case .fzf: return ["fzf", "--no-sort", "--no-multi", "--tiebreak=index", "--prompt", "clipboard> "]
        case .command(let line): return ["/bin/sh", "-c", line]
        case .auto:
            let found: Menu? = hasDisplay && isInstalled("rofi") ? .rofi
                : hasDisplay && isInstalled("dmenu") ? .dmenu
                : hasTerminal && isInstalled("fzf") ? .fzf : nil
            return found.flatMap { command(for: $0, isInstalled: isInstalled, hasDisplay: hasDisplay, hasTerminal: hasTerminal) }
        }
    }
}
