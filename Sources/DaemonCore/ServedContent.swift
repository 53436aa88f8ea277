import PasteboardCore
import RichText
import Selection
import XTypes
import SystemSupport

/// Content the daemon owns a selection for, as X peers see it: target atoms in order, and how each
/// target's value is produced.
///
/// Every type the source gave is served as its original bytes. Whenever the content carries rich text
/// (flat RTFD, RTF, HTML) or plain text, the rich-text and plain-text targets it lacks are offered too,
/// derived from the richest representation present (RTFD > RTF > HTML > text). A derived value is
/// converted on its first request only and cached for the life of this content (one changeCount); a
/// conversion that fails is refused, never served as garbage.
final class ServedContent {
    let content: PasteboardContent
    let acquiredAt: Timestamp
    /// Every target listed in TARGETS (besides TARGETS, TIMESTAMP and MULTIPLE), in order.
    let offered: [Atom]
    private let typeByAtom: [Atom: PasteboardType]
    /// The representation derived targets are converted from.
    private let richest: (format: DocumentFormat, bytes: [UInt8])?
    private var cache: [Atom: PropertyValue] = [:]
    private var derivedDocuments: [DocumentFormat: [UInt8]?] = [:]
    /// Conversions that failed, with their reason, for the log (never content).
    private(set) var failures: [(PasteboardType, String)] = []

    /// The targets derived from rich or plain text, besides the text family.
    static let richTargets: [PasteboardType] = [.flatRTFD] + PasteboardType.rtfFamily + [.html]

    /// - Parameter intern: interns a list of names in one round trip.
    init(content: PasteboardContent, acquiredAt: Timestamp, atoms: StandardAtoms, intern: ([String]) -> [Atom]) {
        self.content = content
        self.acquiredAt = acquiredAt
        richest = Self.richestRepresentation(of: content)
        var types: [PasteboardType] = []
        var addedText = false
        for type in content.types {
            if type.isText {
                if !addedText { types += PasteboardType.textFamily; addedText = true }
            } else if !types.contains(type) {
                types.append(type)
            }
        }
        if richest != nil {
            for type in Self.richTargets where !types.contains(type) { types.append(type) }
            if !addedText { types += PasteboardType.textFamily }
        }
        let atomsList = intern(types.map(\.rawValue))
        offered = atomsList
        var map: [Atom: PasteboardType] = [:]
        for (atom, type) in zip(atomsList, types) { map[atom] = type }
        typeByAtom = map
    }

    /// The richest representation in the content: flat RTFD, then RTF (any of its targets), then HTML,
    /// then plain text (STRING decoded from Latin-1).
    static func richestRepresentation(of content: PasteboardContent) -> (format: DocumentFormat, bytes: [UInt8])? {
        if let rtfd = content.data(for: .flatRTFD) { return (.rtfd, rtfd) }
        for type in PasteboardType.rtfFamily { if let rtf = content.data(for: type) { return (.rtf, rtf) } }
        if let html = content.data(for: .html) { return (.html, html) }
        if let text = content.utf8Text { return (.txt, text.bytes) }
        return nil
    }

    /// The value for `target`, or nil if it is not offered or cannot be produced.
    func value(for target: Atom, textTargets: TextTargets, compoundText: ([UInt8]) -> PropertyValue?) -> PropertyValue? {
        if let cached = cache[target] { return cached }
        guard let type = typeByAtom[target] else { return nil }
        if let data = content.data(for: type), type != .text {
            // The source gave this type: its bytes exactly, under the requested name.
            return PropertyValue(type: target, bytes: data)
        }
        let value: PropertyValue?
        if type.isText {
            let utf8 = content.utf8Text?.bytes ?? document(.txt)
            value = utf8.flatMap { textTargets.value(for: target, utf8: $0, compoundText: compoundText) }
        } else if PasteboardType.rtfFamily.contains(type) {
            // LibreOffice and others put the same RTF under each of these names.
            let given = PasteboardType.rtfFamily.lazy.compactMap { self.content.data(for: $0) }.first
            value = (given ?? document(.rtf)).map { PropertyValue(type: target, bytes: $0) }
        } else if type == .html {
            value = document(.html).map { PropertyValue(type: target, bytes: $0) }
        } else if type == .flatRTFD {
            value = document(.rtfd).map { PropertyValue(type: target, bytes: $0) }
        } else {
            value = nil
        }
        if let value { cache[target] = value }
        return value
    }

    /// The richest representation converted to `format`, once.
    private func document(_ format: DocumentFormat) -> [UInt8]? {
        if let done = derivedDocuments[format] { return done }
        guard let richest else { return nil }
        var result: [UInt8]?
        do {
            result = try RichTextConverter.convert(richest.bytes, from: richest.format, to: format, codePages: IconvCodePages()).bytes
        } catch {
            failures.append((PasteboardType(format.rawValue), "\(error)"))
            result = nil
        }
        derivedDocuments[format] = .some(result)
        return result
    }
}

/// glibc's iconv decodes the double-byte code pages RichText has no tables for.
extension IconvCodePages: CodePageDecoder {}
