// SPDX-License-Identifier: Apache-2.0
/// URLs in pasteboard content, as UIPasteboard's `url` and `urls` see them: the URIs of a `text/uri-list`
/// (RFC 2483), or plain text that is one URL and nothing else. URLs are Strings (the library stays free of
/// Foundation). Pure and bounded: text over `maximumLength` bytes is no URL.
public enum URLText {
    /// The longest text taken for one URL (browsers cap theirs near 2 MB; a URL on a clipboard is rarely
    /// more than a few KiB, and a data: URI of a picture is a picture, not a link).
    public static let maximumLength = 64 << 10

    /// The URIs of a `text/uri-list`, in order: one per line (CR LF or LF), comment lines (`#`) and blank
    /// lines left out, surrounding spaces trimmed.
    public static func uris(inURIList bytes: [UInt8]) -> [String] {
        String(decoding: bytes, as: UTF8.self).split(whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" })
            .map { trimmed(Substring($0)) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
    }

    /// The text as a URL when it is one and nothing else (surrounding white space aside): a scheme (RFC
    /// 3986: a letter, then letters, digits, `+`, `-`, `.`) and `://` with something after it, or one of the
    /// schemes written without slashes (`mailto:`, `tel:`, `urn:`, `magnet:`, `data:`); no white space or
    /// control character inside. Nil for anything else ("see https://example.org" is text, not a URL).
    public static func singleURL(in text: String) -> String? {
        let candidate = trimmed(Substring(text))
        guard !candidate.isEmpty, candidate.utf8.count <= maximumLength,
              !candidate.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.value < 0x20 || $0.value == 0x7F }),
              let colon = candidate.firstIndex(of: ":") else { return nil }
        let scheme = candidate[..<colon]
        guard let first = scheme.unicodeScalars.first, first.isASCIILetter,
              scheme.unicodeScalars.allSatisfy({ $0.isASCIILetter || ("0"..."9").contains($0) || "+-.".unicodeScalars.contains($0) })
        else { return nil }
        let rest = candidate[candidate.index(after: colon)...]
        if rest.hasPrefix("//") { return rest.count > 2 ? candidate : nil }
        return opaqueSchemes.contains(scheme.lowercased()) && !rest.isEmpty ? candidate : nil
    }

    /// Schemes whose URLs have no `//` authority.
    static let opaqueSchemes: Set<String> = ["mailto", "tel", "urn", "magnet", "data", "sms", "geo", "news"]

    private static func trimmed(_ text: Substring) -> String {
        var s = text
        while let c = s.first, c.isWhitespace { s = s.dropFirst() }
        while let c = s.last, c.isWhitespace { s = s.dropLast() }
        return String(s)
    }
}

extension Unicode.Scalar {
    fileprivate var isASCIILetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
}
