import PasteboardCore
import Selection

/// Content the daemon owns a selection for, as X peers see it: target atoms in order, and how each
/// target's value is produced (the original bytes when the source gave that type, else derived).
/// Derived values are produced on first request and cached for the life of this content.
final class ServedContent {
    let content: PasteboardContent
    let acquiredAt: Timestamp
    /// Every target listed in TARGETS (besides TARGETS, TIMESTAMP and MULTIPLE), in order.
    let offered: [Atom]
    private let typeByAtom: [Atom: PasteboardType]
    private var cache: [Atom: PropertyValue] = [:]

    /// - Parameter intern: interns a list of names in one round trip.
    init(content: PasteboardContent, acquiredAt: Timestamp, atoms: StandardAtoms, intern: ([String]) -> [Atom]) {
        self.content = content
        self.acquiredAt = acquiredAt
        var names: [String] = []
        var addedText = false
        for type in content.types {
            if type.isText {
                if !addedText { names += PasteboardType.textFamily.map(\.rawValue); addedText = true }
            } else {
                names.append(type.rawValue)
            }
        }
        let atomsList = intern(names)
        offered = atomsList
        var map: [Atom: PasteboardType] = [:]
        for (atom, name) in zip(atomsList, names) { map[atom] = PasteboardType(name) }
        typeByAtom = map
    }

    /// The value for `target`, or nil if it is not offered or cannot be produced.
    func value(for target: Atom, textTargets: TextTargets, compoundText: ([UInt8]) -> PropertyValue?) -> PropertyValue? {
        if let cached = cache[target] { return cached }
        guard let type = typeByAtom[target] else { return nil }
        let value: PropertyValue?
        if let data = content.data(for: type) {
            // The source gave this type: its bytes exactly, typed as the target (TEXT is typed by content).
            value = type == .text ? textTargets.value(for: target, utf8: data, compoundText: compoundText)
                                  : PropertyValue(type: target, bytes: data)
        } else if type.isText, let (sourceType, bytes) = content.utf8Text {
            let utf8 = sourceType == .string ? Latin1.decode(bytes) : bytes
            value = textTargets.value(for: target, utf8: utf8, compoundText: compoundText)
        } else {
            value = nil
        }
        // Only derived values are worth caching; original bytes are already held.
        if let value, content.data(for: type) == nil { cache[target] = value }
        return value
    }
}
