// SPDX-License-Identifier: Apache-2.0
@_exported import PasteboardCore
import ControlProtocol
import ImageCodecs
import Selection
import SystemSupport
import WaylandClient
import XClient
import XTypes

/// One change of a pasteboard, as `waitForChange` and `PasteboardWatcher` report it.
public struct PasteboardChange: Equatable, Sendable {
    public var pasteboard: PasteboardName
    public var changeCount: UInt64
    /// `data` (new content from pasteboardd), `sensitive`, `clear`, `foreign` (another application
    /// took it), `empty` (its owner went away), `removed` (the named pasteboard was removed), or `kept`
    /// (pasteboardd read another application's copy, told as `foreign` just before with the same count: its
    /// types, source and patterns are known now; not a new change).
    public var state: String
    /// The types, when pasteboardd serves the content (or, `kept`, read it).
    public var types: [PasteboardType]
    /// The content's picture (type, size, length), when pasteboardd holds one.
    public var image: ImageSummary? = nil
    /// Who copied it, when known: the application's window class or process name, and its process
    /// (NSPasteboard has no such thing; macOS 15.4 tells the user instead).
    public var source: ContentSource? = nil
    /// What the text is (`TextPatterns`: url, email, number, path), judged on its first 4 KiB; nil while
    /// unknown — another application's copy (`foreign`) until pasteboardd read it (`kept`), secret content, or a
    /// daemon older than this library.
    public var patterns: TextPatterns? = nil
}

/// One read of content pasteboardd serves, as `PasteboardReadWatcher` reports it (iOS's paste banner, done the
/// X11 way: X cannot stop a client from reading, but the daemon sees every reader of what it serves).
public struct PasteboardRead: Equatable, Sendable {
    public var pasteboard: PasteboardName
    /// The type the reader asked for (an X target, or what `pb paste` got).
    public var type: PasteboardType
    /// Who read it, when known (its window class or process name, and its process).
    public var reader: ContentSource?
    /// Milliseconds since 1970 (UTC).
    public var time: Int64
    /// Why pasteboardd refused it (`readPolicy`), or nil when it was served.
    public var refusal: String?
    /// `x` for an X client's request, `socket` for a control client's paste (pb, this library).
    public var via: String
}

/// How content written with `setItems(_:options:)` may be kept and served (UIPasteboard's `OptionsKey`s).
public struct PasteboardOptions: Equatable, Sendable {
    /// The pasteboard is cleared this long after the write (UIPasteboard's `expirationDate`), unless it
    /// changed meanwhile; expiring content is never written to history or kept across a restart, and is
    /// offered with `org.nspasteboard.TransientType` so other clipboard managers do not record it either.
    /// From 1 ms to 7 days.
    public var expiresAfter: Duration?
    /// The content never leaves this machine (UIPasteboard's `localOnly`): not through the remote socket
    /// nor to peer daemons.
    public var localOnly: Bool
    /// Passwords and the like: served but never stored, logged or restored, and marked for other managers.
    public var sensitive: Bool
    /// Serve one paste, then clear.
    public var pasteOnce: Bool

    public init(expiresAfter: Duration? = nil, localOnly: Bool = false, sensitive: Bool = false, pasteOnce: Bool = false) {
        self.expiresAfter = expiresAfter
        self.localOnly = localOnly
        self.sensitive = sensitive
        self.pasteOnce = pasteOnce
    }
}

