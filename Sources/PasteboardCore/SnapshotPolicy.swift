// SPDX-License-Identifier: Apache-2.0
import Images
import Selection

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

    public init(textCap: Int = 64 << 20, imageCap: Int = 64 << 20, otherCap: Int = 64 << 20, snapshotCap: Int = 256 << 20) {
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
        "org.nspasteboard.ConcealedType", Self.transientMarker, "application/x-nspasteboard-concealed-type",
    ]
    /// nspasteboard.org's marker of content that will be removed soon: clipboard managers do not record it.
    public static let transientMarker = "org.nspasteboard.TransientType"
    /// KDE's hint, whose value says whether the content is secret (`isSecretHint`).
    public static let passwordManagerHint = "x-kde-passwordManagerHint"
    /// Every marker by which password managers ask clipboard managers to keep their content out of history.
    public static let secretMarkers: Set<String> = concealedMarkers.union([passwordManagerHint])

    /// The most targets of one TARGETS list a snapshot looks up and considers (real owners offer 5 to 30);
    /// the rest are left out with that reason, so a hostile list of 200,000 atoms costs no more than 1,024
    /// names looked up.
    public static let maximumOfferedTargets = 1024

    /// The targets of `offered` that name content an item may carry, each once, in order: not the protocol's
    /// own and the others never read, not a name no item may carry (left out with its reason).
    public static func contentTargets(offered: [String]) -> (names: [String], skipped: [SkippedRepresentation]) {
        var skipped: [SkippedRepresentation] = []
        var seen: Set<String> = []
        var names: [String] = []
        for name in offered where !neverRead.contains(name) && seen.insert(name).inserted {
            if let problem = PasteboardType(name).nameProblem {
                skipped.append(SkippedRepresentation(PasteboardType(name), "its name \(problem)"))
            } else {
                names.append(name)
            }
        }
        return (names, skipped)
    }

    /// What to read from an owner offering `offered`, in order, as groups of targets that carry the same
    /// data: one plain text (the others are derived when served), HTML, one of the RTF aliases, flat RTFD,
    /// one picture (PNG if offered, else the first of the image rows: TIFF, BMP, WebP, GIF, JPEG), URI
    /// lists, one of GNOME's and MATE's copied-files targets, KDE's cut marker, then every other target.
    /// Of each group the first target is read, and the next only when that one could not be kept for a
    /// reason of its own (`SnapshotPlan.Group`). Targets whose names no item may carry are left out at once
    /// with their reasons (`SnapshotPlan.skipped`); a target offered twice is read once.
    public func readingPlan(offered: [String], table: ConversionTable = .standard) -> SnapshotPlan {
        var (remaining, skipped) = Self.contentTargets(offered: offered)
        remaining.removeAll(where: Self.secretMarkers.contains)
        var groups: [SnapshotPlan.Group] = []
        /// The offered members of `names`, in that order, as one group (none when none is offered).
        func take(_ names: [PasteboardType]) {
            let offered = names.map(\.rawValue).filter(remaining.contains)
            remaining.removeAll { names.contains(PasteboardType($0)) }
            if !offered.isEmpty { groups.append(SnapshotPlan.Group(offered)) }
        }
        let text = table.members(of: .plainText)
        let readable = text.filter { table.row(of: $0)?.readBySnapshots == true }
        remaining.removeAll { text.contains(PasteboardType($0)) && !readable.contains(PasteboardType($0)) }
        take(readable)
        take([.html])
        take(table.aliases(of: .rtf))
        take([.flatRTFD])
        // One picture: the first of the image family in the table's order (lossless first); the daemon
        // derives the others when it serves the content. Image types the table does not know are read as they are.
        let images = table.members(of: .image)
        if images.contains(where: { remaining.contains($0.rawValue) }) {
            take(images)
        } else {
            for image in remaining.filter({ $0.hasPrefix("image/") }) { take([PasteboardType(image)]) }
        }
        take([.uriList])
        take(table.aliases(of: .gnomeCopiedFiles))
        take([.kdeCutSelection])
        for name in remaining { groups.append(SnapshotPlan.Group([name])) }
        return SnapshotPlan(groups: groups, skipped: skipped)
    }

    /// What a snapshot keeps of an owner's answer for `target`.
    ///
    /// - `bytes` nil (16- or 32-bit items): left out, nothing an item can hold.
    /// - Plain text answered as another encoding of the family (`STRING` bytes for `UTF8_STRING`) is kept
    ///   under the type its bytes are in; answered as a type of no text encoding, it is left out.
    /// - A picture of a format the table converts: one in another format than its target names (JPEG bytes
    ///   as `image/png`) is kept under its own; one whose header does not read (`ImageHeader`) is kept as
    ///   given, but no other picture type is made from it, and the next format of its group is read too.
    /// - Anything else is kept as it came, under the target's name.
    public func keep(target: String, replyType: String?, bytes: [UInt8]?, format: Int,
                     table: ConversionTable = .standard) -> ReplyVerdict {
        let type = PasteboardType(target)
        guard let bytes else {
            return .leaveOut(SkippedRepresentation(type, "the owner answered with \(format)-bit items, not bytes"))
        }
        switch keptName(target: target, replyType: replyType, table: table) {
        case .named(let kept):
            return .keep(Representation(type: kept, data: bytes))
        case .leftOut(let skipped):
            return .leaveOut(skipped)
        case .picture(let named):
            if let problem = PasteboardContent.pictureProblem(bytes) {
                return .keepAsGiven(Representation(type: type, data: bytes), SkippedRepresentation(type, problem))
            }
            let format = ImageFormat.sniff(bytes) ?? named
            return .keep(Representation(type: format == named ? type : PasteboardType(format.mimeType), data: bytes))
        }
    }

    /// What `keep` does with an answer for `target` of type `replyType`, as far as it is decided before the bytes
    /// are looked at.
    public enum KeptName: Equatable, Sendable {
        /// Kept under this type whatever the bytes (text under the encoding it came in, anything else as given).
        case named(PasteboardType)
        /// A picture of a format pasteboard reads: its header is checked and its format sniffed (`keep`).
        case picture(ImageFormat)
        /// Not kept, whatever the bytes.
        case leftOut(SkippedRepresentation)
    }

    /// `keep`'s decision for `target` answered as `replyType` (nil: a Wayland read, named by the target alone),
    /// without the bytes: what decides whether a value can go to a file as it is read (`.named`).
    public func keptName(target: String, replyType: String?, table: ConversionTable = .standard) -> KeptName {
        let type = PasteboardType(target)
        switch table.row(of: type)?.family {
        case .plainText?:
            guard let replyType, replyType != target else { return .named(type) }
            guard let reply = table.row(of: PasteboardType(replyType)), reply.family == .plainText else {
                return .leftOut(SkippedRepresentation(type, "the owner answered with data of type \(PasteboardType(replyType).logName), not text"))
            }
            // The same encoding under another name (UTF8_STRING for text/plain;charset=utf-8), or TEXT: the target's.
            if reply.format == .ownerChosenText || reply.format == table.row(of: type)?.format { return .named(type) }
            return .named(reply.type)
        case .image?:
            return ImageFormat(mimeType: target).map(KeptName.picture) ?? .named(type)
        default:
            return .named(type)
        }
    }

    /// True when `keep` keeps whatever bytes `target` is read as under its own name, as they are (no reply type: a
    /// Wayland read): a representation that can be kept without its bytes being looked at, so read straight into a
    /// file. A picture of a format pasteboard reads is not: its header is checked and its format sniffed.
    public func keepsBytesAsRead(target: String, table: ConversionTable = .standard) -> Bool {
        keptName(target: target, replyType: nil, table: table) == .named(PasteboardType(target))
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
        let text = String(decoding: value.prefix(16), as: UTF8.self).trimmed { $0 == " " || $0 == "\n" || $0 == "\0" }
        return text == "secret" || text == "1"
    }
}

