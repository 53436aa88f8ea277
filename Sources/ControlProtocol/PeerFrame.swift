// SPDX-License-Identifier: Apache-2.0
import PasteboardCore

/// The peering protocol's version, carried by the handshake (`ControlRequest.peer` and `PeerFrame.welcome`); the
/// frames themselves carry the control protocol's version byte like every message (docs/protocol.md, "Peering").
public enum PeerProtocolVersion {
    /// The only version so far.
    public static let current: UInt8 = 1
}

/// Every limit on what a peer daemon sends, besides the frame cap each side announces in the handshake.
public enum PeerLimits {
    /// Daemons an offer may have passed through (its path); one that went further is dropped.
    public static let maximumHops = 16
    /// Types in one offer (real owners offer 5 to 30; the snapshot looks at 1,024 at most).
    public static let maximumTypes = 1024
    /// A failure's reason, a daemon's name.
    public static let maximumTextLength = 1024
    /// The smallest frame cap a side may announce: a handshake, an offer of a few types and their names fit.
    public static let minimumFrameBytes = 64 << 10
    /// The room a `data` frame needs beside its bytes (header, version, kind, request, length).
    public static let dataOverhead = 4 + 3 + 8 + 4
}

/// One type an offer names, with its size when the offering side knows it (the content is at hand there).
public struct PeerType: Hashable, Sendable {
    public var name: String
    /// Bytes, or nil when only the owner knows (a copy of another application, read on request).
    public var size: UInt64?

    public init(_ name: String, size: UInt64? = nil) {
        self.name = name
        self.size = size
    }
}

/// Where a change came from across daemons: the daemon where it was made (an id drawn at each start), its serial
/// there (increasing per daemon and pasteboard), and the daemons it passed through, its origin first. A daemon
/// drops a change it is on the path of (a loop of peers) or has already seen by another way (a duplicate).
public struct PeerOrigin: Hashable, Sendable {
    public var daemon: UInt64
    public var serial: UInt64
    public var path: [UInt64]

    public init(daemon: UInt64, serial: UInt64, path: [UInt64]) {
        self.daemon = daemon
        self.serial = serial
        self.path = path
    }
}

/// An offer (a token): a pasteboard changed on the sending side and offers these types; the bytes are asked with
/// `fetch` naming `token`, the sender's number for this offer on this connection.
public struct PeerOffer: Hashable, Sendable {
    public var token: UInt64
    public var pasteboard: String
    public var origin: PeerOrigin
    public var types: [PeerType]
    /// Sent when the connection opens (what each side held then), not for a change: the two sides' initial
    /// offers cross, and the one of the daemon with the larger id is kept on both.
    public var initial: Bool

    public init(token: UInt64, pasteboard: String, origin: PeerOrigin, types: [PeerType], initial: Bool = false) {
        self.token = token
        self.pasteboard = pasteboard
        self.origin = origin
        self.types = types
        self.initial = initial
    }
}

/// A frame of the peering protocol, after the handshake: both sides send every kind (except `welcome`, the
/// accepting side's answer to `ControlRequest.peer`). Same framing as the control protocol (a u32 length, the
/// version byte, a u16 kind, fields), kinds 0x4001…
public enum PeerFrame: Hashable, Sendable {
    /// The accepting side's answer to the `peer` handshake: its peering version, daemon id, name, and the largest
    /// frame body it accepts (a fetched value larger than that is refused, not sent).
    case welcome(version: UInt8, daemon: UInt64, name: String, maximumFrameBytes: UInt64)
    /// A pasteboard changed on the sender's side (or, `initial`, holds this when the connection opened).
    case offer(PeerOffer)
    /// A pasteboard became empty on the sender's side (cleared, its owner gone with nothing kept, or content that
    /// never crosses: sensitive, local-only, secret).
    case cleared(pasteboard: String, origin: PeerOrigin)
    /// Asks for `type` of the offer `token` the receiver sent; answered once, by `data` or `failed` with `request`.
    case fetch(request: UInt64, token: UInt64, type: String)
    case data(request: UInt64, bytes: [UInt8])
    /// Why not (never content): the offer changed since, the owner refused or did not answer, too large.
    case failed(request: UInt64, reason: String)

    public enum Kind: UInt16, CaseIterable, Sendable {
        case welcome = 0x4001
        case offer = 0x4002
        case cleared = 0x4003
        case fetch = 0x4004
        case data = 0x4005
        case failed = 0x4006
    }

    public var kind: Kind {
        switch self {
        case .welcome: .welcome
        case .offer: .offer
        case .cleared: .cleared
        case .fetch: .fetch
        case .data: .data
        case .failed: .failed
        }
    }

    /// The whole frame. Encoding never traps; free-form text is cut at its cap.
    public func encode() -> [UInt8] { writer().frame() }

    /// The frame as segments whose concatenation is `encode()`: a value of 64 KiB or more stays in its own array.
    public func encodeSegments() -> [[UInt8]] {
        var writer = writer()
        return writer.frameSegments()
    }

