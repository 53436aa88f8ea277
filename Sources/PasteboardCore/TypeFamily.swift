// SPDX-License-Identifier: Apache-2.0
/// A kind of content whose representations can stand in for one another once converted: plain text,
/// rich text — and, as rows are added to a `ConversionTable`, images and files.
public struct TypeFamily: Hashable, Sendable, CustomStringConvertible {
    public let name: String
    /// A holder lists the family's types in the table's order wherever it lists the first of them (plain
    /// text: one text in several encodings, `UTF8_STRING` first as owners list it); otherwise the
    /// source's own type comes first and the family's others follow.
    public let listedInTableOrder: Bool

    public init(_ name: String, listedInTableOrder: Bool = false) {
        self.name = name
        self.listedInTableOrder = listedInTableOrder
    }
    public var description: String { name }

    public static let plainText = TypeFamily("plain text", listedInTableOrder: true)
    public static let richText = TypeFamily("rich text")
    /// Files a file manager copied or cut: the URIs, and whether they are to be moved.
    public static let files = TypeFamily("files")
}

/// How a representation's bytes are encoded. Type names that carry the same bytes share a format (they
/// are aliases: `text/rtf`, `application/rtf` and `text/richtext` all carry RTF); converters go from one
/// format to another.
public struct RepresentationFormat: Hashable, Sendable, CustomStringConvertible {
    public let name: String
    public init(_ name: String) { self.name = name }
    public var description: String { name }

    /// UTF-8 text (`UTF8_STRING`, `text/plain;charset=utf-8`, `text/plain`).
    public static let utf8Text = RepresentationFormat("UTF-8 text")
    /// ISO-8859-1 text (`STRING`).
    public static let latin1Text = RepresentationFormat("Latin-1 text")
    /// ICCCM's `TEXT`: the owner answers in the encoding it chooses (here `STRING` when every character
    /// fits Latin-1, else `UTF8_STRING`).
    public static let ownerChosenText = RepresentationFormat("TEXT")
    /// X's ISO 2022 `COMPOUND_TEXT`, encoded and decoded by Xlib (a `CompoundTextCodec`).
    public static let compoundText = RepresentationFormat("COMPOUND_TEXT")
    public static let rtf = RepresentationFormat("RTF")
    public static let html = RepresentationFormat("HTML")
    /// Apple's flat RTFD (`com.apple.flat-rtfd`): RTF with its attachments in one serialised bundle.
    public static let flatRTFD = RepresentationFormat("flat RTFD")
    /// RFC 2483's `text/uri-list`: URIs, one a line (`FileList`).
    public static let uriList = RepresentationFormat("URI list")
    /// GNOME's `x-special/gnome-copied-files` (MATE's `x-special/mate-copied-files`): `copy` or `cut`,
    /// then the URIs.
    public static let copiedFiles = RepresentationFormat("copied files")
    /// KDE's `application/x-kde-cutselection`: `1` when the files beside it in `text/uri-list` were cut.
    public static let kdeCutMarker = RepresentationFormat("KDE cut marker")
}

/// One type name a `ConversionTable` knows: the format its bytes are in and the family it belongs to.
/// A table's rows are in order of preference as a source of conversions (richest first).
public struct TypeRow: Sendable {
    public let type: PasteboardType
    public let format: RepresentationFormat
    public let family: TypeFamily
    /// A requestor asking for this target accepts a reply of any type of the family (`TEXT`).
    public let replyMayBeAnyOfFamily: Bool
    /// A clipboard manager reads this target when the owner offers it (false for targets that another
    /// one of the family always covers, such as `TEXT` and `COMPOUND_TEXT`).
    public let readBySnapshots: Bool

    public init(_ type: PasteboardType, _ format: RepresentationFormat, _ family: TypeFamily,
                replyMayBeAnyOfFamily: Bool = false, readBySnapshots: Bool = true) {
        self.type = type
        self.format = format
        self.family = family
        self.replyMayBeAnyOfFamily = replyMayBeAnyOfFamily
        self.readBySnapshots = readBySnapshots
    }
}
