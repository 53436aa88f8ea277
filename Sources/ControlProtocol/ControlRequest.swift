// SPDX-License-Identifier: Apache-2.0
import PasteboardCore

/// What a client asks the daemon. Each request gets exactly one response, in order, except `watch`,
/// after which the daemon sends `changed` events on that connection until it closes.
public enum ControlRequest: Hashable, Sendable {
    /// First message on every connection: the client's protocol version and a name for logs.
    case hello(version: UInt8, client: String)
    /// Replace a pasteboard's content with `items`. Answer: `changeCount`.
    case setItems(pasteboard: String, items: [PasteboardItem], options: CopyOptions)
    /// `setItems` whose content expires (UIPasteboard's `expirationDate`): `expiresAfterMilliseconds` (1 or
    /// more) after it is served, the daemon clears the pasteboard unless it changed meanwhile. Answer:
    /// `changeCount`.
    case setExpiringItems(pasteboard: String, items: [PasteboardItem], options: CopyOptions, expiresAfterMilliseconds: UInt64)
    /// Append `items` to a pasteboard's content. Answer: `changeCount`.
    case addItems(pasteboard: String, items: [PasteboardItem])
    /// Empty a pasteboard. Answer: `changeCount`.
    case clear(pasteboard: String)
    /// Answer: `changeCount`.
    case changeCount(pasteboard: String)
    /// Answer: `status`.
    case status
    /// Answer: `pasteboards`.
    case pasteboards
    /// Answer: `ok`.
    case createPasteboard(name: String, persistent: Bool)
    /// Answer: `ok`.
    case removePasteboard(name: String)
    /// The most recent `limit` entries (0: all). Answer: `history`.
    case history(limit: UInt32)
    /// An entry's content. Answer: `items`.
    case historyItem(index: UInt32)
    /// Put an entry back on its pasteboard. Answer: `changeCount`.
    case historyCopy(index: UInt32)
    /// Answer: `ok`.
    case historyDelete(index: UInt32)
    /// Answer: `ok`.
    case historyClear
    /// Stop recording history and watching for changes. Answer: `ok`.
    case pause
    /// Answer: `ok`.
    case resume
    /// Stream `changed` events for these pasteboards (empty: all). Answer: `ok`, then events.
    case watch(pasteboards: [String])
    /// A pasteboard's content. Answer: `items`.
    case items(pasteboard: String)
    /// The first of `types` the daemon serves for a pasteboard it holds, with the bytes an X requestor
    /// asking for that target would get, except that a text type's value comes back turned into UTF-8
    /// (what `pb paste` writes). `display` is the client's `$DISPLAY`: a daemon on another X server does not
    /// answer. Answer: `items` with one item of one representation, the type that answered; `notFound`
    /// when the daemon does not own the pasteboard on that display or offers none of `types`.
    case read(pasteboard: String, types: [String], display: String)
    /// The X displays the daemon serves as one pasteboard. Answer: `status`, one pair per display in the order
    /// they were added: its name, and `connected`, `connecting` or `disconnected`.
    case displays
    /// Serve another X display too (a name as in `$DISPLAY`). Answer: `ok` once it is listed (connected or
    /// still connecting); `badRequest` for a name already listed or not a display name.
    case addDisplay(name: String)
    /// Stop serving a display (not the first one). Answer: `ok`; `notFound` when it is not listed.
    case removeDisplay(name: String)
    /// The X display the client is on (its `$DISPLAY`), sent after `hello`: this connection's requests for a
    /// pasteboard that is per display (PRIMARY, unless shared) act on that display's. Answer: `ok`.
    case onDisplay(name: String)
    /// The targets an X requestor asking for TARGETS of a pasteboard the daemon holds would get (what `pb types`
    /// prints), for a client with no X display of its own (through the remote socket). Answer: `targets`;
    /// `notFound` when the daemon does not hold the pasteboard.
    case targets(pasteboard: String)
    /// Replace a pasteboard's content with items whose types are announced now and whose bytes this client
    /// provides when a reader first asks (NSPasteboardItemDataProvider): one list of types per item. Answer:
    /// `changeCount`; then, while the content is served, the daemon sends `provide` events on this
    /// connection and the client answers each with `provided` or `provideFailed`. The daemon closes the
    /// connection once the content is replaced; the client closing it withdraws the types not provided.
    case setItemProviders(pasteboard: String, types: [[String]], options: CopyOptions)
    /// The bytes of the type a `provide` event with this `request` number asked for. Answer: `ok`.
    case provided(request: UInt64, data: [UInt8])
    /// The type a `provide` event asked for cannot be given (`reason`, for the log): readers are refused.
    /// Answer: `ok`.
    case provideFailed(request: UInt64, reason: String)
    /// Stream events for these pasteboards (empty: all): with `.changes`, `change` events (a `changed` with who
    /// copied and the text's patterns); with `.reads`, a `read` event per read of content the daemon serves.
    /// Answer: `ok`, then events. (A daemon older than this kind answers `badRequest`: the client falls back to
    /// `watch`.)
    case watchEvents(pasteboards: [String], events: WatchEvents)
    /// The history as `history`, each entry with who copied it. Answer: `sourcedHistory`.
    case sourcedHistory(limit: UInt32)
    /// The peering handshake, on the remote socket after `hello` (docs/protocol.md, "Peering"): a daemon at the
    /// other end of a forward asks to share the pasteboard, saying its peering version, its id (drawn at each
    /// start), its name for logs and the largest frame body it accepts. Answer: `PeerFrame.welcome`, after which
    /// the connection speaks `PeerFrame`s both ways; or `error`, and the connection is closed.
    case peer(version: UInt8, daemon: UInt64, name: String, maximumFrameBytes: UInt64)
    /// The peer daemons this daemon was asked to share with (`pb peer list`). Answer: `peers`.
    case peers
    /// Share the pasteboard with the daemon listening at `socket` (its remote.sock, reached through a forward);
    /// `persistent`: kept across restarts (`pb peer add`), else until removed or the daemon stops (`pb ssh
    /// --peer`, for the session's life). Answer: `ok` once it is listed (connected or still connecting);
    /// `badRequest` for a socket listed already or not an absolute path.
    case addPeer(socket: String, persistent: Bool)
    /// Stop sharing with the peer at `socket` and forget it. Answer: `ok`; `notFound` when it is not listed.
    case removePeer(socket: String)
    /// Opens a copy sent in pieces (input whose length is not known first: `producer | pb copy`): one item of
    /// `types` (1–64, no type twice, in the owner's order of preference) for `pasteboard`, with `options` as
    /// `setItems`; `expiresAfterMilliseconds` as `setExpiringItems`, 0 when it does not expire. Answer: `ok`, and
    /// the connection's copy is open: `copyChunk`s follow, then `commitCopy`. (A daemon older than this kind answers
    /// `badRequest`: the client sends the copy whole.)
    case beginCopy(pasteboard: String, types: [String], options: CopyOptions, expiresAfterMilliseconds: UInt64)
    /// The next bytes (1 to `ControlLimits.maximumChunkBytes`) of representation `representation` (an index
    /// into the open copy's types) of the open copy. No answer while the copy goes well; the first failure (over
    /// the daemon's cap, no copy open, a bad index) is answered at once with `error`, which is the copy's answer.
    case copyChunk(representation: UInt16, data: [UInt8])
    /// Ends the open copy: what its chunks brought replaces the pasteboard's content, as `setItems` (or
    /// `setExpiringItems`) of it would. Answer: `changeCount`; nothing when the copy already failed (its `error`
    /// was its answer).
    case commitCopy

