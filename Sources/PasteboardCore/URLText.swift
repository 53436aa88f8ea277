// SPDX-License-Identifier: Apache-2.0
/// Plain text that is one URL and nothing else, as UIPasteboard's `url` and `urls` see it beside the URIs of
/// a `text/uri-list` (`FileList(uriList:)`). URLs are Strings (the library stays free of Foundation). Pure and
/// bounded: text over `maximumLength` bytes is no URL.
public enum URLText {
    /// The longest text taken for one URL (browsers cap theirs near 2 MB; a URL on a clipboard is rarely
    /// more than a few KiB, and a data: URI of a picture is a picture, not a link).
    public static let maximumLength = 64 << 10

    /// The text as a URL when it is one and nothing else (surrounding white space aside): a scheme (RFC
    /// 3986: a letter, then letters, digits, `+`, `-`, `.`) and `://` with something after it, or one of the
    /// schemes written without slashes (`mailto:`, `tel:`, `urn:`, `magnet:`, `data:`); no white space or
    /// control character inside. Nil for anything else ("see https://example.org" is text, not a URL).
    public static func singleURL(in text: String) -> String? {
        let candidate = text.trimmed(where: \.isWhitespace)
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
}

extension Unicode.Scalar {
    fileprivate var isASCIILetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
}
