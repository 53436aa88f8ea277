// SPDX-License-Identifier: Apache-2.0

/// Type names between the engine (X targets and MIME types as their owners offered them) and Wayland (MIME
/// types only), for pasteboardd's Wayland seat and for the library reading a seat without it: X's text targets
/// (`UTF8_STRING`, `STRING`, `TEXT`, `COMPOUND_TEXT`) are not offered to Wayland readers, whose text is
/// `text/plain;charset=utf-8` (and `text/plain`), made from the X side's UTF-8 text; every other name goes
/// through as it is (`com.apple.flat-rtfd` too: data-control carries any name).
public enum WaylandTypes {
    /// The MIME type every source of pasteboardd's offers besides its content's: an offer that carries it is the
    /// daemon's own (a mirror coming back), never another client's copy; no reader is shown it as a type.
    public static let ownMarker = "application/x-pasteboardd-source"

    public static let xTextTargets: Set<String> = ["UTF8_STRING", "STRING", "TEXT", "COMPOUND_TEXT"]

    /// The MIME-shaped name flat RTFD is also offered under on Wayland: bridges between X and Wayland (wlroots'
    /// XWayland) drop every name without a `/`, `com.apple.flat-rtfd` among them; under this one it crosses, and
    /// an offer of it is read as RTFD.
    public static let flatRTFDAlias = "application/x-apple-flat-rtfd"

    /// The five names wl-copy adds to a copy of any text type (`wl-copy -t text/html`), after the type itself,
    /// each carrying the same bytes — the HTML offered as plain text (wl-clipboard's `mime_type_is_text`).
    public static let wlCopyTextAliases = ["text/plain", "text/plain;charset=utf-8", "TEXT", "STRING", "UTF8_STRING"]

    /// What a Wayland source offers for `types`, in order, without duplicates: X's own text names as the MIME
    /// text names (UTF-8 only), flat RTFD under its own name and `flatRTFDAlias`.
    public static func mimeTypes(for types: [PasteboardType]) -> [String] {
        var names: [String] = []
        func add(_ name: String) { if !names.contains(name) { names.append(name) } }
        for type in types {
            if xTextTargets.contains(type.rawValue) {
                if type.rawValue == "UTF8_STRING" { add("text/plain;charset=utf-8"); add("text/plain") }
            } else {
                add(type.rawValue)
                if type == .flatRTFD { add(flatRTFDAlias) }
            }
        }
        return names
    }

    /// The type of `types` (the offer served) a Wayland reader asking for `mime` gets.
    public static func pasteboardType(forMIME mime: String, offered types: [PasteboardType]) -> PasteboardType? {
        if types.contains(PasteboardType(mime)) { return PasteboardType(mime) }
        if mime == "text/plain;charset=utf-8" || mime == "text/plain", types.contains(.utf8String) { return .utf8String }
        if mime == flatRTFDAlias, types.contains(.flatRTFD) { return .flatRTFD }
        return nil
    }

    /// The engine's types for a Wayland offer's MIME types: the daemon's marker left out, and every name no item
    /// may carry (empty, over 65,535 bytes, with a NUL), each type once, at most `maximumOfferedTypes`;
    /// `flatRTFDAlias` read as flat RTFD. An alias never passes one format off as another: wl-copy's copy of a
    /// rich text type (`isWlCopyRichCopy`) is that type alone — its plain-text names carry the rich bytes, and
    /// the table makes the plain text from the rich type instead, as for any rich copy.
    public static func pasteboardTypes(fromMIME types: [String], table: ConversionTable = .standard) -> [PasteboardType] {
        let aliases: Set<String> = isWlCopyRichCopy(types, table: table) ? Set(wlCopyTextAliases) : []
        var seen: Set<String> = []
        var kept: [PasteboardType] = []
        for offered in types where kept.count < maximumOfferedTypes {
            let name = offered == flatRTFDAlias ? PasteboardType.flatRTFD.rawValue : offered
            guard name != ownMarker, !aliases.contains(name), PasteboardType(name).nameProblem == nil,
                  seen.insert(name).inserted else { continue }
            kept.append(PasteboardType(name))
        }
        return kept
    }

    /// Whether `types` is what wl-copy offers for a copy of rich text: a rich-text type of `table` (HTML, RTF,
    /// RTFD) and then exactly `wlCopyTextAliases` (the daemon's marker aside). An application that offers its own
    /// plain text beside its HTML lists other names, or in another order, and keeps them.
    public static func isWlCopyRichCopy(_ types: [String], table: ConversionTable = .standard) -> Bool {
        let listed = types.filter { $0 != ownMarker }
        guard listed.count == wlCopyTextAliases.count + 1, Array(listed.dropFirst()) == wlCopyTextAliases else { return false }
        let first = listed[0] == flatRTFDAlias ? PasteboardType.flatRTFD : PasteboardType(listed[0])
        return table.family(of: first) == .richText
    }

    /// The most MIME types of one Wayland offer considered (real clients offer 1 to 20; a hostile list of
    /// thousands costs no more than this), as X's `SnapshotPolicy.maximumOfferedTargets`.
    public static let maximumOfferedTypes = 256

    /// Whether a MIME type an offer announces is kept, after `count` kept before it: at most four times
    /// `maximumOfferedTypes` (room for names `pasteboardTypes(fromMIME:)` drops) of names no longer than
    /// `PasteboardLimits.maximumTypeNameLength` — a hostile list costs no more memory than that.
    public static func keepsAnnounced(_ type: String, after count: Int) -> Bool {
        count < maximumOfferedTypes * 4 && type.utf8.count <= PasteboardLimits.maximumTypeNameLength
    }

    /// The MIME type of a Wayland offer to read for `type` asked by another endpoint.
    public static func mimeType(for type: PasteboardType, offered types: [String]) -> String? {
        if types.contains(type.rawValue) { return type.rawValue }
        if type == .flatRTFD, types.contains(flatRTFDAlias) { return flatRTFDAlias }
        if xTextTargets.contains(type.rawValue) || type == .utf8PlainText {
            return ["text/plain;charset=utf-8", "UTF8_STRING", "text/plain"].first { types.contains($0) }
        }
        return nil
    }
}
