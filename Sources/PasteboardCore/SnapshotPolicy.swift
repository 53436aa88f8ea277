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
    public static let neverRead: Set<String> = [
        "TARGETS", "TIMESTAMP", "MULTIPLE", "SAVE_TARGETS", "DELETE", "INSERT_SELECTION", "INSERT_PROPERTY",
        "GTK_TEXT_BUFFER_CONTENTS", "TARGET_SIZES", "LENGTH", "LIST_LENGTH", "CLIENT_WINDOW", "HOST_NAME",
        "USER", "CLASS", "NAME", "OWNER_OS", "PROCESS", "TASK", "CHARACTER_POSITION", "LINE_NUMBER",
        "COLUMN_NUMBER", "SPAN", "IP_ADDRESS", "DECNET_ADDRESS", "_QT_SELECTION", "PIXMAP", "BITMAP",
        "DRAWABLE", "COLORMAP", "FOREGROUND", "BACKGROUND",
    ]

    /// Markers by which password managers ask clipboard managers to keep their content out of history.
    public static let secretMarkers: Set<String> = [
        "x-kde-passwordManagerHint", "org.nspasteboard.ConcealedType", "org.nspasteboard.TransientType",
        "application/x-nspasteboard-concealed-type",
    ]

    /// The text targets, in the order a reader prefers them (one is read, the others derived).
    static let textPreference = ["UTF8_STRING", "text/plain;charset=utf-8", "text/plain", "STRING"]

    /// The targets to read from an owner offering `offered`, in order: one text target, HTML, one RTF
    /// target, flat RTFD, PNG (other images only when there is no PNG), URI lists, GNOME's file copy
    /// target, then every other target.
    public func plan(offered: [String]) -> [String] {
        var remaining = offered.filter { !Self.neverRead.contains($0) && !Self.secretMarkers.contains($0) }
        var order: [String] = []
        func take(_ name: String) {
            if let index = remaining.firstIndex(of: name) { order.append(name); remaining.remove(at: index) }
        }
        func drop(_ names: [String]) { remaining.removeAll { names.contains($0) } }

        if let text = Self.textPreference.first(where: remaining.contains) { take(text) }
        drop(PasteboardType.textFamily.map(\.rawValue))
        take(PasteboardType.html.rawValue)
        if let rtf = PasteboardType.rtfFamily.map(\.rawValue).first(where: remaining.contains) { take(rtf) }
        drop(PasteboardType.rtfFamily.map(\.rawValue))
        take(PasteboardType.flatRTFD.rawValue)
        if remaining.contains(PasteboardType.png.rawValue) {
            take(PasteboardType.png.rawValue)
        } else {
            for image in remaining.filter({ $0.hasPrefix("image/") }) { take(image) }
        }
        take(PasteboardType.uriList.rawValue)
        take("x-special/gnome-copied-files")
        return order + remaining
    }

    /// The cap for one target.
    public func cap(for type: String) -> Int {
        if type.hasPrefix("image/") { return imageCap }
        if PasteboardType(type).isText || type.hasPrefix("text/") { return textCap }
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