    /// Stable kind numbers on the wire (requests 0x0001…, responses 0x8001…). Never reuse one.
    public enum Kind: UInt16, CaseIterable, Sendable {
        case hello = 0x0001
        case setItems = 0x0002
        case addItems = 0x0003
        case clear = 0x0004
        case changeCount = 0x0005
        case status = 0x0006
        case pasteboards = 0x0007
        case createPasteboard = 0x0008
        case removePasteboard = 0x0009
        case history = 0x000A
        case historyItem = 0x000B
        case historyCopy = 0x000C
        case historyDelete = 0x000D
        case historyClear = 0x000E
        case pause = 0x000F
        case resume = 0x0010
        case watch = 0x0011
        case items = 0x0012
        case read = 0x0013
        case setExpiringItems = 0x0014
        case targets = 0x0015
        case watchEvents = 0x0016
        case sourcedHistory = 0x0017
        case displays = 0x0020
        case addDisplay = 0x0021
        case removeDisplay = 0x0022
        case onDisplay = 0x0023
        case setItemProviders = 0x0030
        case provided = 0x0031
        case provideFailed = 0x0032
        case peer = 0x0040
        case peers = 0x0041
        case addPeer = 0x0042
        case removePeer = 0x0043
        case beginCopy = 0x0050
        case copyChunk = 0x0051
        case commitCopy = 0x0052
    }

