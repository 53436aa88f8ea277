// SPDX-License-Identifier: Apache-2.0
import XTypes

/// One representation of an item: a type and its bytes, never re-encoded.
///
/// The bytes are in memory, or — for large content the daemon holds that is also on disk — in a file
/// (`ByteSource`), read when they are needed: `source` says which, `byteCount` costs nothing either way, and
/// `data` reads a source's bytes (a failed read gives no bytes: whoever must tell a failure from an empty
/// value reads through `bytes()`). Two representations are equal when their types and bytes are.
public struct Representation: Hashable, Sendable {
    public var type: PasteboardType
    private var storage: Storage

    private enum Storage: Sendable {
        case bytes([UInt8])
        case source(any ByteSource)
    }

    public init(type: PasteboardType, data: [UInt8]) {
        self.type = type
        self.storage = .bytes(data)
    }

    /// A representation whose bytes stay in `source` until they are read.
    public init(type: PasteboardType, source: any ByteSource) {
        self.type = type
        self.storage = .source(source)
    }

    /// The bytes (read from the source, if there is one; nothing when that read fails). Setting them puts
    /// them in memory.
    public var data: [UInt8] {
        get { (try? bytes()) ?? [] }
        set { storage = .bytes(newValue) }
    }

    /// The bytes, from memory or read from the source (which may throw).
    public func bytes() throws -> [UInt8] {
        switch storage {
        case .bytes(let bytes): bytes
        case .source(let source): try source.read(0..<source.count)
        }
    }

    /// How many bytes, without reading a source.
    public var byteCount: Int {
        switch storage {
        case .bytes(let bytes): bytes.count
        case .source(let source): source.count
        }
    }

    /// The source the bytes stay in, or nil when they are in memory.
    public var source: (any ByteSource)? {
        if case .source(let source) = storage { return source }
        return nil
    }

    public static func == (a: Representation, b: Representation) -> Bool {
        guard a.type == b.type, a.byteCount == b.byteCount else { return false }
        if let x = a.source, let y = b.source, x === y { return true }
        return a.data == b.data
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(type)
        hasher.combine(byteCount)
    }
}

/// One thing on a pasteboard, offered in one or more representations, in the owner's order of preference.
///
/// Every value is valid: 1 to `PasteboardLimits.maximumRepresentationsPerItem` representations with
/// distinct type names of 1 to `PasteboardLimits.maximumTypeNameLength` bytes of UTF-8 without NUL. The
/// same item is what the library writes, what the control protocol carries and what the daemon serves.
public struct PasteboardItem: Hashable, Sendable {
    /// The representations, in the order they were given.
    public let representations: [Representation]

    /// - Throws: `PasteboardItemError` when the representations break a rule above.
    public init(_ representations: [Representation]) throws(PasteboardItemError) {
        guard !representations.isEmpty else { throw .empty }
        guard representations.count <= PasteboardLimits.maximumRepresentationsPerItem else {
            throw .tooManyRepresentations(representations.count)
        }
        var seen = Set<PasteboardType>()
        for (index, representation) in representations.enumerated() {
            if let problem = representation.type.nameProblem { throw .invalidTypeName(index: index, reason: problem) }
            guard seen.insert(representation.type).inserted else { throw .duplicateType(representation.type) }
        }
        self.representations = representations
    }

    /// An item from `(type, data)` pairs, as `init(_:)`.
    public init(_ pairs: [(type: PasteboardType, data: [UInt8])]) throws(PasteboardItemError) {
        try self.init(pairs.map { Representation(type: $0.type, data: $0.data) })
    }

    /// The type names, in order.
    public var types: [PasteboardType] { representations.map(\.type) }
    /// The bytes offered for `type`, or nil.
    public func data(for type: PasteboardType) -> [UInt8]? { representations.first { $0.type == type }?.data }
    /// The representation of `type`, or nil.
    public func representation(for type: PasteboardType) -> Representation? { representations.first { $0.type == type } }
    /// Total bytes of data over all representations.
    public var byteCount: Int { representations.reduce(0) { $0 + $1.byteCount } }
}

/// Why representations do not make an item.
public enum PasteboardItemError: Error, Equatable, Sendable, CustomStringConvertible {
    case empty
    case tooManyRepresentations(Int)
    /// The type name at `index` breaks a rule.
    case invalidTypeName(index: Int, reason: String)
    case duplicateType(PasteboardType)

    public var description: String {
        switch self {
        case .empty: "an item needs at least one representation"
        case .tooManyRepresentations(let count):
            "an item has at most \(PasteboardLimits.maximumRepresentationsPerItem) representations, not \(count)"
        case .invalidTypeName(let index, let reason): "the type name of representation \(index) \(reason)"
        case .duplicateType(let type): "type \(type) given twice in one item"
        }
    }
}

