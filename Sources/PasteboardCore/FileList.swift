// SPDX-License-Identifier: Apache-2.0
/// Files on the clipboard, as file managers put them there: an action (copy or cut) and a list of URIs.
///
/// The wire formats it reads and writes, one per `RepresentationFormat` of the files family:
///
/// | type | bytes |
/// |---|---|
/// | `text/uri-list` (RFC 2483) | one URI a line, lines ended by CRLF, `#` lines are comments |
/// | `x-special/gnome-copied-files` (Nautilus, Nemo, Thunar, PCManFM), `x-special/mate-copied-files` (Caja) | `copy` or `cut`, then one URI a line, separated by LF |
/// | `application/x-kde-cutselection` (Dolphin) | `1` for a cut, `0` for a copy; the URIs are in `text/uri-list` beside it |
///
/// Readers are lenient where writers differ (LF or CRLF, a trailing newline or NUL, blank lines) and strict
/// where a mistake would touch the wrong file: a URI must have a scheme, carry no control character or
/// space, and fit `maximumURILength`; a list holds at most `maximumFiles` URIs.
public struct FileList: Equatable, Sendable {
    public enum Action: String, Equatable, Sendable {
        case copy, cut
    }

    public var action: Action
    /// The URIs as given (`file:///home/me/a%20b.txt`, or any other scheme a file manager reaches).
    public var uris: [String]

    /// The most URIs one list holds.
    public static let maximumFiles = 65_536
    /// The most bytes one URI takes (a 4096-byte path, every byte percent-encoded, and a host).
    public static let maximumURILength = 16_384

    public init(action: Action = .copy, uris: [String]) {
        self.action = action
        self.uris = uris
    }

    /// The list for local paths: each made a `file://` URI (`FileURI.encode`).
    public init(action: Action = .copy, paths: [String]) throws(FileListError) {
        guard !paths.isEmpty else { throw .empty }
        guard paths.count <= Self.maximumFiles else { throw .tooManyFiles(paths.count) }
        self.init(action: action, uris: try paths.map { (path) throws(FileListError) in try FileURI.encode(path: path) })
    }

    // MARK: - Reading

    /// Parses `text/uri-list`: URIs one a line (CRLF or LF), comments and blank lines skipped.
    public init(uriList bytes: [UInt8], action: Action = .copy) throws(FileListError) {
        self.init(action: action, uris: try Self.uris(in: Self.lines(bytes)))
    }

    /// Parses `x-special/gnome-copied-files`: `copy` or `cut`, then URIs one a line.
    public init(copiedFiles bytes: [UInt8]) throws(FileListError) {
        var lines = Self.lines(bytes)
        guard !lines.isEmpty else { throw .empty }
        let first = lines.removeFirst()
        guard let action = Action(rawValue: first) else { throw .unknownAction }
        self.init(action: action, uris: try Self.uris(in: lines))
    }

    /// The action KDE's cut marker (`application/x-kde-cutselection`) names: `1` is a cut, anything else a
    /// copy (as KIO reads it).
    public static func action(fromKDECutMarker bytes: [UInt8]) -> Action {
        bytes.first == UInt8(ascii: "1") ? .cut : .copy
    }

    // MARK: - Writing

    /// `text/uri-list`: each URI followed by CRLF (what GTK and Qt write).
    public var uriList: [UInt8] { Array(uris.map { $0 + "\r\n" }.joined().utf8) }

    /// `x-special/gnome-copied-files`: the action, then the URIs, separated by LF, with no newline at the
    /// end (what Nautilus writes).
    public var copiedFiles: [UInt8] { Array(([action.rawValue] + uris).joined(separator: "\n").utf8) }

    /// KDE's cut marker: `1` for a cut, `0` for a copy (what KIO writes).
    public var kdeCutMarker: [UInt8] { [action == .cut ? UInt8(ascii: "1") : UInt8(ascii: "0")] }