    public var kind: Kind {
        switch self {
        case .hello: return .hello
        case .setItems: return .setItems
        case .setExpiringItems: return .setExpiringItems
        case .addItems: return .addItems
        case .clear: return .clear
        case .changeCount: return .changeCount
        case .status: return .status
        case .pasteboards: return .pasteboards
        case .createPasteboard: return .createPasteboard
        case .removePasteboard: return .removePasteboard
        case .history: return .history
        case .historyItem: return .historyItem
        case .historyCopy: return .historyCopy
        case .historyDelete: return .historyDelete
        case .historyClear: return .historyClear
        case .pause: return .pause
        case .resume: return .resume
        case .watch: return .watch
        case .items: return .items
        case .read: return .read
        case .displays: return .displays
        case .addDisplay: return .addDisplay
        case .removeDisplay: return .removeDisplay
        case .onDisplay: return .onDisplay
        case .targets: return .targets
        case .setItemProviders: return .setItemProviders
        case .provided: return .provided
        case .provideFailed: return .provideFailed
        case .watchEvents: return .watchEvents
        case .sourcedHistory: return .sourcedHistory
        case .peer: return .peer
        case .peers: return .peers
        case .addPeer: return .addPeer
        case .removePeer: return .removePeer
        case .beginCopy: return .beginCopy
        case .copyChunk: return .copyChunk
        case .commitCopy: return .commitCopy
        }
    }

    /// The whole frame: length header, version, kind, fields.
    ///
    /// Encoding never traps. A name longer than its cap is sent as is and refused by the receiver;
    /// free-form text (the client name) is truncated to its cap at a character boundary.
    public func encode() -> [UInt8] {
        messageWriter().frame()
    }

    /// The frame as segments whose concatenation is `encode()`: representation data of 64 KiB or more
    /// stays in the item's own arrays (not copied), for a writer that sends segment after segment.
    public func encodeSegments() -> [[UInt8]] {
        var writer = messageWriter()
        return writer.frameSegments()
    }

    /// The frame as `encodeSegments()` gives it, except that a large representation whose bytes stay in a
    /// `ByteSource` (a file) is a piece naming the source, unread: the length in front is known from the
    /// sources' counts, so a writer can stream each file into the socket (`pb copy` of a 1 GiB file).
    public func encodePieces() -> [FramePiece] {
        var writer = messageWriter(keepingSources: true)
        writer.patchLength()
        return writer.wire.pieces
    }

