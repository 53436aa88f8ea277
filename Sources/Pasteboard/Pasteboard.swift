@_exported import PasteboardCore
import ControlProtocol
import Selection
import XTypes
import SystemSupport
import XClient

/// Errors the library throws, each saying what failed.
public enum PasteboardError: Error, Equatable, Sendable, CustomStringConvertible {
    /// pasteboardd is not running (writes, counts and change notifications need it).
    case daemonNotRunning(String)
    /// The pasteboard has no owner.
    case empty
    /// The owner does not offer the type.
    case typeNotPresent(PasteboardType)
    /// The owner or the daemon did not answer in time.
    case timedOut
    /// The X display could not be opened or was lost.
    case display(String)
    /// No such named pasteboard (and `create` was false).
    case noSuchPasteboard(String)
    /// The daemon refused the request.
    case refused(String)

    public var description: String {
        switch self {
        case .daemonNotRunning(let why): why
        case .empty: "the pasteboard is empty"
        case .typeNotPresent(let type): "the pasteboard does not offer \(type)"
        case .timedOut: "timed out"
        case .display(let why): why
        case .noSuchPasteboard(let name): "no pasteboard named \(name)"
        case .refused(let why): why
        }
    }
}

/// One change of a pasteboard, as `waitForChange` reports it.
public struct PasteboardChange: Equatable, Sendable {
    public var changeCount: UInt64
    /// `data` (new content from pasteboardd), `sensitive`, `clear`, `foreign` (another application
    /// took it), `empty` (its owner went away).
    public var state: String
    /// The types, when pasteboardd serves the content.
    public var types: [PasteboardType]
}

/// A pasteboard: the general one (CLIPBOARD), primary (PRIMARY), or a named one (the X selection of
/// that name), in the spirit of UIPasteboard and NSPasteboard.
///
/// Reading (`types`, `data(forType:)`) goes to the X selection directly and works whoever owns it;
/// writing, counting and waiting for changes go through pasteboardd. One write with every
/// representation is one change. Use an instance from one thread at a time.
///
/// ```swift
/// import Pasteboard
/// let board = Pasteboard.general
/// try board.setItems([PasteboardItem([(.utf8PlainText, Array("hello".utf8)), (.html, Array("<b>hello</b>".utf8))])])
/// let html = try board.data(forType: .html)
/// ```
public final class Pasteboard {
    public let name: PasteboardName
    /// How long reads wait for the owner, in milliseconds.
    public var timeoutMilliseconds = 5000
    private let environment: [String: String]
    private var reader: SelectionReader?
    private var client: DaemonClient?

    /// The general pasteboard (CLIPBOARD).
    public static var general: Pasteboard { Pasteboard(name: .general) }
    /// The primary selection (PRIMARY).
    public static var primary: Pasteboard { Pasteboard(name: .primary) }

    public init(name: PasteboardName, environment: [String: String] = Environment.all) {
        self.name = name
        self.environment = environment
    }

    /// A named pasteboard, as `UIPasteboard(name:create:)`: with `create`, pasteboardd starts serving it
    /// (persistently across restarts with `persistent`); without, it must already exist.
    public convenience init(name: String, create: Bool, persistent: Bool = false,
                            environment: [String: String] = Environment.all) throws(PasteboardError) {
        guard let validName = PasteboardName.named(name) else { throw .refused("invalid pasteboard name '\(name)'") }
        self.init(name: validName, environment: environment)
        if validName.isStandard { return }
        if create {
            _ = try request(.createPasteboard(name: validName.rawValue, persistent: persistent))
        } else {
            guard case .pasteboards(let all) = try request(.pasteboards),
                  all.contains(where: { $0.name == validName.rawValue }) else {
                throw .noSuchPasteboard(name)
            }
        }
    }

    // MARK: - Counting and waiting

    /// The number of changes so far: +1 per write, clear, or change by another application.
    public var changeCount: UInt64 {
        get throws(PasteboardError) {
            guard case .changeCount(_, let count) = try request(.changeCount(pasteboard: name.rawValue)) else {
                throw .refused("unexpected answer")
            }
            return count
        }
    }