    /// The files as text: each local file's path, any other URI as it is, one a line, with no newline at
    /// the end (so that pasting into a shell runs nothing). A path with a control character (a newline in a
    /// file name) stays a URI, so that each file is one line and no control character is pasted.
    public var text: [UInt8] {
        Array(uris.map { uri in
            guard let path = try? FileURI.path(of: uri), !path.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) else { return uri }
            return path
        }.joined(separator: "\n").utf8)
    }

    /// What a copy of these files holds, the way file managers offer them: GNOME's list, the URI list and,
    /// for a cut, KDE's marker. The paths as text are derived from the URI list by the conversion table
    /// (a file list's text, so no rich text is invented on it). One item of these is one change.
    public var representations: [Representation] {
        [Representation(type: .gnomeCopiedFiles, data: copiedFiles), Representation(type: .uriList, data: uriList)]
            + (action == .cut ? [Representation(type: .kdeCutSelection, data: kdeCutMarker)] : [])
    }

    /// The last path component of each URI, decoded, for summaries ("3 files: a.txt, b.txt, …").
    public var names: [String] {
        uris.map { uri in
            let path = (try? FileURI.path(of: uri)) ?? uri
            var trimmed = Substring(path)
            while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
            return trimmed.split(separator: "/").last.map(String.init) ?? String(trimmed)
        }
    }

    // MARK: - Parsing helpers

    /// The lines of `bytes`: split at LF, a CR before it dropped, a trailing NUL (some writers end the
    /// string with one) dropped, blank lines and `#` comments skipped.
    private static func lines(_ bytes: [UInt8]) -> [String] {
        var body = bytes[...]
        while body.last == 0 { body = body.dropLast() }
        return body.split(separator: 0x0A, omittingEmptySubsequences: true).compactMap { line in
            let trimmed = line.last == 0x0D ? line.dropLast() : line
            guard !trimmed.isEmpty, trimmed.first != UInt8(ascii: "#") else { return nil }
            return String(decoding: trimmed, as: UTF8.self)
        }
    }

    private static func uris(in lines: [String]) throws(FileListError) -> [String] {
        guard !lines.isEmpty else { throw .empty }
        guard lines.count <= maximumFiles else { throw .tooManyFiles(lines.count) }
        for (index, line) in lines.enumerated() {
            if let reason = FileURI.problem(with: line) { throw .badURI(line: index + 1, reason: reason) }
        }
        return lines
    }
}

/// Why bytes are not a file list (the messages name lines and rules, never file names).
public enum FileListError: Error, Equatable, Sendable, CustomStringConvertible {
    case empty
    case tooManyFiles(Int)
    /// x-special/gnome-copied-files whose first line is not `copy` or `cut`.
    case unknownAction
    case badURI(line: Int, reason: String)
    case badPath(String)

    public var description: String {
        switch self {
        case .empty: "the file list is empty"
        case .tooManyFiles(let count): "\(count) files is more than the \(FileList.maximumFiles) a list may hold"
        case .unknownAction: "the first line is neither copy nor cut"
        case .badURI(let line, let reason): "URI \(line) \(reason)"
        case .badPath(let reason): reason
        }
    }
}