    private func messageWriter(keepingSources: Bool = false) -> MessageWriter {
        var writer = MessageWriter(kind: kind.rawValue, payloadHint: payloadHint)
        writer.wire.keepsSources = keepingSources
        switch self {
        case .hello(let version, let client):
            writer.u8(version)
            writer.string(client, truncatingTo: ControlLimits.maximumStringLength)
        case .setItems(let pasteboard, let items, let options):
            writer.string(pasteboard)
            items.encode(into: &writer.wire)
            writer.u32(options.rawValue)
        case .setExpiringItems(let pasteboard, let items, let options, let milliseconds):
            writer.string(pasteboard)
            items.encode(into: &writer.wire)
            writer.u32(options.rawValue)
            writer.u64(milliseconds)
        case .addItems(let pasteboard, let items):
            writer.string(pasteboard)
            items.encode(into: &writer.wire)
        case .clear(let pasteboard), .changeCount(let pasteboard), .items(let pasteboard), .targets(let pasteboard):
            writer.string(pasteboard)
        case .status, .pasteboards, .historyClear, .pause, .resume, .displays, .peers, .commitCopy:
            break
        case .beginCopy(let pasteboard, let types, let options, let milliseconds):
            writer.string(pasteboard)
            writer.wire.array(types) { $0.string($1) }
            writer.u32(options.rawValue)
            writer.u64(milliseconds)
        case .copyChunk(let representation, let data):
            writer.u16(representation)
            writer.wire.sharedBytes(data)
        case .peer(let version, let daemon, let name, let maximum):
            writer.u8(version)
            writer.u64(daemon)
            writer.string(name, truncatingTo: PeerLimits.maximumTextLength)
            writer.u64(maximum)
        case .addPeer(let socket, let persistent):
            writer.string(socket)
            writer.bool(persistent)
        case .removePeer(let socket):
            writer.string(socket)
        case .addDisplay(let name), .removeDisplay(let name), .onDisplay(let name):
            writer.string(name)
        case .createPasteboard(let name, let persistent):
            writer.string(name)
            writer.bool(persistent)
        case .removePasteboard(let name):
            writer.string(name)
        case .history(let limit), .sourcedHistory(let limit):
            writer.u32(limit)
        case .watchEvents(let pasteboards, let events):
            writer.wire.array(pasteboards) { $0.string($1) }
            writer.u32(events.rawValue)
        case .historyItem(let index), .historyCopy(let index), .historyDelete(let index):
            writer.u32(index)
        case .watch(let pasteboards):
            writer.wire.array(pasteboards) { $0.string($1) }
        case .read(let pasteboard, let types, let display):
            writer.string(pasteboard)
            writer.wire.array(types) { $0.string($1) }
            writer.string(display, truncatingTo: ControlLimits.maximumStringLength)
        case .setItemProviders(let pasteboard, let types, let options):
            writer.string(pasteboard)
            writer.wire.array(types) { writer, item in writer.array(item) { $0.string($1) } }
            writer.u32(options.rawValue)
        case .provided(let request, let data):
            writer.u64(request)
            writer.wire.sharedBytes(data)
        case .provideFailed(let request, let reason):
            writer.u64(request)
            writer.string(reason, truncatingTo: ControlLimits.maximumStringLength)
        }
        return writer
    }

    private var payloadHint: Int {
        if case .provided(_, let data) = self { return data.count < WireWriter.sharingThreshold ? data.count + 300 : 300 }
        if case .copyChunk(_, let data) = self { return data.count < WireWriter.sharingThreshold ? data.count + 16 : 16 }
        return (carriedItems?.items.encodedLength ?? 0) + 300
    }

    /// The pasteboard and items a request that writes (`setItems`, `setExpiringItems`, `addItems`) carries.
    public var carriedItems: (pasteboard: String, items: [PasteboardItem])? {
        switch self {
        case .setItems(let pasteboard, let items, _), .setExpiringItems(let pasteboard, let items, _, _), .addItems(let pasteboard, let items):
            (pasteboard, items)
        default: nil
        }
    }

    /// The same request carrying `items` instead (a request that writes; any other is returned as it is).
    func carrying(_ items: [PasteboardItem]) -> ControlRequest {
        switch self {
        case .setItems(let pasteboard, _, let options): .setItems(pasteboard: pasteboard, items: items, options: options)
        case .setExpiringItems(let pasteboard, _, let options, let milliseconds):
            .setExpiringItems(pasteboard: pasteboard, items: items, options: options, expiresAfterMilliseconds: milliseconds)
        case .addItems(let pasteboard, _): .addItems(pasteboard: pasteboard, items: items)
        default: self
        }
    }

