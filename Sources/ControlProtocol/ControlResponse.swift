// SPDX-License-Identifier: Apache-2.0
import PasteboardCore

/// What the daemon answers, and the `changed` events it streams after `watch`.
public enum ControlResponse: Hashable, Sendable {
    /// Answer to `hello`: the version the daemon will speak, its pid, and its version string.
    case hello(version: UInt8, daemonPID: UInt32, daemonVersion: String)
    /// Answer to `setItems`, `addItems`, `clear`, `changeCount`, `historyCopy`.
    case changeCount(pasteboard: String, count: UInt64)
    /// Success with nothing to report.
    case ok
    /// Failure; `message` is one line for people.
    case error(code: ErrorCode, message: String)
    /// Answer to `status`: name/value lines in the daemon's order.
    case status(pairs: [StatusPair])
    /// Answer to `pasteboards`.
    case pasteboards([PasteboardInfo])
    /// Answer to `history`, most recent first.
    case history([HistoryEntry])
    /// Answer to `items` and `historyItem`.
    case items([PasteboardItem])
    /// Event after `watch`: a pasteboard changed. `state` says how ("owned", "foreign", "cleared"); `image`
    /// describes the content's picture (type, size, length), when the daemon holds one.
    case changed(pasteboard: String, count: UInt64, types: [String], state: String, image: ImageSummary? = nil)
    /// Answer to `targets`: the TARGETS list, in the daemon's order (TARGETS, TIMESTAMP and MULTIPLE first).
    case targets([String])
    /// Event on a `setItemProviders` connection: a reader asks for `type`; answer with `provided` or
    /// `provideFailed` carrying `request`.
    case provide(request: UInt64, type: String)
    /// Event after `watchEvents` with `.changes`: a change, with who copied and the text's patterns.
    case change(ChangeEvent)
    /// Event after `watchEvents` with `.reads`: a read of content the daemon serves.
    case read(ReadEvent)
    /// Answer to `sourcedHistory`: `history` with each entry's source.
    case sourcedHistory([HistoryEntry])
    /// Answer to `peers`: the peers asked for, in the order they were added.
    case peers([PeerInfo])

    /// Stable kind numbers on the wire (responses 0x8001…). Never reuse one.
    public enum Kind: UInt16, CaseIterable, Sendable {
        case hello = 0x8001
        case changeCount = 0x8002
        case ok = 0x8003
        case error = 0x8004
        case status = 0x8005
        case pasteboards = 0x8006
        case history = 0x8007
        case items = 0x8008
        case changed = 0x8009
        case targets = 0x800A
        case provide = 0x8020
        case change = 0x800B
        case read = 0x800C
        case sourcedHistory = 0x800D
        case peers = 0x800E
    }

    public var kind: Kind {
        switch self {
        case .hello: return .hello
        case .changeCount: return .changeCount
        case .ok: return .ok
        case .error: return .error
        case .status: return .status
        case .pasteboards: return .pasteboards
        case .history: return .history
        case .items: return .items
        case .changed: return .changed
        case .targets: return .targets
        case .peers: return .peers
        case .change: return .change
        case .read: return .read
        case .sourcedHistory: return .sourcedHistory
        case .provide: return .provide
        }
    }

    /// Events are pushed by the daemon, not answers to a request: `changed`, `change`, `read` and `provide`.
    public var isEvent: Bool {
        switch self {
        case .changed, .change, .read, .provide: true
        default: false
        }
    }

    /// The whole frame: length header, version, kind, fields.
    ///
    /// Encoding never traps. Free-form text (messages, previews, status values, versions, states) is
    /// truncated to its cap at a character boundary; names over their caps are sent as is and refused
    /// by the receiver.
    public func encode() -> [UInt8] {
        messageWriter().frame()
    }

    /// The frame as segments whose concatenation is `encode()`: representation data of 64 KiB or more
    /// stays in the item's own arrays (not copied), for a writer that sends segment after segment.
    public func encodeSegments() -> [[UInt8]] {
        var writer = messageWriter()
        return writer.frameSegments()
    }