/// A pasteboard: the general one (CLIPBOARD), primary (PRIMARY), or a named one (the X selection of
/// that name), in the spirit of UIPasteboard and NSPasteboard.
///
/// Reading works whoever owns the pasteboard: content pasteboardd holds comes from its socket, anything
/// else from the X selection — or, on a Wayland session (`WAYLAND_DISPLAY`), CLIPBOARD and PRIMARY from the
/// seat's selection and primary selection through data-control (`DirectDisplay` says which and why) — and either way a type that is not offered is converted from one that is
/// (`ConversionTable`: `data(forType: .html)` of an RTF copy is HTML). Writing, counting and waiting for
/// changes go through pasteboardd. One write with every representation is one change. Use an instance
/// from one thread at a time.
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
    /// Which types exist and how they convert.
    public let table: ConversionTable
    let environment: [String: String]
    private var reader: SelectionReader?
    /// The Wayland seat read when pasteboardd does not hold the content (`DirectDisplay`), once connected.
    private var seat: WaylandSelectionReader?
    /// The seat could not be read and `DISPLAY` is set: X is read instead.
    private var seatGaveWay = false
    private var client: DaemonClient?
    /// The daemon is reached through a forwarded socket (`$PASTEBOARD_SOCKET`, `pb ssh`): there is no X display
    /// of this side's own, and everything is asked of that daemon (docs/remote.md).
    public private(set) lazy var isForwarded = DaemonEndpoint.isForwarded(environment)
    /// Told how a large transfer through pasteboardd's socket goes, chunk by chunk: the bytes sent so far of a
    /// write (`setItems`, `addItems`: of its whole request) or received so far of a paste (`paste(_:into:)`),
    /// and the total (known for both once the transfer began; nil when it is not). Called on the caller's thread
    /// between chunks (up to 256 KiB apart), often: whoever draws from it throttles. Writes under 256 KiB and
    /// reads through X are not reported.
    public var progress: ((_ done: Int, _ total: Int?) -> Void)?

    /// The general pasteboard (CLIPBOARD).
    public static var general: Pasteboard { Pasteboard(name: .general) }
    /// The primary selection (PRIMARY).
    public static var primary: Pasteboard { Pasteboard(name: .primary) }

    public init(name: PasteboardName, environment: [String: String] = Environment.all, table: ConversionTable = .standard) {
        self.name = name
        self.environment = environment
        self.table = table
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
            guard try PasteboardDaemon(environment: environment).pasteboards().contains(where: { $0.name == validName }) else {
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

    /// The changeCount pasteboardd published on the X display (the root window's
    /// `_PASTEBOARD_CHANGE_COUNT_<NAME>`): one X round trip, no daemon connection. Where none is published there
    /// while pb's pasteboard is a Wayland seat's (`WAYLAND_DISPLAY` set: the daemon serves the seat alone, or other
    /// X displays than pb's `DISPLAY`), the daemon is asked, as `changeCount`.
    public var publishedChangeCount: UInt64 {
        get throws(PasteboardError) {
            // No display here (a forwarded socket, or none at all): the daemon counts. Asked before `isForwarded`,
            // which looks through /tmp for a session's socket, a look the connection makes again.
            if (environment["DISPLAY"] ?? "").isEmpty || isForwarded { return try changeCount }
            let reader: SelectionReader
            do throws(PasteboardError) { (reader, _) = try x() } catch .display(let why) {
                // A stale DISPLAY: the daemon counts; with no daemon either, the display that cannot be opened is the answer.
                do { return try changeCount } catch .daemonNotRunning { throw .display(why) }
            }
            let property = reader.x.intern(PasteboardName.changeCountPropertyPrefix + name.rawValue)
            let read = reader.x.getProperty(reader.x.root, property, delete: false, maximumBytes: 8)
            guard let value = read.value, value.type == reader.x.atoms.cardinal, let count = value.atoms.first else {
                if case .wayland = DirectDisplay.choose(environment, pasteboard: name) { return try changeCount }
                return try countNotPublished()
            }
            return UInt64(count.rawValue)
        }
    }

    /// Where this X display shows no count of the pasteboard: the daemon's count when it serves the display (a
    /// named pasteboard nothing wrote yet counts 0), else why there is none — pasteboardd not running, or serving
    /// other displays than this one, whose own selections nobody counts.
    private func countNotPublished() throws(PasteboardError) -> UInt64 {
        let display = environment["DISPLAY"] ?? ""
        let served: [(name: String, state: String)]
        do { served = try PasteboardDaemon(environment: environment).displays() } catch .daemonNotRunning {
            throw .daemonNotRunning("no changeCount is published for \(name): pasteboardd is not running")
        }
        guard served.contains(where: { DisplayName.sameServer($0.name, display) }) else {
            let others = served.map(\.name).joined(separator: ", ")
            throw .daemonNotRunning("no changeCount is published for \(name) on \(display): pasteboardd serves "
                                    + (others.isEmpty ? "no X display" : others) + " ('pb displays add \(display)' adds it)")
        }
        return try changeCount
    }

    /// Blocks until the pasteboard changes (no polling: pasteboardd pushes the event), or the timeout.
    public func waitForChange(timeoutMilliseconds: Int? = nil) throws(PasteboardError) -> PasteboardChange {
        let watcher = try PasteboardWatcher(pasteboards: [name], environment: environment, reportsKept: false)
        return try watcher.next(timeoutMilliseconds: timeoutMilliseconds)
    }

    // MARK: - Writing

    /// Replaces the content with `items` (UIPasteboard's `setItems(_:options:)`): one change, whatever the
    /// number of items and types; returns the new count. Throws `.refused` for an expiry outside 1 ms to 7 days.
    @discardableResult
    public func setItems(_ items: [PasteboardItem], options: PasteboardOptions) throws(PasteboardError) -> UInt64 {
        let (flags, expiry) = try Self.flags(options)
        let message: ControlRequest
        if let milliseconds = expiry {
            message = .setExpiringItems(pasteboard: name.rawValue, items: items, options: flags, expiresAfterMilliseconds: milliseconds)
        } else {
            message = .setItems(pasteboard: name.rawValue, items: items, options: flags)
        }
        return try countFrom(request(message, timeoutMilliseconds: 30_000))
    }

    /// Replaces the content with one item of `representations` (as `setItems(_:options:)`: one change), sent in
    /// pieces so that a stream among them (`producer | pb copy`) is read as it is sent, never whole: a chunk of
    /// 256 KiB at a time, through `beginCopy`, `copyChunk` and `commitCopy`. Nothing is served or counted before
    /// the last piece: a copy cut short (the process stopped, the connection dropped, a stream that fails)
    /// leaves the pasteboard as it was. `progress` is told the bytes sent (the total is nil with a stream). A
    /// daemon older than those requests is sent the copy whole, each stream read to its end first (at most
    /// `PasteboardLimits.maximumCopyBytes`). Throws `.refused` with the daemon's reason (over its cap), or the
    /// stream's error.
    @discardableResult
    public func setItem(streaming representations: [StreamedRepresentation], options: PasteboardOptions) throws(PasteboardError) -> UInt64 {
        let (flags, milliseconds) = try Self.flags(options)
        do {
            if client == nil { client = try DaemonClient(environment: environment) }
            let response = try client!.copyInPieces(representations, pasteboard: name.rawValue, options: flags,
                                                    expiresAfterMilliseconds: milliseconds ?? 0, progress: progress)
            return try countFrom(response)
        } catch CopyInPiecesError.notSpoken {
            var whole: [Representation] = []
            for representation in representations {
                switch representation {
                case .whole(let kept): whole.append(kept)
                case .stream(let type, let stream):
                    var bytes: [UInt8] = []
                    do {
                        while case let chunk = try stream.read(maximum: DaemonClient.copyChunkBytes), !chunk.isEmpty {
                            bytes += chunk
                            guard bytes.count <= PasteboardLimits.maximumCopyBytes else {
                                throw PasteboardError.refused("the copy is over \(PasteboardLimits.maximumCopyBytes) bytes, the most this pasteboardd takes")
                            }
                        }
                    } catch let error as PasteboardError { throw error } catch { throw .refused("\(error)") }
                    whole.append(Representation(type: type, data: bytes))
                }
            }
            do { return try setItems([try PasteboardItem(whole)], options: options) } catch let error as PasteboardError { throw error } catch {
                throw .refused("\(error)")
            }
        } catch CopyInPiecesError.unreadable(let error) {
            client = nil
            throw .refused("\(error)")
        } catch {
            client = nil
            throw PasteboardError.translate(error)
        }
    }

    /// The protocol's options for `options`, and its expiry in milliseconds (nil: none); `.refused` for an expiry
    /// outside 1 ms to 7 days.
    private static func flags(_ options: PasteboardOptions) throws(PasteboardError) -> (CopyOptions, UInt64?) {
        var flags: CopyOptions = []
        if options.sensitive { flags.insert(.sensitive) }
        if options.pasteOnce { flags.insert(.pasteOnce) }
        if options.localOnly { flags.insert(.localOnly) }
        guard let expiry = options.expiresAfter else { return (flags, nil) }
        // Compared as durations before it is turned into milliseconds (`.seconds(.max)` would overflow the product).
        guard expiry > .zero, expiry <= .milliseconds(Int64(ControlLimits.maximumExpiryMilliseconds)) else {
            throw .refused("an expiry is from 1 ms to 7 days, not \(expiry)")
        }
        let (seconds, attoseconds) = expiry.components
        // A fraction of a millisecond rounds up.
        return (flags, UInt64(seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000))
    }

    /// Replaces the content with `items`: one change. `sensitive` content is served but never stored, logged
    /// or restored; `pasteOnce` content is cleared after its first paste (`setItems(_:options:)` says more).
    @discardableResult
    public func setItems(_ items: [PasteboardItem], sensitive: Bool = false, pasteOnce: Bool = false) throws(PasteboardError) -> UInt64 {
        try setItems(items, options: PasteboardOptions(sensitive: sensitive, pasteOnce: pasteOnce))
    }

    /// Appends `items` to the content pasteboardd holds: one change per call.
    @discardableResult
    public func addItems(_ items: [PasteboardItem]) throws(PasteboardError) -> UInt64 {
        try countFrom(request(.addItems(pasteboard: name.rawValue, items: items), timeoutMilliseconds: 30_000))
    }

    /// Empties the pasteboard: one change.
    @discardableResult
    public func clear() throws(PasteboardError) -> UInt64 {
        try countFrom(request(.clear(pasteboard: name.rawValue)))
    }

    // MARK: - Reading

    /// The types on offer (the owner's X targets, without the protocol's own and side effects).
    public var types: [PasteboardType] {
        get throws(PasteboardError) {
            let notTypes = Set(PasteboardType.protocolTargets + PasteboardType.sideEffectTargets)
            return try targets.filter { !notTypes.contains($0) }
        }
    }

    /// The owner's TARGETS list as it gives it, protocol targets included (`xclip -t TARGETS -o`). Through a
    /// forward, the list the daemon at the other end serves for the content it holds. On a Wayland seat, the MIME
    /// types of its current offer as its client listed them (`wl-paste --list-types`). On X the daemon is asked
    /// first, as a paste asks it: it answers with the list it serves for content it holds, and — to a client
    /// without a display of its own among those it serves (no `DISPLAY`, or one it does not serve) — for another
    /// application's copy too; else the owner is asked on X.
    public var targets: [PasteboardType] {
        get throws(PasteboardError) {
            let direct = DirectDisplay.choose(environment, pasteboard: name)
            let daemonOnly = direct == .daemonOnly
            if isForwarded || daemonOnly || direct == .x {
                do throws(PasteboardError) {
                    guard case .targets(let names) = try request(.targets(pasteboard: name.rawValue)) else { throw .refused("unexpected answer") }
                    return names.map(PasteboardType.init(rawValue:))
                } catch .notHeld where !isForwarded {
                    // Nothing else to read: named pasteboards on Wayland alone, or no X display at all.
                    if daemonOnly || (direct == .x && (environment["DISPLAY"] ?? "").isEmpty) { throw .empty }
                } catch .daemonNotRunning where direct == .x && !isForwarded {
                    // No daemon: the owner is asked on X.
                }
            }
            if let seat = try wayland() {
                return try seat.types(primary: name == .primary, timeoutMilliseconds: timeoutMilliseconds).map(PasteboardType.init(rawValue:))
            }
            let reader: SelectionReader, selection: Atom
            do throws(PasteboardError) { (reader, selection) = try x() } catch .display(let why) {
                return try withoutStaleDisplay(after: why) { board throws(PasteboardError) in try board.targets }
            }
            do {
                return try reader.targets(selection, timeoutMilliseconds: timeoutMilliseconds).map(PasteboardType.init(rawValue:))
            } catch {
                throw PasteboardError.translate(error)
            }
        }
    }

    /// The bytes of `type` — as offered, or converted from what is offered (`ConversionTable`); plain text
    /// comes back as UTF-8 whatever target carried it. Nil when the owner refused the type it offered.
    /// Throws `.typeNotPresent` when nothing offered is or converts to `type`.
    public func data(forType type: PasteboardType) throws(PasteboardError) -> [UInt8]? {
        var bytes: [UInt8] = []
        do {
            _ = try paste(type) { chunk in bytes += chunk; return true }
        } catch .typeNotPresent {
            return nil
        }
        return bytes
    }

    /// Streams the bytes of `type` to `sink` as they arrive (plain text as UTF-8): the same bytes as
    /// `data(forType:)`, without a buffer of their size when pasteboardd holds the content. Returns the
    /// type the bytes were served as. A `sink` returning false stops the paste (`.refused`).
    @discardableResult
    public func paste(_ type: PasteboardType, into sink: (ArraySlice<UInt8>) -> Bool) throws(PasteboardError) -> PasteboardType {
        // Content pasteboardd holds comes straight from it, converted there if need be.
        var held: [UInt8] = []
        var servedAs: PasteboardType?
        var streams = true
        var received = 0
        var total: Int?
        let progress = self.progress
        let outcome = DaemonClient.pasteHeld(
            pasteboard: name.rawValue, types: [type.rawValue], environment: environment,
            timeoutMilliseconds: timeoutMilliseconds,
            begin: { served, length in
                servedAs = PasteboardType(served)
                streams = table.isShownAsIs(PasteboardType(served))
                total = length
                if !streams { held.reserveCapacity(length) }
            },
            sink: { chunk in
                received += chunk.count
                defer { if let total, total >= DaemonClient.sendChunk { progress?(received, total) } }
                if streams { return sink(chunk) }
                held += chunk
                return true
            })
        switch outcome {
        case .pasted(let served):
            if streams { return PasteboardType(served) }
            let text = try utf8Text(Representation(type: servedAs ?? type, data: held), services: services(nil))
            guard sink(text.data[...]) else { throw .refused("the paste was stopped") }
            return servedAs ?? type
        case .stopped: throw .refused("the paste was stopped")
        case .failed(let error): throw .refused("the paste from pasteboardd broke off: \(error)")
        case .refused(.daemon(.typeNotOffered, _)): throw .typeNotPresent(type)
        case .refused(let error): throw PasteboardError.translate(error)
        case .notHeld, .absent: break
        }
        let representation: Representation
        if let seat = try wayland() { representation = try readThroughWayland(type, seat: seat) } else {
            do throws(PasteboardError) { representation = try readThroughX(type) } catch .display(let why) {
                // No X display to read: what the daemon answered a client with none is all there is.
                if outcome == .absent, (environment["DISPLAY"] ?? "").isEmpty { throw .empty }
                return try withoutStaleDisplay(after: why) { board throws(PasteboardError) in try board.paste(type, into: sink) }
            }
        }
        guard sink(representation.data[...]) else { throw .refused("the paste was stopped") }
        return representation.type
    }

    /// `body` asked of this pasteboard for a client with no X display, after reading X failed with `why` because
    /// `DISPLAY` names a display that cannot be opened (a stale `DISPLAY` in a terminal multiplexer's session, the X
    /// session it was started in gone): the daemon answers it as it answers a client with none, from what it holds or
    /// another application offers on a display it serves. What that cannot answer either — no `DISPLAY` to leave out,
    /// a forward answering instead, nothing to read without a display — still says `why`.
    private func withoutStaleDisplay<Value>(after why: String,
                                            _ body: (Pasteboard) throws(PasteboardError) -> Value) throws(PasteboardError) -> Value {
        guard !(environment["DISPLAY"] ?? "").isEmpty, !isForwarded else { throw .display(why) }
        var environment = self.environment
        environment["DISPLAY"] = nil
        let board = Pasteboard(name: name, environment: environment, table: table)
        board.timeoutMilliseconds = timeoutMilliseconds
        board.progress = progress
        do { return try body(board) } catch .display { throw .display(why) }
    }

    /// The files a file manager put on the pasteboard (`x-special/gnome-copied-files`, or a URI list with
    /// KDE's cut marker beside it, through `ConversionTable`): the action and the URIs. Nil when nothing
    /// offered is or converts to a file list; `.badReply` when what is offered is not one.
    public func files() throws(PasteboardError) -> FileList? {
        guard let bytes = try data(forType: .gnomeCopiedFiles) else { return nil }
        do { return try FileList(copiedFiles: bytes) } catch {
            throw .badReply("the files on \(name) are not a valid list: \(error)")
        }
    }

    /// True when the pasteboard offers any of `types`, or something that converts to one
    /// (`data(forType:)` would give it).
    public func contains(types wanted: [PasteboardType]) throws(PasteboardError) -> Bool {
        let offered = try types
        return wanted.contains { table.plan(producing: $0, from: offered) != nil }
    }

    /// The items. When pasteboardd holds the content these are the items as written; when another
    /// application owns the pasteboard there is one item, with every type it offers as the owner sends it
    /// (read now).
    public var items: [PasteboardItem] {
        get throws(PasteboardError) {
            do { return try heldItems } catch {
                // Through a forward there is no X to ask instead.
                guard !isForwarded else { throw error }
                switch error {
                case .notHeld, .daemonNotRunning: break
                default: throw error
                }
            }
            if let seat = try wayland() { return try waylandItems(seat) }
            let (reader, selection) = try x()
            var representations: [Representation] = []
            for type in try types where !SnapshotPolicy.neverRead.contains(type.rawValue) {
                do {
                    let value = try reader.read(selection, target: reader.x.intern(type.rawValue), timeoutMilliseconds: timeoutMilliseconds)
                    if let bytes = value.bytes { representations.append(Representation(type: type, data: bytes)) }
                } catch .refused {
                    continue
                } catch {
                    throw PasteboardError.translate(error)
                }
            }
            // What an owner offers is judged piece by piece, as the daemon does: a type no item may carry
            // (past the 64th, say) costs only itself.
            return PasteboardItem.keeping(representations).item.map { [$0] } ?? []
        }
    }

    /// The items as pasteboardd holds them; `.notHeld` when another application owns the pasteboard.
    public var heldItems: [PasteboardItem] {
        get throws(PasteboardError) {
            guard case .items(let items) = try request(.items(pasteboard: name.rawValue)) else {
                throw .refused("unexpected answer")
            }
            return items
        }
    }

    /// The items at `indexes`, as `items` numbers them.
    public func items(at indexes: some Sequence<Int>) throws(PasteboardError) -> [PasteboardItem] {
        let all = try items
        return indexes.filter { all.indices.contains($0) }.map { all[$0] }
    }

    /// The bytes for `type` in each item at `indexes` that offers it — has it, or lists it as an X
    /// requestor would see it in TARGETS (RTF for an HTML item; not HTML for a plain-text one) — as
    /// `data(forType:inItemSet:)`.
    public func data(forType type: PasteboardType, inItemSet indexes: some Sequence<Int>) throws(PasteboardError) -> [[UInt8]] {
        var result: [[UInt8]] = []
        for item in try items(at: indexes) where table.advertisedTypes(for: item.types).contains(type) {
            if let data = try data(forType: type, in: item) { result.append(data) }
        }
        return result
    }

    /// True when any item at `indexes` offers any of `types` (has it, or lists it as a derived target).
    public func contains(types wanted: [PasteboardType], inItemSet indexes: some Sequence<Int>) throws(PasteboardError) -> Bool {
        try items(at: indexes).contains { item in !Set(table.advertisedTypes(for: item.types)).isDisjoint(with: wanted) }
    }

    /// `type` from one item: its representation, or one converted from another (plain text as UTF-8); nil
    /// when nothing in the item converts to it.
    public func data(forType type: PasteboardType, in item: PasteboardItem) throws(PasteboardError) -> [UInt8]? {
        do {
            return try table.read(type, offered: item.types, services: services(nil), asUTF8Text: true) { (source: PasteboardType) -> Result<Representation?, Never> in
                .success(item.data(for: source).map { Representation(type: source, data: $0) })
            }?.data
        } catch {
            switch error {
            case .read(.notOffered): return nil
            case .read(let failure): throw .conversionFailed("\(failure)")
            }
        }
    }

    // MARK: - Plumbing

    /// Reads `type` from the owner through X: what is read is chosen from the owner's TARGETS (or, for an
    /// owner that answers no TARGETS, the type and its aliases asked in turn), the reply's type is checked,
    /// and the value converted to `type`.
    private func readThroughX(_ type: PasteboardType) throws(PasteboardError) -> Representation {
        let (reader, selection) = try x()
        let offered: [[PasteboardType]]
        do {
            let targets = try reader.targets(selection, timeoutMilliseconds: timeoutMilliseconds).map(PasteboardType.init(rawValue:))
            offered = [targets]
        } catch .refused {
            offered = table.aliases(of: type).map { [$0] }
        } catch {
            throw PasteboardError.translate(error)
        }
        let services = services(reader.x)
        for candidates in offered {
            do {
                let read = try table.read(type, offered: candidates, services: services, asUTF8Text: true) { source in
                    fetch(source, reader: reader, selection: selection)
                }
                if let read { return read }
            } catch {
                switch error {
                case .source(let failure): throw PasteboardError.translate(failure)
                case .read(.notOffered): continue
                case .read(.wrongReplyType(let asked, let got)):
                    throw .badReply("the owner of \(name) answered \(asked) with \(got) data")
                case .read(.conversionFailed(let failure)): throw .conversionFailed("\(failure)")
                }
            }
        }
        throw .typeNotPresent(type)
    }

    /// Reads `type` from the Wayland seat's current offer: the MIME type read is chosen from what the offer lists
    /// (`WaylandTypes`: wl-copy's plain-text aliases of a rich copy are not its text), and converted to `type`.
    private func readThroughWayland(_ type: PasteboardType, seat: WaylandSelectionReader) throws(PasteboardError) -> Representation {
        let primary = name == .primary
        let mimeTypes = try seat.types(primary: primary, timeoutMilliseconds: timeoutMilliseconds)
        let offered = WaylandTypes.pasteboardTypes(fromMIME: mimeTypes, table: table)
        do {
            let read = try table.read(type, offered: offered, services: .system, asUTF8Text: true) { source -> Result<Representation?, PasteboardError> in
                fetch(source, mimeTypes: mimeTypes, seat: seat)
            }
            if let read { return read }
        } catch {
            switch error {
            case .source(let failure): throw failure
            case .read(.notOffered): break
            case .read(.wrongReplyType(let asked, let got)): throw .badReply("the owner of \(name) answered \(asked) with \(got) data")
            case .read(.conversionFailed(let failure)): throw .conversionFailed("\(failure)")
            }
        }
        throw .typeNotPresent(type)
    }

    /// One type of the seat's offer: its bytes, as the type asked (Wayland replies carry no type of their own).
    private func fetch(_ source: PasteboardType, mimeTypes: [String], seat: WaylandSelectionReader) -> Result<Representation?, PasteboardError> {
        guard let mime = WaylandTypes.mimeType(for: source, offered: mimeTypes) else { return .success(nil) }
        do {
            let bytes = try seat.read(mime, primary: name == .primary, timeoutMilliseconds: timeoutMilliseconds, cap: Self.maximumDirectReadBytes)
            return .success(Representation(type: source, data: bytes))
        } catch {
            return .failure(error)
        }
    }

    /// The seat's offer as one item: every type it lists (as `WaylandTypes` names them), read now.
    private func waylandItems(_ seat: WaylandSelectionReader) throws(PasteboardError) -> [PasteboardItem] {
        let mimeTypes = try seat.types(primary: name == .primary, timeoutMilliseconds: timeoutMilliseconds)
        var representations: [Representation] = []
        for type in WaylandTypes.pasteboardTypes(fromMIME: mimeTypes, table: table) where !SnapshotPolicy.neverRead.contains(type.rawValue) {
            switch fetch(type, mimeTypes: mimeTypes, seat: seat) {
            case .success(let representation?): representations.append(representation)
            case .success(nil): continue
            case .failure(let error): throw error
            }
        }
        return PasteboardItem.keeping(representations).item.map { [$0] } ?? []
    }

    /// The most bytes of one type read from a Wayland client: what pasteboardd itself accepts in one copy.
    static let maximumDirectReadBytes = PasteboardLimits.maximumCopyBytes

    /// The seat to read from when pasteboardd does not hold the content (`DirectDisplay`), connected on first use;
    /// nil when X is read instead. A seat that cannot be read throws, unless `DISPLAY` is set: then X is read.
    private func wayland() throws(PasteboardError) -> WaylandSelectionReader? {
        guard !seatGaveWay, case .wayland(let socket) = DirectDisplay.choose(environment, pasteboard: name) else { return nil }
        if let seat { return seat }
        do throws(PasteboardError) {
            let opened = try WaylandSelectionReader(socket: socket)
            if name == .primary && !opened.hasPrimarySelection {
                throw PasteboardError.display("the Wayland compositor at \(socket) has no primary selection (wlr-data-control version 1)")
            }
            seat = opened
            return opened
        } catch {
            guard DirectDisplay.hasXFallback(environment) else { throw error }
            seatGaveWay = true
            return nil
        }
    }

    /// One target read through X: the owner's value and the type it came as (nil when it refused).
    private func fetch(_ source: PasteboardType, reader: SelectionReader, selection: Atom) -> Result<Representation?, SelectionReadError> {
        do {
            let value = try reader.read(selection, target: reader.x.intern(source.rawValue), timeoutMilliseconds: timeoutMilliseconds)
            guard let bytes = value.bytes else {
                return .success(Representation(type: PasteboardType("format-\(value.format)"), data: []))
            }
            return .success(Representation(type: PasteboardType(reader.x.name(of: value.type) ?? "None"), data: bytes))
        } catch .refused {
            return .success(nil)
        } catch {
            return .failure(error)
        }
    }

    private func utf8Text(_ representation: Representation, services: ConversionServices) throws(PasteboardError) -> Representation {
        do { return try table.utf8Text(representation, services: services) } catch {
            throw .conversionFailed("\(error)")
        }
    }

    private func services(_ x: (any XDisplay)?) -> ConversionServices {
        var services = ConversionServices.system
        services.compoundText = x ?? (try? self.x().0.x)
        return services
    }

    private func x() throws(PasteboardError) -> (SelectionReader, Atom) {
        // No X display, and no Wayland selection carries a named pasteboard: pasteboardd did not hold it, so it is empty.
        if DirectDisplay.choose(environment, pasteboard: name) == .daemonOnly { throw .empty }
        if reader == nil {
            do { reader = SelectionReader(x: try XConnection(displayName: environment["DISPLAY"])) } catch {
                throw .display("\(error)")
            }
        }
        return (reader!, reader!.x.intern(name.rawValue))
    }

    private func request(_ request: ControlRequest, timeoutMilliseconds: Int = 10_000) throws(PasteboardError) -> ControlResponse {
        do {
            if client == nil { client = try DaemonClient(environment: environment) }
            client!.sendProgress = progress.map { progress in { progress($0, $1) } }
            return try client!.send(request, timeoutMilliseconds: timeoutMilliseconds)
        } catch {
            client = nil
            throw PasteboardError.translate(error)
        }
    }

    private func countFrom(_ response: ControlResponse) throws(PasteboardError) -> UInt64 {
        guard case .changeCount(_, let count) = response else { throw .refused("unexpected answer") }
        return count
    }
}

extension CodePageFunction {
    /// glibc's iconv, for the double-byte code pages RichText has no tables for.
    public static let system = CodePageFunction { IconvCodePages().decode($0, codePage: $1) }
}

extension ConversionServices {
    /// What this system offers converters without an X connection: iconv's code pages and the image
    /// libraries (libspng, TurboJPEG, giflib, libtiff, libwebp), with the default pixel cap.
    public static var system: ConversionServices {
        ConversionServices(codePages: CodePageFunction.system, images: SystemImageCodec())
    }
}

extension ConversionTable {
    /// `data`, of type `from`, as `to`: the plan `plan(producing:from:)` chooses, run with `services`
    /// (`pb convert` of pictures). Throws `.notOffered` when nothing converts `from` to `to`.
    public func convert(_ data: [UInt8], from: PasteboardType, to: PasteboardType,
                        services: ConversionServices = .system) throws(TypedReadError) -> Representation {
        guard let plan = plan(producing: to, from: [from]) else { throw .notOffered(to) }
        do { return try plan.run(data, services: services) } catch { throw .conversionFailed(error) }
    }
}
