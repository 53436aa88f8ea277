/// What a clipboard manager reads from another application's selection, in which order, and how much.
///
/// Reading early must not hurt the source application: one target at a time, each at most once per
/// change, never in-process pointers or side effects, and nothing over its size cap (a target over its
/// cap is skipped whole, never cut). Targets that carry the same data as one already read (the text
/// family, the RTF family) are not read again: the daemon derives them when it serves the content.
public struct SnapshotPolicy: Equatable, Sendable {
    /// The most bytes read for one text target.
    public var textCap: Int
    /// The most bytes read for one image target.
    public var imageCap: Int
    /// The most bytes read for one rich-text target (RTF, HTML, RTFD: pictures travel inside them).
    public var richTextCap: Int = 64 << 20
    /// The most bytes read for any other target.
    public var otherCap: Int
    /// The most bytes one snapshot holds in all.
    public var snapshotCap: Int

    public init(textCap: Int = 8 << 20, imageCap: Int = 64 << 20, otherCap: Int = 8 << 20, snapshotCap: Int = 256 << 20) {
        self.textCap = textCap
        self.imageCap = imageCap
        self.otherCap = otherCap
        self.snapshotCap = snapshotCap
    }

    /// Targets never read: the protocol's own, side effects, in-process pointers, and Xmu's
    /// housekeeping targets.
    public static let neverRead: Set<String> = Set(PasteboardType.protocolTargets.map(\.rawValue))
        .union(PasteboardType.sideEffectTargets.map(\.rawValue))
        .union([
            "GTK_TEXT_BUFFER_CONTENTS", "TARGET_SIZES", "LENGTH", "LIST_LENGTH", "CLIENT_WINDOW", "HOST_NAME",
            "USER", "CLASS", "NAME", "OWNER_OS", "PROCESS", "TASK", "CHARACTER_POSITION", "LINE_NUMBER",
            "COLUMN_NUMBER", "SPAN", "IP_ADDRESS", "DECNET_ADDRESS", "_QT_SELECTION", "PIXMAP", "BITMAP",
            "DRAWABLE", "COLORMAP", "FOREGROUND", "BACKGROUND",
        ])

    /// Targets whose presence alone marks the content secret (nspasteboard.org's conventions).
    public static let concealedMarkers: Set<String> = [
        "org.nspasteboard.ConcealedType", "org.nspasteboard.TransientType", "application/x-nspasteboard-concealed-type",
    ]
    /// KDE's hint, whose value says whether the content is secret (`isSecretHint`).
    public static let passwordManagerHint = "x-kde-passwordManagerHint"
    /// Every marker by which password managers ask clipboard managers to keep their content out of history.
    public static var secretMarkers: Set<String> { concealedMarkers.union([passwordManagerHint]) }

    /// The targets to read from an owner offering `offered`, in order: one plain-text target (the others
    /// are derived when served), HTML, one of the RTF aliases, flat RTFD, one picture (PNG if offered, else the
    /// first of the image rows: TIFF, BMP, WebP, GIF, JPEG), URI lists, one of GNOME's and MATE's copied-files
    /// targets, KDE's cut marker, then every
    /// other target.
    public func plan(offered: [String], table: ConversionTable = .standard) -> [String] {
        var remaining = offered.filter { !Self.neverRead.contains($0) && !Self.secretMarkers.contains($0) }
        var order: [String] = []
        func take(_ name: String) {
            if let index = remaining.firstIndex(of: name) { order.append(name); remaining.remove(at: index) }
        }
        func drop(_ names: [PasteboardType]) { remaining.removeAll { names.contains(PasteboardType($0)) } }

        let text = table.members(of: .plainText)
        if let first = text.filter({ table.row(of: $0)?.readBySnapshots == true }).map(\.rawValue).first(where: remaining.contains) {
            take(first)
        }
        drop(text)
        take(PasteboardType.html.rawValue)
        let rtf = table.aliases(of: .rtf)
        if let first = rtf.map(\.rawValue).first(where: remaining.contains) { take(first) }
        drop(rtf)
        take(PasteboardType.flatRTFD.rawValue)
        // One picture: the first of the image family in the table's order (lossless first); the daemon
        // derives the others when it serves the content. Image types the table does not know are read as they are.
        let images = table.members(of: .image)
        if let first = images.map(\.rawValue).first(where: remaining.contains) {
            take(first)
            drop(images)
        } else {
            for image in remaining.filter({ $0.hasPrefix("image/") }) { take(image) }
        }
        take(PasteboardType.uriList.rawValue)
        let copiedFiles = table.aliases(of: .gnomeCopiedFiles)
        if let first = copiedFiles.map(\.rawValue).first(where: remaining.contains) { take(first) }
        drop(copiedFiles)
        take(PasteboardType.kdeCutSelection.rawValue)
        return order + remaining
    }

    /// The cap for one target.
    public func cap(for type: String) -> Int {
        if type.hasPrefix("image/") { return imageCap }
        if ConversionTable.standard.family(of: PasteboardType(type)) == .richText { return richTextCap }
        if ConversionTable.standard.family(of: PasteboardType(type)) == .plainText || type.hasPrefix("text/") { return textCap }
        return otherCap
    }

    /// True when a password-manager hint value says "keep out" (`secret` as KeePassXC writes it, `1`
    /// as QtPass does).
    public static func isSecretHint(_ value: [UInt8]) -> Bool {
        let text = String(decoding: value.prefix(16), as: UTF8.self).trimmingCharacters(in: [" ", "\n", "\0"])
        return text == "secret" || text == "1"
    }
}

extension String {
    fileprivate func trimmingCharacters(in set: Set<Character>) -> String {
        var s = Substring(self)
        while let c = s.first, set.contains(c) { s = s.dropFirst() }
        while let c = s.last, set.contains(c) { s = s.dropLast() }
        return String(s)
    }
}
