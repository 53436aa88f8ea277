// SPDX-License-Identifier: Apache-2.0
/// What a copy's text is, at a glance (`detectPatterns`): a URL, an e-mail address, a number, a path — so that
/// a `pb watch` hook or a launcher can branch without reading the content.
///
/// A pattern holds when the text, white space around it aside, is that kind of thing and nothing else, or lines
/// of them (three URLs copied from a list are `url`): "see https://example.org" is plain text. Judged on at most
/// the first `TextPatterns.scannedBytes` bytes; when the text is longer, its last line there (cut short) is not
/// judged. Pure and bounded: one pass over at most 4 KiB.
public struct TextPatterns: OptionSet, Hashable, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// URLs with a scheme (`https://…`, `mailto:…`: `URLText.singleURL`) or starting `www.`.
    public static let url = TextPatterns(rawValue: 0x1)
    /// E-mail addresses (`local@domain.tld`, optionally in angle brackets).
    public static let email = TextPatterns(rawValue: 0x2)
    /// Numbers: an optional sign, digits (grouped by `,`, `_`, `'` or spaces between groups of three),
    /// an optional fraction and exponent, or hexadecimal `0x…`.
    public static let number = TextPatterns(rawValue: 0x4)
    /// File paths: absolute (`/…`), from home (`~/…`, `~user/…`) or relative with `./` or `../`.
    public static let path = TextPatterns(rawValue: 0x8)

    /// The patterns with their names, in the order they are listed (`names`).
    public static let all: [(TextPatterns, String)] = [(.url, "url"), (.email, "email"), (.number, "number"), (.path, "path")]

    /// The most bytes of a text looked at.
    public static let scannedBytes = 4096

    /// The names of the patterns held, in `all`'s order (`["url"]`).
    public var names: [String] { Self.all.filter { contains($0.0) }.map(\.1) }

    /// The patterns named (unknown names are ignored).
    public init(names: [String]) {
        self = TextPatterns(Self.all.filter { names.contains($0.1) }.map(\.0))
    }

    /// The patterns `text` (UTF-8; any bytes) holds, judged on its first `scannedBytes` bytes. `continues`:
    /// `text` is the start of a longer text (its last line is then not judged, as when it is over `scannedBytes`).
    public static func detect(_ text: some Collection<UInt8>, continues: Bool = false) -> TextPatterns {
        let truncated = continues || text.count > scannedBytes
        var lines = Self.lines(of: String(decoding: text.prefix(scannedBytes), as: UTF8.self))
        if truncated { lines.removeLast() }
        var found: TextPatterns = [.url, .email, .number, .path]
        var judged = 0
        for line in lines {
            let token = Substring(line.trimmed(where: { $0.isWhitespace }))
            if token.isEmpty { continue }
            judged += 1
            if found.contains(.url) && !isURL(token) { found.remove(.url) }
            if found.contains(.email) && !isEmail(token) { found.remove(.email) }
            if found.contains(.number) && !isNumber(token) { found.remove(.number) }
            if found.contains(.path) && !isPath(token) { found.remove(.path) }
            if found.isEmpty { break }
        }
        return judged == 0 ? [] : found
    }

    /// The lines of `text`, empty ones kept: split at each `\n`, `\r\n` and `\r` — each a Character of its own, as
    /// a line break always is — found by bytes (splitting by Characters cost ~17,000 instructions for one line).
    static func lines(of text: String) -> [Substring] {
        var lines: [Substring] = []
        let utf8 = text.utf8
        var start = utf8.startIndex, index = start
        while index != utf8.endIndex {
            let byte = utf8[index]
            guard byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") else {
                index = utf8.index(after: index)
                continue
            }
            lines.append(text[start..<index])
            index = utf8.index(after: index)
            if byte == UInt8(ascii: "\r"), index != utf8.endIndex, utf8[index] == UInt8(ascii: "\n") { index = utf8.index(after: index) }
            start = index
        }
        lines.append(text[start..<utf8.endIndex])
        return lines
    }

    static func isURL(_ token: Substring) -> Bool {
        if URLText.singleURL(in: String(token)) != nil { return true }
        guard token.lowercased().hasPrefix("www."), token.count > 4 else { return false }
        return !token.unicodeScalars.contains { $0.properties.isWhitespace || $0.value < 0x20 }
    }

    static func isEmail(_ token: Substring) -> Bool {
        // No `@`, no address: said before the Character-wise work below (which costs ~16,000 instructions a line).
        guard token.utf8.contains(UInt8(ascii: "@")) else { return false }
        var address = token
        if address.first == "<" && address.last == ">" { address = address.dropFirst().dropLast() }
        if address.lowercased().hasPrefix("mailto:") { return false }   // a URL
        let parts = address.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, let local = parts.first, let domain = parts.last, !local.isEmpty, local.count <= 64 else { return false }
        let localCharacters = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.!#$%&'*+/=?^_`{|}~-")
        guard local.allSatisfy(localCharacters.contains), local.first != ".", local.last != ".", !local.contains("..") else { return false }
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2, let top = labels.last, top.count >= 2, top.allSatisfy(\.isLetter) else { return false }
        return labels.allSatisfy { label in
            !label.isEmpty && label.count <= 63 && label.first != "-" && label.last != "-"
                && label.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" }
        }
    }

    static func isNumber(_ token: Substring) -> Bool {
        var rest = token[...]
        if rest.first == "+" || rest.first == "-" || rest.first == "−" { rest = rest.dropFirst() }
        let lower = rest.lowercased()
        if lower.hasPrefix("0x") {
            let digits = lower.dropFirst(2)
            return !digits.isEmpty && digits.allSatisfy(\.isHexDigit)
        }
        // Mantissa: digits in groups, then an optional fraction; then an optional exponent.
        var mantissa = rest
        var exponent: Substring?
        if let e = rest.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            mantissa = rest[..<e]
            exponent = rest[rest.index(after: e)...]
        }
        if let exponent {
            var digits = exponent
            if digits.first == "+" || digits.first == "-" { digits = digits.dropFirst() }
            guard !digits.isEmpty, digits.allSatisfy(\.isASCIIDigit) else { return false }
        }
        let pieces = mantissa.split(separator: ".", omittingEmptySubsequences: false)
        guard pieces.count <= 2, let whole = pieces.first else { return false }
        let fraction = pieces.count == 2 ? pieces[1] : nil
        if let fraction, !fraction.allSatisfy(\.isASCIIDigit) { return false }
        if whole.isEmpty { return !(fraction ?? "").isEmpty }
        if whole.allSatisfy(\.isASCIIDigit) { return fraction.map { !$0.isEmpty } ?? true }
        // Grouped: 1,234,567 or 1 234 567 or 1_000 or 1'000 — one separator throughout, groups of three.
        guard let separator = whole.first(where: { !$0.isASCIIDigit }), [",", "_", "'", " ", "\u{202F}", "\u{A0}"].contains(separator) else { return false }
        let groups = whole.split(separator: separator, omittingEmptySubsequences: false)
        guard let head = groups.first, (1...3).contains(head.count), head.allSatisfy(\.isASCIIDigit) else { return false }
        return groups.dropFirst().allSatisfy { $0.count == 3 && $0.allSatisfy(\.isASCIIDigit) } && (fraction.map { !$0.isEmpty } ?? true)
    }

    static func isPath(_ token: Substring) -> Bool {
        // A path begins with `/`, `.` or `~`: anything else is said at once, before the searches for NUL and `://`
        // (a substring search by Characters: ~35,000 instructions for a line of text).
        guard let first = token.utf8.first, first == UInt8(ascii: "/") || first == UInt8(ascii: ".") || first == UInt8(ascii: "~"),
              !token.utf8.contains(0), !token.contains("://") else { return false }
        if token.hasPrefix("/") { return token.count > 1 || token == "/" }
        if token.hasPrefix("./") || token.hasPrefix("../") || token == "~" || token.hasPrefix("~/") { return true }
        if token.hasPrefix("~"), let slash = token.firstIndex(of: "/") {
            let user = token[token.index(after: token.startIndex)..<slash]
            return !user.isEmpty && user.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" || $0 == "." }
        }
        return false
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}

extension PasteboardContent {
    /// The patterns of the content's plain text (`TextPatterns.detect`), converting at most the first
    /// `TextPatterns.scannedBytes` bytes of the text it offers; empty when it offers no plain text.
    public func textPatterns(using table: ConversionTable = .standard) -> TextPatterns {
        let text = types.filter { table.family(of: $0) == .plainText }
        guard let plan = table.plan(producing: .utf8String, from: text), !plan.needsCallerThread,
              let data = data(for: plan.source) else { return [] }
        let head = Array(data.prefix(TextPatterns.scannedBytes))
        guard let utf8 = try? plan.run(head, services: ConversionServices()).data else { return [] }
        return TextPatterns.detect(utf8, continues: data.count > head.count)
    }
}