/// What a pasteboard holds: items, and how the content may be kept.
///
/// X peers see one selection: the union of the items' types, where the first item that has a type
/// provides it; `text/uri-list` is the exception and joins the URIs of every item.
public struct PasteboardContent: Equatable, Sendable {
    public var items: [PasteboardItem]
    /// Secret content is served while owned and never stored, logged or restored.
    public var isSensitive: Bool
    /// Content that expires (`pb copy --expire`): served until then, never written to history or to the
    /// disk, so it is not kept across a restart.
    public var isTransient: Bool
    /// Content that never leaves this machine (`pb copy --local-only`): not served to remote clients or peers.
    public var isLocalOnly: Bool
    /// Who copied it (`ContentSource`), when known: kept with it through a takeover and in history.
    public var source: ContentSource?

    public init(items: [PasteboardItem], isSensitive: Bool = false, isTransient: Bool = false, isLocalOnly: Bool = false) {
        self.items = items
        self.isSensitive = isSensitive
        self.isTransient = isTransient
        self.isLocalOnly = isLocalOnly
    }

    /// Content that is kept only while it is served: secret or expiring.
    public var isKeptOnlyWhileServed: Bool { isSensitive || isTransient }

    /// The union of the items' types, in order of first appearance.
    public var types: [PasteboardType] {
        // One item's types are distinct already (`PasteboardItem.init`): most copies are one item, and asked often.
        if items.count == 1 { return items[0].types }
        var seen: Set<PasteboardType> = []
        return items.flatMap(\.types).filter { seen.insert($0).inserted }
    }

    /// The bytes X peers get for `type`: the first item that has it (joined URI lists for `text/uri-list`).
    public func data(for type: PasteboardType) -> [UInt8]? {
        if type == .uriList {
            let lists = items.compactMap { $0.data(for: .uriList) }
            guard lists.count > 1 else { return lists.first }
            var joined: [UInt8] = []
            for list in lists {
                joined += list
                if let last = list.last, last != 0x0A { joined += [0x0D, 0x0A] }
            }
            return joined
        }
        return items.lazy.compactMap { $0.data(for: type) }.first
    }

    /// The file the bytes X peers get for `type` stay in, when they are not in memory (`data(for:)` reads them).
    public func source(for type: PasteboardType) -> (any ByteSource)? {
        guard type != .uriList || items.filter({ $0.representation(for: .uriList) != nil }).count == 1 else { return nil }
        return items.lazy.compactMap { $0.representation(for: type) }.first?.source
    }

    /// True when `other` has the same items with the same types, in order, of the same sizes, and the same
    /// flags: the same content as far as can be told without reading the bytes.
    public func hasSameShape(as other: PasteboardContent) -> Bool {
        isSensitive == other.isSensitive && isTransient == other.isTransient && isLocalOnly == other.isLocalOnly
            && items.count == other.items.count
            && zip(items, other.items).allSatisfy { a, b in
                a.representations.count == b.representations.count
                    && zip(a.representations, b.representations).allSatisfy { $0.type == $1.type && $0.byteCount == $1.byteCount }
            }
    }

    /// True when some representation's bytes stay in a file.
    public var hasSources: Bool { items.contains { $0.representations.contains { $0.source != nil } } }

    public var byteCount: Int { items.reduce(0) { $0 + $1.byteCount } }
}

/// Every limit of the pasteboard model, in one place: the library, the control protocol and the daemon
/// check against these.
public enum PasteboardLimits {
    /// Representations (types) per item.
    public static let maximumRepresentationsPerItem = 64
    /// Items on one pasteboard (and in one message).
    public static let maximumItems = 1024
    /// Bytes of UTF-8 in a type name (a MIME type or an X atom name): the longest atom name X can carry
    /// (InternAtom's length is a CARD16), so that every target an X owner can offer fits. Real owners use
    /// long ones: LibreOffice's object descriptor names the document's path and size (300 bytes and more
    /// for a document a few directories deep). The control protocol and the archives carry a name with a
    /// u32 length, and a frame's own cap bounds the names of one message.
    public static let maximumTypeNameLength = 65535
    /// Bytes of UTF-8 in a pasteboard name.
    public static let maximumPasteboardNameLength = 255
    /// Pasteboards one daemon serves at once (CLIPBOARD and PRIMARY included).
    public static let maximumPasteboards = 64
    /// The most bytes one copy may carry: what one control message holds by default (320 MiB), less room
    /// for its framing. `pb copy` reads at most this much; the daemon refuses larger messages.
    public static let maximumCopyBytes = (320 << 20) - (1 << 20)
}
