// SPDX-License-Identifier: Apache-2.0
/// A representation a peer offered that was not kept, and why.
///
/// What a peer sends is judged piece by piece (STYLE.md, habit 14): a type whose name breaks a rule, a
/// value over its cap, a reply of the wrong kind, a picture that cannot be read costs only itself, and the
/// rest of the copy is kept. Every place a peer's data becomes an item (snapshots, SAVE_TARGETS, `pb copy`,
/// the control protocol, history restore) reports what it left out as these, for one log line per change.
public struct SkippedRepresentation: Error, Hashable, Sendable, CustomStringConvertible {
    /// The type as the peer named it (possibly a name no item may carry).
    public var type: PasteboardType
    /// Why it was not kept, as a phrase: "the owner does not offer that type", "is 1000 bytes, more than 255".
    public var reason: String

    public init(_ type: PasteboardType, _ reason: String) {
        self.type = type
        self.reason = reason
    }

    /// "TYPE: reason", the type shortened as `PasteboardType.logName` does (never content).
    public var description: String { "\(type.logName): \(reason)" }
}

extension [SkippedRepresentation] {
    /// The skipped types and reasons in one line: the first `limit` of them, then how many more.
    public func summary(limit: Int = 8) -> String {
        let shown = prefix(limit).map(\.description).joined(separator: "; ")
        return count > limit ? shown + "; and \(count - limit) more" : shown
    }
}

extension PasteboardItem {
    /// The item made of every representation of `representations` that can be kept, in their order, and
    /// the others with their reasons: a type whose name breaks a rule (`PasteboardType.nameProblem`), a
    /// type given again (its first representation is kept), and every representation after the first
    /// `PasteboardLimits.maximumRepresentationsPerItem` kept. `item` is nil when none can be kept.
    ///
    /// This is how a peer's data becomes an item; `init(_:)`, which refuses the whole, is for a program's
    /// own items, where a broken rule is the caller's mistake to be told of.
    public static func keeping(_ representations: [Representation]) -> (item: PasteboardItem?, skipped: [SkippedRepresentation]) {
        let (kept, skipped) = keptIndices(of: representations)
        guard !kept.isEmpty else { return (nil, skipped) }
        do {
            return (try PasteboardItem(kept.map { representations[$0] }), skipped)
        } catch {
            preconditionFailure("representations kept by the rules of an item make no item: \(error)")
        }
    }

    /// The indices of the representations `keeping(_:)` keeps, in order, and the others with their reasons.
    /// `knownProblems` are reasons the caller found before (a name that was not UTF-8, by index): those
    /// representations are left out for them.
    public static func keptIndices(of representations: [Representation], knownProblems: [Int: String] = [:])
        -> (kept: [Int], skipped: [SkippedRepresentation]) {
        var kept: [Int] = []
        var skipped: [SkippedRepresentation] = []
        var seen = Set<PasteboardType>()
        for (index, representation) in representations.enumerated() {
            if let problem = knownProblems[index] {
                skipped.append(SkippedRepresentation(representation.type, problem))
            } else if let problem = representation.type.nameProblem {
                skipped.append(SkippedRepresentation(representation.type, "its name \(problem)"))
            } else if seen.contains(representation.type) {
                skipped.append(SkippedRepresentation(representation.type, "given twice; the first is kept"))
            } else if kept.count == PasteboardLimits.maximumRepresentationsPerItem {
                skipped.append(SkippedRepresentation(representation.type,
                                                     "an item holds at most \(PasteboardLimits.maximumRepresentationsPerItem) representations"))
            } else {
                seen.insert(representation.type)
                kept.append(index)
            }
        }
        return (kept, skipped)
    }
}