    /// Blocks until the pasteboard changes (no polling: pasteboardd pushes the event), or the timeout.
    public func waitForChange(timeoutMilliseconds: Int? = nil) throws(PasteboardError) -> PasteboardChange {
        let watcher = try connect(fresh: true)
        do {
            _ = try watcher.send(.watch(pasteboards: [name.rawValue]))
            let deadline = timeoutMilliseconds.map { SystemClock().now() + .milliseconds($0) }
            while true {
                if case .changed(let board, let count, let types, let state) = try watcher.receive(deadline: deadline),
                   board == name.rawValue {
                    return PasteboardChange(changeCount: count, state: state, types: types.map(PasteboardType.init(rawValue:)))
                }
            }
        } catch {
            throw Self.translate(error)
        }
    }

    // MARK: - Writing

    /// Replaces the content with `items`: one change, whatever the number of items and types.
    /// `sensitive` content is served but never stored, logged or restored.
    @discardableResult
    public func setItems(_ items: [PasteboardCore.PasteboardItem], sensitive: Bool = false) throws(PasteboardError) -> UInt64 {
        try countFrom(request(.setItems(pasteboard: name.rawValue, items: try wire(items), options: sensitive ? [.sensitive] : [])))
    }

    /// Appends `items` to the content pasteboardd holds: one change per call.
    @discardableResult
    public func addItems(_ items: [PasteboardCore.PasteboardItem]) throws(PasteboardError) -> UInt64 {
        try countFrom(request(.addItems(pasteboard: name.rawValue, items: try wire(items))))
    }

    /// Empties the pasteboard: one change.
    @discardableResult
    public func clear() throws(PasteboardError) -> UInt64 {
        try countFrom(request(.clear(pasteboard: name.rawValue)))
    }

    // MARK: - Reading

    /// The types on offer (the owner's X targets, without the protocol's TARGETS, TIMESTAMP, MULTIPLE).
    public var types: [PasteboardType] {
        get throws(PasteboardError) {
            let (reader, selection) = try x()
            do {
                let protocolTargets: Set<String> = ["TARGETS", "TIMESTAMP", "MULTIPLE", "SAVE_TARGETS", "DELETE",
                                                     "INSERT_SELECTION", "INSERT_PROPERTY"]
                return try reader.targets(selection, timeoutMilliseconds: timeoutMilliseconds)
                    .filter { !protocolTargets.contains($0) }.map(PasteboardType.init(rawValue:))
            } catch {
                throw Self.translate(error)
            }
        }
    }

    /// The bytes for `type` (a target carrying the same data is taken if `type` itself is missing:
    /// `UTF8_STRING` for `text/plain;charset=utf-8`, `application/rtf` for `text/rtf`...), or nil when
    /// the owner offers none of them. Text comes back as UTF-8 whatever target carried it.
    public func data(forType type: PasteboardType) throws(PasteboardError) -> [UInt8]? {
        // Content pasteboardd holds comes straight from it: the same bytes without the X transfer.
        if let held = DaemonClient.readHeld(pasteboard: name.rawValue, types: type.equivalents.map(\.rawValue),
                                            environment: environment, timeoutMilliseconds: timeoutMilliseconds) {
            return held.bytes
        }
        let (reader, selection) = try x()
        let textAtoms = TextTargets(atoms: reader.x.atoms)
        for candidate in type.equivalents {
            do {
                let value = try reader.read(selection, target: reader.x.intern(candidate.rawValue),
                                            timeoutMilliseconds: timeoutMilliseconds)
                if candidate.isText {
                    return textAtoms.utf8(from: value, decodeCompoundText: reader.x.utf8(fromCompoundText:))
                }
                return value.bytes
            } catch .refused {
                continue
            } catch {
                throw Self.translate(error)
            }
        }
        return nil
    }

    /// True when the pasteboard offers any of `types`.
    public func contains(types wanted: [PasteboardType]) throws(PasteboardError) -> Bool {
        let offered = Set(try types)
        return wanted.contains { !offered.isDisjoint(with: $0.equivalents) }
    }

