// SPDX-License-Identifier: Apache-2.0
/// The name of a pasteboard, which is the name of the X selection that carries it.
/// `general` is CLIPBOARD and `primary` is PRIMARY; any other valid name is a named pasteboard.
public struct PasteboardName: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    public static let general = PasteboardName(rawValue: "CLIPBOARD")
    public static let primary = PasteboardName(rawValue: "PRIMARY")
    public static let secondary = PasteboardName(rawValue: "SECONDARY")

    /// The selections X itself defines; they cannot be created or removed as named pasteboards.
    public static let standard: [PasteboardName] = [.general, .primary, .secondary]
    public var isStandard: Bool { Self.standard.contains(self) }

    /// Validates a user-supplied name: not empty, no NUL or control characters, at most `PasteboardLimits.maximumPasteboardNameLength` bytes.
    /// `general`, `clipboard` and `primary` (any case) and macOS's `-pboard general` spellings map to
    /// the standard selections.
    public static func named(_ name: String) -> PasteboardName? {
        switch name.lowercased() {
        case "general", "clipboard", "c", "b": return .general
        case "primary", "p": return .primary
        case "secondary", "s": return .secondary
        default: break
        }
        guard !name.isEmpty, name.utf8.count <= PasteboardLimits.maximumPasteboardNameLength,
              !name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else { return nil }
        return PasteboardName(rawValue: name)
    }

    /// The prefix of the root-window property (CARDINAL/32) in which pasteboardd publishes a pasteboard's
    /// changeCount: `_PASTEBOARD_CHANGE_COUNT_CLIPBOARD`.
    public static let changeCountPropertyPrefix = "_PASTEBOARD_CHANGE_COUNT_"
}