    /// Representation data this long or longer is taken from the body in place rather than copied.
    public static let inPlaceThreshold = 1 << 20

    /// Decodes a frame body (what `FrameDecoder.nextFrame()` returned). The largest representation of a
    /// copy is not copied out of the body: given up by the caller (`consume`), the body's own storage,
    /// trimmed, becomes that representation's data, so a 256 MiB copy is held once, not twice.
    /// Throws `ControlProtocolError` for a wrong version, an unknown kind, or malformed fields.
    public static func decode(body: consuming [UInt8]) throws -> ControlRequest {
        var skipped: [SkippedRepresentation] = []
        return try decode(body: body, skipped: &skipped)
    }

    /// Decodes a frame body as `decode(body:)`; of the items a request that writes carries, what can be
    /// kept is (`PasteboardItem.keeping`'s rules: a representation whose type no item may carry costs only
    /// itself), and what was left out is added to `skipped`, for the daemon to log.
    public static func decode(body: consuming [UInt8], skipped: inout [SkippedRepresentation]) throws -> ControlRequest {
        var placements: [(item: Int, representation: Int)] = []
        var ranges: [Range<Int>] = []
        let request = try decodeFields(body, placements: &placements, ranges: &ranges, skipped: &skipped)
        guard !placements.isEmpty, let items = request.carriedItems?.items else { return request }
        return request.carrying(items.filling(placements, ranges: ranges, from: body))
    }

