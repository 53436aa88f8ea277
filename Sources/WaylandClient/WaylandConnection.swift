// SPDX-License-Identifier: Apache-2.0
import CWaylandShims
import Glibc

/// A connection to a Wayland compositor as a clipboard manager: the first seat's selection and primary
/// selection through a data-control protocol — `ext_data_control_manager_v1` when the compositor offers it,
/// else `zwlr_data_control_manager_v1` (version 2, or the compositor's lower one: without primary selection).
///
/// One thread uses a connection. Nothing blocks but `init` (two round trips): poll `descriptor` for
/// readability, then `read()` and take the `events` it queued; requests go out with `flush()`.
public final class WaylandConnection {
    /// The data-control protocol bound.
    public enum DataControl: Equatable, Sendable, CustomStringConvertible {
        case ext
        case wlr(version: UInt32)
        public var description: String {
            switch self {
            case .ext: "ext-data-control-v1"
            case .wlr(let version): "wlr-data-control-unstable-v1 version \(version)"
            }
        }
        /// Whether the primary selection can be read and set.
        public var hasPrimarySelection: Bool {
            if case .wlr(let version) = self { return version >= 2 }
            return true
        }
    }

    /// What the compositor said, as `read()` queued it.
    public enum Event: Equatable, Sendable {
        /// A new offer (another client's selection); its MIME types follow as `offerType`.
        case offer(OfferID)
        case offerType(OfferID, mimeType: String)
        /// The selection (or primary selection) is now `offer`, or empty.
        case selection(OfferID?, primary: Bool)
        /// A reader asks `source` for `mimeType`: write to `fd` and close it (the receiver owns it).
        case send(SourceID, mimeType: String, fd: Int32)
        /// `source` is no longer a selection.
        case cancelled(SourceID)
        /// The seat went away: its selections can no longer be managed.
        case finished
        /// The compositor handled every request sent before `sync()` returned this token.
        case synced(UInt32)
    }

    public struct OfferID: Hashable, Sendable, CustomStringConvertible {
        public let rawValue: UInt32
        public var description: String { "offer \(rawValue)" }
    }
    public struct SourceID: Hashable, Sendable, CustomStringConvertible {
        public let rawValue: UInt32
        public var description: String { "source \(rawValue)" }
    }

    public struct ConnectionError: Error, Equatable, CustomStringConvertible {
        public let description: String
    }

    private let connection: OpaquePointer
    /// The protocol bound, or nil when the compositor offers neither (GNOME's mutter, weston) or has no seat.
    public let dataControl: DataControl?

    /// Connects to `name` (a socket name under `$XDG_RUNTIME_DIR`, or an absolute path; nil: `$WAYLAND_DISPLAY`).
    public init(name: String?) throws(ConnectionError) {
        var message = [CChar](repeating: 0, count: 256)
        let opened: OpaquePointer? = message.withUnsafeMutableBufferPointer { buffer in
            if let name { return name.withCString { pbw_connect($0, buffer.baseAddress, buffer.count) } }
            return pbw_connect(nil, buffer.baseAddress, buffer.count)
        }
        guard let opened else { throw ConnectionError(description: Self.text(message)) }
        connection = opened
        switch pbw_bound_protocol(opened) {
        case PBW_PROTOCOL_EXT: dataControl = .ext
        case PBW_PROTOCOL_WLR: dataControl = .wlr(version: pbw_manager_version(opened))
        default: dataControl = nil
        }
    }

    deinit { pbw_disconnect(connection) }

    /// A NUL-terminated message the shim wrote.
    private static func text(_ message: [CChar]) -> String {
        String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The descriptor to poll for readability.
    public var descriptor: Int32 { pbw_descriptor(connection) }

    /// Reads what arrived (the descriptor was readable) and returns the events, oldest first. Throws when the
    /// connection is lost (the compositor exited) or the compositor reported a protocol error.
    public func read() throws(ConnectionError) -> [Event] {
        var message = [CChar](repeating: 0, count: 256)
        let status = message.withUnsafeMutableBufferPointer { pbw_read(connection, $0.baseAddress, $0.count) }
        let events = takeEvents()
        guard status == 0 else { throw ConnectionError(description: Self.text(message)) }
        return events
    }

    /// The events queued so far (those of `init`'s round trips, before any `read`).
    public func takeEvents() -> [Event] {
        var events: [Event] = []
        var raw = pbw_event()
        while pbw_next_event(connection, &raw) == 1 {
            let text = raw.text.map { String(cString: $0) } ?? ""
            pbw_free(raw.text)
            switch raw.kind {
            case PBW_EVENT_OFFER: events.append(.offer(OfferID(rawValue: raw.id)))
            case PBW_EVENT_OFFER_TYPE: events.append(.offerType(OfferID(rawValue: raw.id), mimeType: text))
            case PBW_EVENT_SELECTION: events.append(.selection(raw.id == 0 ? nil : OfferID(rawValue: raw.id), primary: raw.primary != 0))
            case PBW_EVENT_SEND: events.append(.send(SourceID(rawValue: raw.id), mimeType: text, fd: raw.fd))
            case PBW_EVENT_CANCELLED: events.append(.cancelled(SourceID(rawValue: raw.id)))
            case PBW_EVENT_FINISHED: events.append(.finished)
            case PBW_EVENT_SYNCED: events.append(.synced(raw.id))
            default: if raw.fd >= 0 { close(raw.fd) }
            }
        }
        return events
    }

    /// Sends the requests made. False when the socket is full (poll for writability, then flush again).
    /// Throws when the connection is lost.
    @discardableResult
    public func flush() throws(ConnectionError) -> Bool {
        switch pbw_flush(connection) {
        case 0: return true
        case 1: return false
        default: throw ConnectionError(description: "the connection to the Wayland compositor was lost")
        }
    }

    /// Asks `offer` for `mimeType`, to be written to `fd` (a pipe's write end: close it after this call).
    /// False for an offer already destroyed.
    public func receive(_ offer: OfferID, mimeType: String, into fd: Int32) -> Bool {
        mimeType.withCString { pbw_receive(connection, offer.rawValue, $0, fd) } == 0
    }

    public func destroy(_ offer: OfferID) { pbw_offer_destroy(connection, offer.rawValue) }

    /// Asks the compositor to say (`Event.synced` with the token returned) once it has handled every request
    /// sent so far — and so sent every event that came before; nil when the request could not be made.
    public func sync() -> UInt32? {
        let token = pbw_sync(connection)
        return token == 0 ? nil : token
    }

    /// A new source offering `mimeTypes`; nil without a data-control manager.
    public func makeSource(offering mimeTypes: [String]) -> SourceID? {
        let id = pbw_source_create(connection)
        guard id != 0 else { return nil }
        for type in mimeTypes { type.withCString { pbw_source_offer(connection, id, $0) } }
        return SourceID(rawValue: id)
    }

    public func destroy(_ source: SourceID) { pbw_source_destroy(connection, source.rawValue) }

    /// Makes `source` (nil: none) the selection, or the primary selection. False when the connection cannot
    /// (no device, or no primary selection with this protocol).
    public func setSelection(_ source: SourceID?, primary: Bool = false) -> Bool {
        pbw_set_selection(connection, source?.rawValue ?? 0, primary ? 1 : 0) == 0
    }
}