    /// The items. When pasteboardd holds the content these are the items as written; when another
    /// application owns the pasteboard there is one item, with every type it offers (read now).
    public var items: [PasteboardCore.PasteboardItem] {
        get throws(PasteboardError) {
            do {
                if case .items(let items) = try request(.items(pasteboard: name.rawValue)) {
                    return try items.map { item throws(PasteboardError) in
                        do { return try PasteboardCore.PasteboardItem(item.representations.map { (PasteboardType($0.type), $0.data) }) } catch {
                            throw .refused("\(error)")
                        }
                    }
                }
            } catch .refused, .daemonNotRunning {
                // Not held by the daemon: read the owner's targets.
            }
            var item = PasteboardCore.PasteboardItem()
            for type in try types where !Self.unreadable.contains(type.rawValue) {
                if let data = try data(forType: type) { try? item.add(type, data) }
            }
            return item.representations.isEmpty ? [] : [item]
        }
    }

    /// The items at `indexes`, as `items` numbers them.
    public func items(at indexes: some Sequence<Int>) throws(PasteboardError) -> [PasteboardCore.PasteboardItem] {
        let all = try items
        return indexes.filter { all.indices.contains($0) }.map { all[$0] }
    }

    /// The bytes for `type` in each item at `indexes` that has it, as `data(forType:inItemSet:)`.
    public func data(forType type: PasteboardType, inItemSet indexes: some Sequence<Int>) throws(PasteboardError) -> [[UInt8]] {
        try items(at: indexes).compactMap { item in type.equivalents.lazy.compactMap { item.data(for: $0) }.first }
    }

    /// True when any item at `indexes` has any of `types`.
    public func contains(types wanted: [PasteboardType], inItemSet indexes: some Sequence<Int>) throws(PasteboardError) -> Bool {
        try items(at: indexes).contains { item in wanted.contains { type in type.equivalents.contains { item.data(for: $0) != nil } } }
    }

    /// Targets that are not data: in-process pointers and side effects.
    static let unreadable: Set<String> = ["GTK_TEXT_BUFFER_CONTENTS", "SAVE_TARGETS", "DELETE", "INSERT_SELECTION", "INSERT_PROPERTY"]

    // MARK: - Plumbing

    private func x() throws(PasteboardError) -> (SelectionReader, Atom) {
        if reader == nil {
            do { reader = SelectionReader(x: try XConnection(displayName: environment["DISPLAY"])) } catch {
                throw .display("\(error)")
            }
        }
        return (reader!, reader!.x.intern(name.rawValue))
    }

    private func connect(fresh: Bool = false) throws(PasteboardError) -> DaemonClient {
        if !fresh, let client { return client }
        do {
            let connection = try DaemonClient(environment: environment)
            if !fresh { client = connection }
            return connection
        } catch {
            throw Self.translate(error)
        }
    }

    private func request(_ request: ControlRequest) throws(PasteboardError) -> ControlResponse {
        do { return try connect().send(request) } catch {
            client = nil
            throw Self.translate(error)
        }
    }

    private func countFrom(_ response: ControlResponse) throws(PasteboardError) -> UInt64 {
        guard case .changeCount(_, let count) = response else { throw .refused("unexpected answer") }
        return count
    }

    private func wire(_ items: [PasteboardCore.PasteboardItem]) throws(PasteboardError) -> [ControlProtocol.PasteboardItem] {
        do {
            return try items.map { try ControlProtocol.PasteboardItem($0.representations.map { (type: $0.type.rawValue, data: $0.data) }) }
        } catch {
            throw .refused("\(error)")
        }
    }

    static func translate(_ error: any Error) -> PasteboardError {
        switch error {
        case let error as PasteboardError: return error
        case DaemonClientError.notRunning: return .daemonNotRunning("\(error)")
        case DaemonClientError.timedOut: return .timedOut
        case let DaemonClientError.daemon(_, message):
            return .refused(message)
        case SelectionReadError.empty: return .empty
        case SelectionReadError.timedOut: return .timedOut
        case SelectionReadError.connectionLost: return .display("the X connection was lost")
        default: return .refused("\(error)")
        }
    }
}