    /// Decodes the fields, deferring large representation data (its reader, which shares the body, ends here).
    private static func decodeFields(_ body: [UInt8], placements: inout [(item: Int, representation: Int)],
                                     ranges: inout [Range<Int>], skipped: inout [SkippedRepresentation]) throws -> ControlRequest {
        let reader = try MessageReader(body: body)
        guard let kind = Kind(rawValue: reader.kind) else {
            throw ControlProtocolError.unknownKind(reader.kind, direction: "request")
        }
        var fields = reader.fields
        fields.deferringFieldsOf = inPlaceThreshold
        defer { ranges = fields.deferred }
        let request: ControlRequest
        switch kind {
        case .hello:
            request = .hello(version: try fields.u8("hello.version"),
                             client: try fields.string("hello.client", maximum: ControlLimits.maximumStringLength))
        case .setItems, .setExpiringItems:
            let name = kind == .setItems ? "setItems" : "setExpiringItems"
            let pasteboard = try fields.pasteboardName(name + ".pasteboard")
            let items = try [PasteboardItem].decode(from: &fields, field: name + ".items", deferredAt: &placements,
                                                    skipped: &skipped)
            let options = CopyOptions(rawValue: try fields.u32(name + ".options"))
            guard CopyOptions.all.isSuperset(of: options) else {
                throw ControlProtocolError.invalidValue(field: name + ".options",
                                                        reason: "unknown flags 0x\(String(options.subtracting(.all).rawValue, radix: 16))")
            }
            if kind == .setItems {
                request = .setItems(pasteboard: pasteboard, items: items, options: options)
            } else {
                let milliseconds = try fields.u64(name + ".expiresAfterMilliseconds")
                guard (1...ControlLimits.maximumExpiryMilliseconds).contains(milliseconds) else {
                    throw ControlProtocolError.invalidValue(field: name + ".expiresAfterMilliseconds",
                                                            reason: "\(milliseconds) is not from 1 to \(ControlLimits.maximumExpiryMilliseconds)")
                }
                request = .setExpiringItems(pasteboard: pasteboard, items: items, options: options, expiresAfterMilliseconds: milliseconds)
            }
        case .addItems:
            let pasteboard = try fields.pasteboardName("addItems.pasteboard")
            request = .addItems(pasteboard: pasteboard, items: try [PasteboardItem].decode(from: &fields, field: "addItems.items",
                                                                                         deferredAt: &placements, skipped: &skipped))
        case .clear:
            request = .clear(pasteboard: try fields.pasteboardName("clear.pasteboard"))
        case .changeCount:
            request = .changeCount(pasteboard: try fields.pasteboardName("changeCount.pasteboard"))
        case .items:
            request = .items(pasteboard: try fields.pasteboardName("items.pasteboard"))
        case .targets:
            request = .targets(pasteboard: try fields.pasteboardName("targets.pasteboard"))
        case .read:
            request = .read(pasteboard: try fields.pasteboardName("read.pasteboard"),
                            types: try fields.typeNames("read.types"),
                            display: try fields.string("read.display", maximum: ControlLimits.maximumStringLength))
        case .status: request = .status
        case .displays: request = .displays
        case .addDisplay:
            request = .addDisplay(name: try fields.displayName("addDisplay.name"))
        case .removeDisplay:
            request = .removeDisplay(name: try fields.displayName("removeDisplay.name"))
        case .onDisplay:
            request = .onDisplay(name: try fields.displayName("onDisplay.name"))
        case .setItemProviders:
            let pasteboard = try fields.pasteboardName("setItemProviders.pasteboard")
            let types = try fields.array("setItemProviders.types", maximum: PasteboardLimits.maximumItems, minimumElementSize: 4) { reader, index in
                try reader.typeNames("setItemProviders.types[\(index)]")
            }
            let options = CopyOptions(rawValue: try fields.u32("setItemProviders.options"))
            guard CopyOptions.all.isSuperset(of: options) else {
                throw ControlProtocolError.invalidValue(field: "setItemProviders.options",
                                                        reason: "unknown flags 0x\(String(options.subtracting(.all).rawValue, radix: 16))")
            }
            request = .setItemProviders(pasteboard: pasteboard, types: types, options: options)
        case .provided:
            fields.deferringFieldsOf = nil   // the data is this message's own field, read whole
            request = .provided(request: try fields.u64("provided.request"), data: try fields.bytes("provided.data"))
        case .provideFailed:
            request = .provideFailed(request: try fields.u64("provideFailed.request"),
                                     reason: try fields.string("provideFailed.reason", maximum: ControlLimits.maximumStringLength))
        case .pasteboards: request = .pasteboards
        case .peers: request = .peers
        case .beginCopy:
            let pasteboard = try fields.pasteboardName("beginCopy.pasteboard")
            let types = try fields.array("beginCopy.types", maximum: PasteboardLimits.maximumRepresentationsPerItem,
                                         minimumElementSize: 5) { reader, index in
                try reader.typeName("beginCopy.types[\(index)]")
            }
            guard !types.isEmpty else { throw ControlProtocolError.invalidValue(field: "beginCopy.types", reason: "is empty") }
            var seen: Set<String> = []
            for type in types where !seen.insert(type).inserted {
                throw ControlProtocolError.duplicateType(field: "beginCopy.types", type: type)
            }
            let options = CopyOptions(rawValue: try fields.u32("beginCopy.options"))
            guard CopyOptions.all.isSuperset(of: options) else {
                throw ControlProtocolError.invalidValue(field: "beginCopy.options",
                                                        reason: "unknown flags 0x\(String(options.subtracting(.all).rawValue, radix: 16))")
            }
            let milliseconds = try fields.u64("beginCopy.expiresAfterMilliseconds")
            guard milliseconds <= ControlLimits.maximumExpiryMilliseconds else {
                throw ControlProtocolError.invalidValue(field: "beginCopy.expiresAfterMilliseconds",
                                                        reason: "\(milliseconds) is over \(ControlLimits.maximumExpiryMilliseconds)")
            }
            request = .beginCopy(pasteboard: pasteboard, types: types, options: options, expiresAfterMilliseconds: milliseconds)
        case .copyChunk:
            fields.deferringFieldsOf = nil   // the data is this message's own field, read whole
            let representation = try fields.u16("copyChunk.representation")
            let data = try fields.bytes("copyChunk.data", maximum: ControlLimits.maximumChunkBytes)
            guard !data.isEmpty else { throw ControlProtocolError.invalidValue(field: "copyChunk.data", reason: "is empty") }
            request = .copyChunk(representation: representation, data: data)
        case .commitCopy: request = .commitCopy
        case .peer:
            request = .peer(version: try fields.u8("peer.version"), daemon: try fields.u64("peer.daemon"),
                            name: try fields.string("peer.name", maximum: PeerLimits.maximumTextLength),
                            maximumFrameBytes: try fields.u64("peer.maximumFrameBytes"))
        case .addPeer:
            request = .addPeer(socket: try fields.socketPath("addPeer.socket"), persistent: try fields.bool("addPeer.persistent"))
        case .removePeer:
            request = .removePeer(socket: try fields.socketPath("removePeer.socket"))
        case .historyClear: request = .historyClear
        case .pause: request = .pause
        case .resume: request = .resume
        case .createPasteboard:
            request = .createPasteboard(name: try fields.pasteboardName("createPasteboard.name"),
                                        persistent: try fields.bool("createPasteboard.persistent"))
        case .removePasteboard:
            request = .removePasteboard(name: try fields.pasteboardName("removePasteboard.name"))
        case .history:
            request = .history(limit: try fields.u32("history.limit"))
        case .sourcedHistory:
            request = .sourcedHistory(limit: try fields.u32("sourcedHistory.limit"))
        case .watchEvents:
            let pasteboards = try fields.array("watchEvents.pasteboards", maximum: ControlLimits.maximumListCount,
                                               minimumElementSize: 4) { reader, index in
                try reader.pasteboardName("watchEvents.pasteboards[\(index)]")
            }
            let events = WatchEvents(rawValue: try fields.u32("watchEvents.events"))
            guard WatchEvents.all.isSuperset(of: events), !events.isEmpty else {
                throw ControlProtocolError.invalidValue(field: "watchEvents.events",
                                                        reason: events.isEmpty ? "no events asked for"
                                                            : "unknown flags 0x\(String(events.subtracting(.all).rawValue, radix: 16))")
            }
            request = .watchEvents(pasteboards: pasteboards, events: events)
        case .historyItem:
            request = .historyItem(index: try fields.u32("historyItem.index"))
        case .historyCopy:
            request = .historyCopy(index: try fields.u32("historyCopy.index"))
        case .historyDelete:
            request = .historyDelete(index: try fields.u32("historyDelete.index"))
        case .watch:
            request = .watch(pasteboards: try fields.array("watch.pasteboards", maximum: ControlLimits.maximumListCount,
                                                           minimumElementSize: 4) { reader, index in
                try reader.pasteboardName("watch.pasteboards[\(index)]")
            })
        }
        try fields.expectEnd(of: "\(kind)")  // only on error: "\(kind)" goes through reflection
        return request
    }
}

