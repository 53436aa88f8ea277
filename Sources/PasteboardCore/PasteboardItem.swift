import Selection
import XTypes

/// One item on a pasteboard: the same content in several representations, each a type and its bytes.
/// Order is the owner's preference; a type appears at most once.
public struct PasteboardItem: Equatable, Sendable {
    public private(set) var representations: [(type: PasteboardType, data: [UInt8])]

    public init() { representations = [] }

    /// - Throws: `PasteboardItemError.duplicateType` when a type repeats.
    public init(_ representations: [(type: PasteboardType, data: [UInt8])]) throws(PasteboardItemError) {
        self.representations = []
        for (type, data) in representations { try add(type, data) }
    }

    /// Adds a representation; a type may be added once.
    public mutating func add(_ type: PasteboardType, _ data: [UInt8]) throws(PasteboardItemError) {
        if representations.contains(where: { $0.type == type }) { throw .duplicateType(type) }
        representations.append((type, data))
    }

    public var types: [PasteboardType] { representations.map(\.type) }
    public func data(for type: PasteboardType) -> [UInt8]? { representations.first { $0.type == type }?.data }
    public var byteCount: Int { representations.reduce(0) { $0 + $1.data.count } }

    public static func == (a: PasteboardItem, b: PasteboardItem) -> Bool {
        a.representations.count == b.representations.count
            && zip(a.representations, b.representations).allSatisfy { $0.type == $1.type && $0.data == $1.data }
    }
}

public enum PasteboardItemError: Error, Equatable, Sendable, CustomStringConvertible {
    case duplicateType(PasteboardType)
    public var description: String {
        switch self { case .duplicateType(let t): "type \(t) given twice in one item" }
    }
}

/// What a pasteboard holds: items, and whether the content is secret.
///
/// X peers see one selection: the union of the items' types, where the first item that has a type
/// provides it; `text/uri-list` is the exception and joins the URIs of every item.
public struct PasteboardContent: Equatable, Sendable {
    public var items: [PasteboardItem]
    /// Secret content is served while owned and never stored, logged or restored.
    public var isSensitive: Bool

    public init(items: [PasteboardItem], isSensitive: Bool = false) {
        self.items = items
        self.isSensitive = isSensitive
    }

    /// The union of the items' types, in order of first appearance.
    public var types: [PasteboardType] {
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

    /// The plain text of the first item that carries any text target, as UTF-8 (`STRING` is Latin-1
    /// and is decoded), with the type it came from. `COMPOUND_TEXT` is not decoded here (it needs Xlib).
    public var utf8Text: (type: PasteboardType, bytes: [UInt8])? {
        for item in items {
            for (type, data) in item.representations where type.isText && type != .compoundText {
                return (type, type == .string ? Latin1.decode(data) : data)
            }
        }
        return nil
    }

    public var byteCount: Int { items.reduce(0) { $0 + $1.byteCount } }
}