    private func writer() -> MessageWriter {
        var hint = 64
        if case .data(_, let bytes) = self { hint = 16 + (bytes.count < WireWriter.sharingThreshold ? bytes.count : 0) }
        var writer = MessageWriter(kind: kind.rawValue, payloadHint: hint)
        switch self {
        case .welcome(let version, let daemon, let name, let maximum):
            writer.u8(version)
            writer.u64(daemon)
            writer.string(name, truncatingTo: PeerLimits.maximumTextLength)
            writer.u64(maximum)
        case .offer(let offer):
            writer.u64(offer.token)
            writer.string(offer.pasteboard)
            offer.origin.encode(into: &writer)
            writer.wire.array(offer.types) { wire, type in
                wire.string(type.name)
                wire.u64(type.size ?? .max)
            }
            writer.bool(offer.initial)
        case .cleared(let pasteboard, let origin):
            writer.string(pasteboard)
            origin.encode(into: &writer)
        case .fetch(let request, let token, let type):
            writer.u64(request)
            writer.u64(token)
            writer.string(type)
        case .data(let request, let bytes):
            writer.u64(request)
            writer.wire.sharedBytes(bytes)
        case .failed(let request, let reason):
            writer.u64(request)
            writer.string(reason, truncatingTo: PeerLimits.maximumTextLength)
        }
        return writer
    }

    /// The kind a frame body says it is, when it has one (to tell a peering frame from a control answer during
    /// the handshake); nil for a body too short to say.
    public static func kindNumber(of body: [UInt8]) -> UInt16? {
        guard body.count >= 3 else { return nil }
        return UInt16(body[1]) | UInt16(body[2]) << 8
    }

    /// Decodes a frame body. Throws `ControlProtocolError` for a wrong version, an unknown kind, malformed fields,
    /// or a value over its cap: a name over 255 bytes, more than `PeerLimits.maximumTypes` types, a path longer
    /// than `PeerLimits.maximumHops`, a type offered twice.
    public static func decode(body: [UInt8]) throws -> PeerFrame {
        let reader = try MessageReader(body: body)
        guard let kind = Kind(rawValue: reader.kind) else {
            throw ControlProtocolError.unknownKind(reader.kind, direction: "peer")
        }
        var fields = reader.fields
        let frame: PeerFrame
        switch kind {
        case .welcome:
            frame = .welcome(version: try fields.u8("welcome.version"), daemon: try fields.u64("welcome.daemon"),
                             name: try fields.string("welcome.name", maximum: PeerLimits.maximumTextLength),
                             maximumFrameBytes: try fields.u64("welcome.maximumFrameBytes"))
        case .offer:
            let token = try fields.u64("offer.token")
            let pasteboard = try fields.pasteboardName("offer.pasteboard")
            let origin = try PeerOrigin(from: &fields, "offer")
            let types = try fields.array("offer.types", maximum: PeerLimits.maximumTypes, minimumElementSize: 13) { reader, index in
                let name = try reader.typeName("offer.types[\(index)].name")
                let size = try reader.u64("offer.types[\(index)].size")
                return PeerType(name, size: size == .max ? nil : size)
            }
            var seen: Set<String> = []
            for type in types where !seen.insert(type.name).inserted {
                throw ControlProtocolError.duplicateType(field: "offer.types", type: type.name)
            }
            frame = .offer(PeerOffer(token: token, pasteboard: pasteboard, origin: origin, types: types,
                                     initial: try fields.bool("offer.initial")))
        case .cleared:
            frame = .cleared(pasteboard: try fields.pasteboardName("cleared.pasteboard"), origin: try PeerOrigin(from: &fields, "cleared"))
        case .fetch:
            frame = .fetch(request: try fields.u64("fetch.request"), token: try fields.u64("fetch.token"),
                           type: try fields.typeName("fetch.type"))
        case .data:
            frame = .data(request: try fields.u64("data.request"), bytes: try fields.bytes("data.bytes"))
        case .failed:
            frame = .failed(request: try fields.u64("failed.request"),
                            reason: try fields.string("failed.reason", maximum: PeerLimits.maximumTextLength))
        }
        try fields.expectEnd(of: "peer \(kind)")
        return frame
    }
}

extension PeerOrigin {
    fileprivate func encode(into writer: inout MessageWriter) {
        writer.u64(daemon)
        writer.u64(serial)
        writer.wire.array(path) { $0.u64($1) }
    }

    fileprivate init(from fields: inout WireReader, _ frame: String) throws {
        daemon = try fields.u64(frame + ".origin.daemon")
        serial = try fields.u64(frame + ".origin.serial")
        path = try fields.array(frame + ".origin.path", maximum: PeerLimits.maximumHops, minimumElementSize: 8) { reader, index in
            try reader.u64(frame + ".origin.path[\(index)]")
        }
        guard path.first == daemon else {
            throw ControlProtocolError.invalidValue(field: frame + ".origin.path", reason: "does not start at the origin daemon")
        }
    }
}