// MARK: - Shared message plumbing

/// Writes a frame: a placeholder length, the version, the kind, then fields; `frame()` fills in the length.
struct MessageWriter {
    var wire: WireWriter

    init(kind: UInt16, payloadHint: Int) {
        wire = WireWriter(reservingCapacity: FrameEncoder.headerLength + 3 + payloadHint)
        wire.u32(0)
        wire.u8(ControlProtocolVersion.current)
        wire.u16(kind)
    }

    mutating func u8(_ value: UInt8) { wire.u8(value) }
    mutating func bool(_ value: Bool) { wire.bool(value) }
    mutating func u16(_ value: UInt16) { wire.u16(value) }
    mutating func u32(_ value: UInt32) { wire.u32(value) }
    mutating func u64(_ value: UInt64) { wire.u64(value) }
    mutating func i64(_ value: Int64) { wire.i64(value) }
    mutating func string(_ value: String, truncatingTo maximum: Int? = nil) { wire.string(value, truncatingTo: maximum) }

    consuming func frame() -> [UInt8] {
        _ = frameSegments()
        return wire.joined
    }

    /// The frame as segments whose concatenation is `frame()`: data shared with `sharedBytes` is not copied.
    mutating func frameSegments() -> [[UInt8]] {
        patchLength()
        return wire.segments
    }