/// `file://` URIs and local paths (RFC 8089), percent-encoded as GLib and Qt write them.
public enum FileURI {
    /// Bytes left as they are in a path: RFC 3986's unreserved characters, `/` and the sub-delimiters a
    /// path may hold (`!$&'()*+,;=:@`). Everything else — space, `#`, `%`, `?`, non-ASCII — is encoded.
    private static func isKept(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return Array("-._~/!$&'()*+,;=:@".utf8).contains(byte)
        }
    }

    /// `file:///…` for an absolute local path (an empty host: this machine). The path is taken as it is
    /// (no `.` or `..` resolved): relative paths, `.` and `..` components and NUL are refused.
    public static func encode(path: String) throws(FileListError) -> String {
        try checkLocal(path)
        var uri = "file://"
        for byte in path.utf8 {
            if isKept(byte) {
                uri.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                uri += "%" + String(byte >> 4, radix: 16, uppercase: true) + String(byte & 0x0F, radix: 16, uppercase: true)
            }
        }
        guard uri.utf8.count <= FileList.maximumURILength else {
            throw .badPath("a path of \(path.utf8.count) bytes is longer than a URI may be")
        }
        return uri
    }

    /// The local path a `file:` URI names: `file:///p`, `file://localhost/p`, `file://HOST/p` when HOST
    /// is in `localHostNames` (this machine's name), or `file:/p`; percent escapes decoded. Refused: other
    /// schemes, other hosts, a query or fragment (`?`, `#`: a file name's own are encoded), bad escapes,
    /// encoded `/` or NUL, paths that are not UTF-8, and `.` or `..` components.
    public static func path(of uri: String, localHostNames: Set<String> = []) throws(FileListError) -> String {
        if let reason = problem(with: uri) { throw .badPath("the URI \(reason)") }
        let bytes = Array(uri.utf8)
        let scheme = Array("file:".utf8)
        guard bytes.count >= scheme.count,
              zip(bytes.prefix(scheme.count), scheme).allSatisfy({ $0 | 0x20 == $1 | 0x20 }) else {
            throw .badPath("not a file: URI (only local files can be pasted)")
        }
        var rest = bytes[scheme.count...]
        if rest.starts(with: Array("//".utf8)) {
            rest = rest.dropFirst(2)
            let hostEnd = rest.firstIndex(of: UInt8(ascii: "/")) ?? rest.endIndex
            let host = String(decoding: rest[..<hostEnd], as: UTF8.self)
            guard host.isEmpty || host.lowercased() == "localhost" || localHostNames.contains(host) else {
                throw .badPath("the URI names another machine (host \(host.count > 64 ? String(host.prefix(64)) + "…" : host))")
            }
            rest = rest[hostEnd...]
        }
        guard rest.first == UInt8(ascii: "/") else { throw .badPath("the URI has no absolute path") }
        if rest.contains(UInt8(ascii: "#")) { throw .badPath("the URI has a fragment (#); a # in a file name is written %23") }
        if rest.contains(UInt8(ascii: "?")) { throw .badPath("the URI has a query (?); a ? in a file name is written %3F") }
        var decoded: [UInt8] = []
        var index = rest.startIndex
        while index < rest.endIndex {
            let byte = rest[index]
            guard byte == UInt8(ascii: "%") else {
                decoded.append(byte)
                index += 1
                continue
            }
            guard index + 2 < rest.endIndex, let high = hexValue(rest[index + 1]), let low = hexValue(rest[index + 2]) else {
                throw .badPath("the URI has a % not followed by two hexadecimal digits")
            }
            let value = high << 4 | low
            if value == 0 { throw .badPath("the URI encodes a NUL byte") }
            if value == UInt8(ascii: "/") { throw .badPath("the URI encodes a / inside a file name") }
            decoded.append(value)
            index += 3
        }
        guard let path = String(validating: decoded, as: UTF8.self) else {
            throw .badPath("the path is not UTF-8")
        }
        try checkLocal(path)
        return path
    }

    /// Why `uri` cannot be in a file list, or nil: it needs a scheme (`name:`), and neither control
    /// characters, spaces nor more than `FileList.maximumURILength` bytes.
    public static func problem(with uri: String) -> String? {
        let bytes = Array(uri.utf8)
        if bytes.count > FileList.maximumURILength { return "is longer than \(FileList.maximumURILength) bytes" }
        if bytes.contains(where: { $0 <= 0x20 || $0 == 0x7F }) { return "contains a space or a control character" }
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 0 else { return "has no scheme" }
        let isLetter = { (byte: UInt8) in (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z") }
        guard isLetter(bytes[0]),
              bytes[1..<colon].allSatisfy({ isLetter($0) || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") })
        else { return "has no scheme" }
        return nil
    }

    private static func checkLocal(_ path: String) throws(FileListError) {
        guard path.hasPrefix("/") else { throw .badPath("the path is not absolute") }
        guard !path.utf8.contains(0) else { throw .badPath("the path contains a NUL byte") }
        let components = path.split(separator: "/", omittingEmptySubsequences: true)
        guard !components.isEmpty else { throw .badPath("the path names no file (it is /)") }
        if components.contains(where: { $0 == "." || $0 == ".." }) {
            throw .badPath("the path has a . or .. component")
        }
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
