// SPDX-License-Identifier: Apache-2.0
/// A pasteboard type: the name of one representation of an item.
///
/// Types are named as X targets are (MIME types such as `text/html`, or atom names such as
/// `UTF8_STRING`), since every representation is served to X peers under its own name. `PasteboardType`
/// also knows Apple's uniform type identifiers and the short aliases the command line accepts; which
/// names carry the same data, and how one becomes another, is `ConversionTable`'s business.
public struct PasteboardType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The X target name under which this type is served.
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    // MARK: Well-known types

    /// UTF-8 plain text, as stored by `pb copy` without `-t`.
    public static let utf8PlainText = PasteboardType("text/plain;charset=utf-8")
    public static let utf8String = PasteboardType("UTF8_STRING")
    public static let plainText = PasteboardType("text/plain")
    public static let string = PasteboardType("STRING")
    public static let text = PasteboardType("TEXT")
    public static let compoundText = PasteboardType("COMPOUND_TEXT")
    public static let html = PasteboardType("text/html")
    public static let rtf = PasteboardType("text/rtf")
    public static let applicationRTF = PasteboardType("application/rtf")
    public static let richText = PasteboardType("text/richtext")
    public static let flatRTFD = PasteboardType("com.apple.flat-rtfd")
    public static let png = PasteboardType("image/png")
    public static let uriList = PasteboardType("text/uri-list")
    /// Files copied or cut in Nautilus, Nemo, Thunar or PCManFM (`copy`/`cut`, then URIs).
    public static let gnomeCopiedFiles = PasteboardType("x-special/gnome-copied-files")
    /// The same, as Caja (MATE) names it.
    public static let mateCopiedFiles = PasteboardType("x-special/mate-copied-files")
    /// Dolphin's marker beside `text/uri-list`: `1` when the files were cut.
    public static let kdeCutSelection = PasteboardType("application/x-kde-cutselection")

    /// The targets the selection protocol answers itself (ICCCM 2.6.2), never content.
    public static let protocolTargets: [PasteboardType] = [PasteboardType("TARGETS"), PasteboardType("TIMESTAMP"), PasteboardType("MULTIPLE")]
    /// Targets whose conversion is a side effect (ICCCM 2.6.3), never content: owners refuse them, readers skip them.
    public static let sideEffectTargets: [PasteboardType] = [PasteboardType("DELETE"), PasteboardType("INSERT_SELECTION"),
                                                             PasteboardType("INSERT_PROPERTY"), PasteboardType("SAVE_TARGETS")]

    // MARK: Names users type

    /// Short names accepted wherever a type is named (`pb copy -t`, `pb paste -t`, the library).
    public static let aliases: [String: PasteboardType] = [
        "text": .utf8PlainText, "txt": .utf8PlainText, "utf8": .utf8String,
        "html": .html, "rtf": .rtf, "rtfd": .flatRTFD, "png": .png, "uri": .uriList, "uris": .uriList,
        "jpeg": PasteboardType("image/jpeg"), "jpg": PasteboardType("image/jpeg"), "gif": PasteboardType("image/gif"),
        "bmp": PasteboardType("image/bmp"), "tiff": PasteboardType("image/tiff"), "tif": PasteboardType("image/tiff"),
        "webp": PasteboardType("image/webp"),
    ]

    /// Apple uniform type identifiers and the X target each one is served as.
    public static let uniformTypeIdentifiers: [String: PasteboardType] = [
        "public.utf8-plain-text": .utf8PlainText, "public.plain-text": .utf8PlainText,
        "public.rtf": .rtf, "com.apple.flat-rtfd": .flatRTFD, "public.html": .html,
        "public.png": .png, "public.url": .uriList, "public.file-url": .uriList,
        "NSStringPboardType": .utf8PlainText, "NeXT Rich Text Format v1.0 pasteboard type": .rtf,
        "NeXT RTFD pasteboard type": .flatRTFD, "Apple HTML pasteboard type": .html,
        "public.jpeg": PasteboardType("image/jpeg"), "public.tiff": PasteboardType("image/tiff"),
        "com.compuserve.gif": PasteboardType("image/gif"), "com.microsoft.bmp": PasteboardType("image/bmp"),
        "org.webmproject.webp": PasteboardType("image/webp"), "NeXT TIFF v4.0 pasteboard type": PasteboardType("image/tiff"),
    ]

    /// Why this name cannot name a representation (empty, over `PasteboardLimits.maximumTypeNameLength`
    /// bytes, or with a NUL byte), or nil when it can.
    public var nameProblem: String? {
        let length = rawValue.utf8.count
        if length == 0 { return "is empty" }
        if length > PasteboardLimits.maximumTypeNameLength {
            return "is \(length) bytes, more than \(PasteboardLimits.maximumTypeNameLength)"
        }
        if rawValue.utf8.contains(0) { return "contains a NUL byte" }
        return nil
    }

    /// The name as a log line shows it: whole up to 96 bytes, else its first 64 bytes (cut at a character),
    /// "…" and its length, so that a 60 KiB atom name costs a log line no more than a short one.
    public var logName: String {
        let utf8 = rawValue.utf8
        guard utf8.count > 96 else { return rawValue }
        var end = utf8.index(utf8.startIndex, offsetBy: 64)
        while end > utf8.startIndex && utf8[end] & 0xC0 == 0x80 { end = utf8.index(before: end) }
        return String(decoding: utf8[utf8.startIndex..<end], as: UTF8.self) + "… (\(utf8.count) bytes)"
    }

    /// Resolves what a user typed: an alias, a UTI, or any MIME type or atom name as it is.
    /// Returns nil for an empty name, one with a NUL or control character, or one over `PasteboardLimits.maximumTypeNameLength` bytes.
    public static func named(_ name: String) -> PasteboardType? {
        guard !name.isEmpty, name.utf8.count <= PasteboardLimits.maximumTypeNameLength,
              !name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else { return nil }
        if let alias = aliases[name.lowercased()] { return alias }
        if let uti = uniformTypeIdentifiers[name] { return uti }
        return PasteboardType(name)
    }
}