/// The last reading plans made, kept for the next reads (`SnapshotPolicy.readingPlan` is a pure function of the policy
/// and the names offered, and costs tens of thousands of instructions): an application copies again with the same
/// names, and a reader on another display asks the owner for one target after another (a fetch's plan is for the one
/// target asked), so the `capacity` most recent are kept, the one used last first — those of at most
/// `maximumNameBytes` of names (an owner chooses its names: 256 of 64 KiB would be kept eight times over).
public struct ReadingPlanCache: Sendable {
    /// How many plans are kept.
    public static let capacity = 8
    /// The longest list of names (in bytes of UTF-8) whose plan is kept; a longer one's is made each time.
    public static let maximumNameBytes = 8 << 10
    private var recent: [(policy: SnapshotPolicy, names: [String], plan: SnapshotPlan)] = []
    /// How many plans were made rather than found (for tests).
    public private(set) var made = 0

    public init() {}

    /// `policy.readingPlan(offered: names)`, made only when no kept plan is for this policy and these names.
    public mutating func plan(_ policy: SnapshotPolicy, offered names: [String]) -> SnapshotPlan {
        if let index = recent.firstIndex(where: { $0.names == names && $0.policy == policy }) {
            let found = recent.remove(at: index)
            recent.insert(found, at: 0)
            return found.plan
        }
        let plan = policy.readingPlan(offered: names)
        made += 1
        guard names.reduce(0, { $0 + $1.utf8.count }) <= Self.maximumNameBytes else { return plan }
        recent.insert((policy, names, plan), at: 0)
        if recent.count > Self.capacity { recent.removeLast() }
        return plan
    }
}

/// What a snapshot of one owner reads (`SnapshotPolicy.readingPlan(offered:)`).
public struct SnapshotPlan: Equatable, Sendable {
    /// Targets that carry the same data (the plain-text encodings, the RTF aliases, the picture formats),
    /// in the order they are tried: the first is read; the next only when the one before could not be kept
    /// for a reason of its own (`SnapshotPlan.triesNext(after:)`).
    public struct Group: Equatable, Sendable {
        public var targets: [String]
        public init(_ targets: [String]) { self.targets = targets }
    }

    public var groups: [Group]
    /// Offered targets left out before anything is read, with their reasons.
    public var skipped: [SkippedRepresentation]

    /// Whether a target that failed this way is worth trying another of its group for: yes when the owner
    /// refused it, broke the protocol or sent what cannot be kept; no when it was too large (its aliases are
    /// as large), slow (the next would be too) or abandoned.
    public static func triesNext(after failure: SelectionReadFailure) -> Bool {
        switch failure {
        case .refused, .malformed: true
        case .tooLarge, .timedOut, .abandoned: false
        }
    }
}

/// What a snapshot does with an owner's answer (`SnapshotPolicy.keep`).
public enum ReplyVerdict: Equatable, Sendable {
    /// Kept: its group is done.
    case keep(Representation)
    /// Kept as given, but it cannot stand for its group (a picture whose header does not read: no other
    /// picture type is made from it), for the reason given: the next target of the group is read too.
    case keepAsGiven(Representation, SkippedRepresentation)
    /// Not kept, for the reason given; the next target of the group is read instead.
    case leaveOut(SkippedRepresentation)
}