    private func messageWriter() -> MessageWriter {
        let text = ControlLimits.maximumStringLength
        var writer = MessageWriter(kind: kind.rawValue, payloadHint: payloadHint)
        switch self {
        case .hello(let version, let daemonPID, let daemonVersion):
            writer.u8(version)
            writer.u32(daemonPID)
            writer.string(daemonVersion, truncatingTo: text)
        case .changeCount(let pasteboard, let count):
            writer.string(pasteboard)
            writer.u64(count)
        case .ok:
            break
        case .error(let code, let message):
            writer.u16(code.rawValue)
            writer.string(message, truncatingTo: text)
        case .status(let pairs):
            writer.wire.array(pairs) { writer, pair in
                writer.string(pair.key, truncatingTo: text)
                writer.string(pair.value, truncatingTo: text)
            }
        case .pasteboards(let pasteboards):
            writer.wire.array(pasteboards) { writer, info in
                writer.string(info.name)
                writer.u64(info.changeCount)
                writer.bool(info.persistent)
                writer.bool(info.owned)
            }
        case .history(let entries), .sourcedHistory(let entries):
            let sourced = kind == .sourcedHistory
            writer.wire.array(entries) { writer, entry in
                writer.u32(entry.index)
                writer.i64(entry.timestamp)
                writer.string(entry.pasteboard)
                writer.array(entry.types) { $0.string($1) }
                writer.u64(entry.size)
                writer.string(entry.preview, truncatingTo: text)
                if sourced { writer.source(entry.source) }
            }
        case .items(let items):
            items.encode(into: &writer.wire)
        case .changed(let pasteboard, let count, let types, let state, let image):
            writer.string(pasteboard)
            writer.u64(count)
            writer.wire.array(types) { $0.string($1) }
            writer.string(state, truncatingTo: text)
            writer.bool(image != nil)
            if let image {
                writer.string(image.type.rawValue)
                writer.u32(UInt32(clamping: image.width))
                writer.u32(UInt32(clamping: image.height))
                writer.u64(UInt64(clamping: image.byteCount))
            }
        case .targets(let types):
            writer.wire.array(types) { $0.string($1) }
        case .provide(let request, let type):
            writer.u64(request)
            writer.string(type)
        case .change(let event):
            writer.string(event.pasteboard)
            writer.u64(event.count)
            writer.wire.array(event.types) { $0.string($1) }
            writer.string(event.state, truncatingTo: text)
            writer.bool(event.image != nil)
            if let image = event.image {
                writer.string(image.type.rawValue)
                writer.u32(UInt32(clamping: image.width))
                writer.u32(UInt32(clamping: image.height))
                writer.u64(UInt64(clamping: image.byteCount))
            }
            writer.wire.source(event.source)
            writer.bool(event.patterns != nil)
            writer.u32(event.patterns?.rawValue ?? 0)
        case .read(let event):
            writer.string(event.pasteboard)
            writer.string(event.type)
            writer.wire.source(event.reader)
            writer.i64(event.time)
            writer.string(event.refusal ?? "", truncatingTo: text)
            writer.string(event.via, truncatingTo: text)
        case .peers(let peers):
            writer.wire.array(peers) { writer, peer in
                writer.string(peer.socket)
                writer.string(peer.state, truncatingTo: text)
                writer.string(peer.lastError, truncatingTo: text)
            }
        }
        return writer
    }

    private var payloadHint: Int {
        if case .items(let items) = self { return items.encodedLength + 300 }
        return 300
    }

    /// Decodes a frame body (what `FrameDecoder.nextFrame()` returned).
    /// Throws `ControlProtocolError` for a wrong version, an unknown kind, or malformed fields.
    public static func decode(body: [UInt8]) throws -> ControlResponse {
        var skipped: [SkippedRepresentation] = []
        return try decode(body: body, skipped: &skipped)
    }