    /// Fills in the frame's length, from every piece's (a kept source's count included, its bytes unread).
    mutating func patchLength() {
        let bodyLength = wire.count - FrameEncoder.headerLength
        precondition(bodyLength <= Int(UInt32.max), "a frame body must fit a u32 length")
        wire.patchU32(UInt32(bodyLength), at: 0)
    }
}

/// Reads a body's version and kind; `fields` continues after them.
struct MessageReader {
    let kind: UInt16
    var fields: WireReader

    init(body: [UInt8]) throws {
        var reader = WireReader(body)
        let version = try reader.u8("version")
        guard version == ControlProtocolVersion.current else { throw ControlProtocolError.unsupportedVersion(version) }
        kind = try reader.u16("kind")
        fields = reader
    }
}

extension WireReader {
    /// A pasteboard name: 1…255 bytes of UTF-8 without NUL.
    mutating func pasteboardName(_ field: @autoclosure () -> String) throws -> String {
        let name = try string(field(), maximum: PasteboardLimits.maximumPasteboardNameLength, forbidNUL: true)
        guard !name.isEmpty else { throw ControlProtocolError.invalidValue(field: field(), reason: "is empty") }
        return name
    }

    /// A type name: 1…255 bytes of UTF-8 without NUL.
    mutating func typeName(_ field: @autoclosure () -> String) throws -> String {
        let type = try string(field(), maximum: PasteboardLimits.maximumTypeNameLength, forbidNUL: true)
        guard !type.isEmpty else { throw ControlProtocolError.invalidValue(field: field(), reason: "is empty") }
        return type
    }

    /// An X display name: 1…255 bytes of UTF-8 without NUL.
    mutating func displayName(_ field: @autoclosure () -> String) throws -> String {
        let name = try string(field(), maximum: 255, forbidNUL: true)
        guard !name.isEmpty else { throw ControlProtocolError.invalidValue(field: field(), reason: "is empty") }
        return name
    }

    /// A socket's path: 1…4096 bytes of UTF-8 without NUL.
    mutating func socketPath(_ field: @autoclosure () -> String) throws -> String {
        let path = try string(field(), maximum: 4096, forbidNUL: true)
        guard !path.isEmpty else { throw ControlProtocolError.invalidValue(field: field(), reason: "is empty") }
        return path
    }

    /// A list of type names.
    mutating func typeNames(_ field: @autoclosure () -> String) throws -> [String] {
        try array(field(), maximum: ControlLimits.maximumListCount, minimumElementSize: 5) { reader, index in
            try reader.typeName(field() + "[\(index)]")
        }
    }
}

// MARK: - Sources

extension WireWriter {
    /// A `Source`: `application: string` (empty when unknown), `processID: u32` (0 when unknown).
    mutating func source(_ source: ContentSource?) {
        string(source?.application ?? "", truncatingTo: ContentSource.maximumNameBytes)
        u32(source?.processID.map { UInt32(bitPattern: $0) } ?? 0)
    }
}

extension WireReader {
    /// A `Source`; nil when it names no application. A name over `ContentSource.maximumNameBytes` is refused.
    mutating func source(_ field: @autoclosure () -> String) throws -> ContentSource? {
        let application = try string(field() + ".application", maximum: ContentSource.maximumNameBytes, forbidNUL: true)
        let pid = try u32(field() + ".processID")
        guard !application.isEmpty else { return nil }
        return ContentSource(application: application, processID: pid == 0 || pid > UInt32(Int32.max) ? nil : Int32(pid))
    }
}