    /// Decodes a frame body as `decode(body:)`; of the items an `items` answer carries, what can be kept is
    /// (`PasteboardItem.keeping`'s rules), and what was left out is added to `skipped`.
    public static func decode(body: [UInt8], skipped: inout [SkippedRepresentation]) throws -> ControlResponse {
        let text = ControlLimits.maximumStringLength
        let reader = try MessageReader(body: body)
        guard let kind = Kind(rawValue: reader.kind) else {
            throw ControlProtocolError.unknownKind(reader.kind, direction: "response")
        }
        var fields = reader.fields
        let response: ControlResponse
        switch kind {
        case .hello:
            response = .hello(version: try fields.u8("hello.version"), daemonPID: try fields.u32("hello.daemonPID"),
                              daemonVersion: try fields.string("hello.daemonVersion", maximum: text))
        case .changeCount:
            response = .changeCount(pasteboard: try fields.pasteboardName("changeCount.pasteboard"),
                                    count: try fields.u64("changeCount.count"))
        case .ok:
            response = .ok
        case .error:
            response = .error(code: ErrorCode(rawValue: try fields.u16("error.code")),
                              message: try fields.string("error.message", maximum: text))
        case .status:
            response = .status(pairs: try fields.array("status.pairs", maximum: ControlLimits.maximumListCount,
                                                       minimumElementSize: 8) { reader, index in
                StatusPair(try reader.string("status.pairs[\(index)].key", maximum: text),
                           try reader.string("status.pairs[\(index)].value", maximum: text))
            })
        case .pasteboards:
            response = .pasteboards(try fields.array("pasteboards", maximum: ControlLimits.maximumListCount,
                                                     minimumElementSize: 15) { reader, index in
                PasteboardInfo(name: try reader.pasteboardName("pasteboards[\(index)].name"),
                               changeCount: try reader.u64("pasteboards[\(index)].changeCount"),
                               persistent: try reader.bool("pasteboards[\(index)].persistent"),
                               owned: try reader.bool("pasteboards[\(index)].owned"))
            })
        case .history, .sourcedHistory:
            let sourced = kind == .sourcedHistory
            let entries = try fields.array("\(kind)", maximum: ControlLimits.maximumListCount,
                                           minimumElementSize: sourced ? 41 : 33) { reader, index in
                HistoryEntry(index: try reader.u32("history[\(index)].index"),
                             timestamp: try reader.i64("history[\(index)].timestamp"),
                             pasteboard: try reader.pasteboardName("history[\(index)].pasteboard"),
                             types: try reader.typeNames("history[\(index)].types"),
                             size: try reader.u64("history[\(index)].size"),
                             preview: try reader.string("history[\(index)].preview", maximum: text),
                             source: sourced ? try reader.source("history[\(index)].source") : nil)
            }
            response = sourced ? .sourcedHistory(entries) : .history(entries)
        case .items:
            var deferred: [(item: Int, representation: Int)] = []
            response = .items(try [PasteboardItem].decode(from: &fields, field: "items", deferredAt: &deferred, skipped: &skipped))
        case .changed:
            response = .changed(pasteboard: try fields.pasteboardName("changed.pasteboard"),
                                count: try fields.u64("changed.count"),
                                types: try fields.typeNames("changed.types"),
                                state: try fields.string("changed.state", maximum: text),
                                image: try fields.bool("changed.hasImage")
                                    ? ImageSummary(type: PasteboardType(try fields.typeName("changed.image.type")),
                                                   width: Int(try fields.u32("changed.image.width")),
                                                   height: Int(try fields.u32("changed.image.height")),
                                                   byteCount: Int(clamping: try fields.u64("changed.image.byteCount")))
                                    : nil)
        case .targets:
            response = .targets(try fields.typeNames("targets"))
        case .provide:
            response = .provide(request: try fields.u64("provide.request"), type: try fields.typeName("provide.type"))
        case .change:
            var event = ChangeEvent(pasteboard: try fields.pasteboardName("change.pasteboard"), count: try fields.u64("change.count"),
                                    types: try fields.typeNames("change.types"), state: try fields.string("change.state", maximum: text))
            if try fields.bool("change.hasImage") {
                event.image = ImageSummary(type: PasteboardType(try fields.typeName("change.image.type")),
                                           width: Int(try fields.u32("change.image.width")),
                                           height: Int(try fields.u32("change.image.height")),
                                           byteCount: Int(clamping: try fields.u64("change.image.byteCount")))
            }
            event.source = try fields.source("change.source")
            let known = try fields.bool("change.patternsKnown")
            let patterns = TextPatterns(rawValue: try fields.u32("change.patterns"))
            event.patterns = known ? patterns : nil
            response = .change(event)
        case .read:
            let pasteboard = try fields.pasteboardName("read.pasteboard")
            let type = try fields.typeName("read.type")
            let reader = try fields.source("read.reader")
            let time = try fields.i64("read.time")
            let refusal = try fields.string("read.refusal", maximum: text)
            response = .read(ReadEvent(pasteboard: pasteboard, type: type, reader: reader, time: time,
                                       refusal: refusal.isEmpty ? nil : refusal, via: try fields.string("read.via", maximum: text)))
        case .peers:
            response = .peers(try fields.array("peers", maximum: ControlLimits.maximumListCount, minimumElementSize: 13) { reader, index in
                PeerInfo(socket: try reader.socketPath("peers[\(index)].socket"),
                         state: try reader.string("peers[\(index)].state", maximum: text),
                         lastError: try reader.string("peers[\(index)].lastError", maximum: text))
            })
        }
        try fields.expectEnd(of: "\(kind)")
        return response
    }
}
