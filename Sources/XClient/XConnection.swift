// SPDX-License-Identifier: Apache-2.0
import CX11
import CX11Shims
import XTypes

/// Why a connection could not be opened.
public enum XConnectionError: Error, CustomStringConvertible, Sendable {
    case cannotOpenDisplay(String)
    case missingExtension(String)

    public var description: String {
        switch self {
        case .cannotOpenDisplay(let name): "cannot open X display \(name.isEmpty ? "(DISPLAY is not set)" : name)"
        case .missingExtension(let name): "the X server lacks the \(name) extension"
        }
    }
}

/// A connection to an X server: the only Swift type that calls Xlib.
///
/// Not thread-safe: every call must come from the thread that opened it (the daemon's event loop, or a
/// command-line tool's main thread). Errors the server reports are recorded, never fatal; drain them
/// with `takeErrors()` and match them to requests by serial (`nextRequestSerial`).
public final class XConnection: XDisplay {
    /// The Xlib display. Calls that cannot read the socket (recorded errors, the next serial, the connection's
    /// state) use it directly; every other call goes through `display`.
    private let handle: OpaquePointer
    /// The Xlib display for a call that may read the socket, and so queue events: any request, flush or round
    /// trip. Using it means `eventsWaiting()` asks Xlib again.
    var display: OpaquePointer {
        drained = false
        return handle
    }
    /// True when `pendingEvents()` found no event, no call since could have read one from the socket, and the
    /// caller has not said the socket became readable (`socketIsReadable()`).
    private var drained = false
    /// The default screen's root window.
    public let root: WindowID
    /// The socket to poll for readability.
    public let fileDescriptor: Int32
    public var pollDescriptor: Int32? { fileDescriptor }
    /// The protocol atoms, interned at connect time.
    public private(set) var atoms: StandardAtoms
    /// The XFixes event base, or nil when the server lacks XFixes.
    public let xfixesEventBase: Int32?

    private var atomByName: [String: Atom] = [:]
    private var nameByAtom: [Atom: String] = [:]

    /// Opens `displayName` (nil: `$DISPLAY`). The corresponding Xlib function is XOpenDisplay.
    public init(displayName: String? = nil) throws(XConnectionError) {
        let opened: OpaquePointer? = displayName.map { XOpenDisplay($0) } ?? XOpenDisplay(nil)
        guard let display = opened else {
            // The name XOpenDisplay tried: the one given, else $DISPLAY (XDisplayName(NULL)), "" if none. Never
            // XDisplayName of the name given: it returns its argument, here a temporary C string freed by then.
            throw .cannotOpenDisplay(displayName ?? XDisplayName(nil).map { String(cString: $0) } ?? "")
        }
        guard pbx_install_handlers(display) != 0 else {
            XCloseDisplay(display)
            throw .cannotOpenDisplay((displayName ?? "") + " (too many X connections open)")
        }
        handle = display
        root = WindowID(UInt32(truncatingIfNeeded: pbx_default_root_window(display)))
        fileDescriptor = pbx_connection_number(display)
        var eventBase: Int32 = 0
        var errorBase: Int32 = 0
        xfixesEventBase = XFixesQueryExtension(display, &eventBase, &errorBase) != 0 ? eventBase : nil
        atoms = StandardAtoms(atoms: Array(repeating: .none, count: StandardAtoms.names.count))
        atoms = StandardAtoms(atoms: intern(StandardAtoms.names))
    }

    deinit {
        pbx_forget(handle)
        XCloseDisplay(handle)
    }

    // MARK: - Connection state

    /// The largest request the server accepts, in bytes (BIG-REQUESTS' extended length when present).
    /// The corresponding Xlib functions are XExtendedMaxRequestSize and XMaxRequestSize.
    public var maximumRequestBytes: Int {
        let extended = XExtendedMaxRequestSize(handle)
        let units = extended > 0 ? extended : XMaxRequestSize(handle)
        return Int(units) * 4
    }

    /// The serial the next request will carry; errors carry the serial of the request that caused them.
    public var nextRequestSerial: UInt64 { UInt64(pbx_next_request(handle)) }

    /// True once the connection to the server is gone; every later call is a no-op.
    public var isConnectionLost: Bool { pbx_connection_lost(handle) != 0 }

    /// Sends buffered requests. The corresponding Xlib function is XFlush. Nothing is buffered while
    /// drained (the last `pendingEvents()` flushed, and no request was made since): no call then.
    public func flush() {
        if drained { return }
        XFlush(display)
    }

    /// Sends buffered requests and waits until the server processed them (so their errors are recorded).
    /// The corresponding Xlib function is XSync.
    public func sync() { XSync(display, 0) }

    /// Events already read from the socket or waiting in it, without blocking.
    /// The corresponding Xlib function is XPending (which flushes first).
    public func pendingEvents() -> Int {
        let pending = Int(XPending(display))
        drained = pending == 0
        return pending
    }

    /// `pendingEvents()`, or 0 without a system call while drained: Xlib's queue was empty at the last look
    /// and nothing since could have filled it (events reach it only through calls that read the socket).
    public func eventsWaiting() -> Int { drained ? 0 : pendingEvents() }

    /// The socket has bytes (or a hangup) to read: the next `eventsWaiting()` asks Xlib.
    public func socketIsReadable() { drained = false }

    /// The errors recorded since the last call, oldest first.
    public func takeErrors() -> [XProtocolError] {
        var result: [XProtocolError] = []
        var buffer = [pbx_error_record](repeating: pbx_error_record(), count: 64)
        while true {
            let n = Int(pbx_take_errors(handle, &buffer, Int32(buffer.count)))
            for record in buffer[0..<n] {
                result.append(XProtocolError(
                    serial: UInt64(record.serial), errorCode: record.error_code,
                    requestCode: record.request_code, minorCode: record.minor_code,
                    resourceID: UInt32(truncatingIfNeeded: record.resource_id)))
            }
            if n < buffer.count { return result }
        }
    }

    // MARK: - Atoms

    /// Interns `name`, creating the atom if needed (`only_if_exists` false, so peers that test for an
    /// atom's existence see it). Cached. The corresponding Xlib function is XInternAtom.
    public func intern(_ name: String) -> Atom {
        if let atom = atomByName[name] { return atom }
        let atom = Atom(UInt32(truncatingIfNeeded: XInternAtom(display, name, 0)))
        remember(atom, name)
        return atom
    }

    /// Interns several names in one round trip. The corresponding Xlib function is XInternAtoms.
    public func intern(_ names: [String]) -> [Atom] {
        // Each name looked up once (a served content's twenty-odd names are interned at every copy).
        var atoms = names.map { atomByName[$0] ?? .none }
        let missing = atoms.indices.filter { atoms[$0].isNone }
        if !missing.isEmpty {
            // One buffer holds every name, NUL-terminated; the pointer list points into it.
            var storage: [CChar] = []
            var offsets: [Int] = []
            for index in missing {
                offsets.append(storage.count)
                storage += names[index].utf8.map { CChar(bitPattern: $0) } + [0]
            }
            var result = [CX11.Atom](repeating: 0, count: missing.count)
            storage.withUnsafeMutableBufferPointer { buffer in
                var pointers: [UnsafeMutablePointer<CChar>?] = offsets.map { buffer.baseAddress! + $0 }
                _ = XInternAtoms(display, &pointers, Int32(missing.count), 0, &result)
            }
            for (index, raw) in zip(missing, result) {
                let atom = Atom(UInt32(truncatingIfNeeded: raw))
                atoms[index] = atom
                remember(atom, names[index])
            }
        }
        return atoms
    }

    /// The name of `atom`, or nil if the server does not know it (a BadAtom is recorded).
    /// Cached. The corresponding Xlib function is XGetAtomName.
    public func name(of atom: Atom) -> String? {
        if atom.isNone { return nil }
        if let name = nameByAtom[atom] { return name }
        guard let cName = XGetAtomName(display, CX11.Atom(atom.rawValue)) else { return nil }
        defer { XFree(cName) }
        let name = String(cString: cName)
        remember(atom, name)
        return name
    }

    /// Caches a name and its atom. Long names (LibreOffice's descriptor names a document's path: one atom
    /// per document) are not kept, and the cache starts over past 4,096 names, so that owners inventing
    /// names cannot grow it without bound.
    private func remember(_ atom: Atom, _ name: String) {
        guard !atom.isNone, name.utf8.count <= 256 else { return }
        if nameByAtom.count >= 4096 {
            nameByAtom.removeAll()
            atomByName.removeAll()
        }
        atomByName[name] = atom
        nameByAtom[atom] = name
    }

    // MARK: - Windows

    /// Creates an unmapped 1×1 window on the root, for owning selections or receiving them.
    /// The corresponding Xlib function is XCreateSimpleWindow.
    public func createWindow(eventMask: EventMask) -> WindowID {
        let raw = XCreateSimpleWindow(display, pbx_default_root_window(display), -10, -10, 1, 1, 0, 0, 0)
        let window = WindowID(UInt32(truncatingIfNeeded: raw))
        selectInput(window, eventMask)
        return window
    }

    /// The corresponding Xlib function is XDestroyWindow.
    public func destroyWindow(_ window: WindowID) {
        XDestroyWindow(display, CX11.Window(window.rawValue))
    }

    /// Replaces this client's event mask on `window` (other clients' masks are not affected).
    /// The corresponding Xlib function is XSelectInput.
    public func selectInput(_ window: WindowID, _ mask: EventMask) {
        XSelectInput(display, CX11.Window(window.rawValue), mask.rawValue)
    }

    // MARK: - Selections

    /// The corresponding Xlib function is XSetSelectionOwner.
    public func setSelectionOwner(_ selection: Atom, owner: WindowID, time: Timestamp) {
        XSetSelectionOwner(display, CX11.Atom(selection.rawValue), CX11.Window(owner.rawValue),
                           CX11.Time(time.rawValue))
    }

    /// Two round trips the first time (the extension's version), one after. The corresponding libXRes function
    /// is XResQueryClientIds (`pbx_client_pid`: libXRes is opened on first use).
    public func clientProcessID(of window: WindowID) -> Int32? {
        let pid = pbx_client_pid(display, CX11.Window(window.rawValue))
        return pid > 0 ? pid : nil
    }

    /// A round trip. The corresponding Xlib function is XGetInputFocus (PointerRoot, 1, counts as none).
    public func inputFocus() -> WindowID {
        var focus: CX11.Window = 0
        var revert: Int32 = 0
        XGetInputFocus(display, &focus, &revert)
        return focus <= 1 ? .none : WindowID(UInt32(truncatingIfNeeded: focus))
    }

    /// A round trip. The corresponding Xlib function is XGetSelectionOwner.
    public func selectionOwner(_ selection: Atom) -> WindowID {
        WindowID(UInt32(truncatingIfNeeded: XGetSelectionOwner(display, CX11.Atom(selection.rawValue))))
    }

    /// The corresponding Xlib function is XConvertSelection.
    public func convertSelection(_ selection: Atom, target: Atom, property: Atom, requestor: WindowID,
                                 time: Timestamp) {
        XConvertSelection(display, CX11.Atom(selection.rawValue), CX11.Atom(target.rawValue),
                          CX11.Atom(property.rawValue), CX11.Window(requestor.rawValue),
                          CX11.Time(time.rawValue))
    }

    /// Sends SelectionNotify to `requestor` (property `.none` refuses the request).
    public func sendSelectionNotify(requestor: WindowID, selection: Atom, target: Atom, property: Atom,
                                    time: Timestamp) {
        _ = pbx_send_selection_notify(display, CX11.Window(requestor.rawValue), CX11.Atom(selection.rawValue),
                                      CX11.Atom(target.rawValue), CX11.Atom(property.rawValue),
                                      CX11.Time(time.rawValue))
    }

    /// Sends a 32-bit ClientMessage (e.g. the ICCCM MANAGER announcement) to `destination`.
    public func sendClientMessage(to destination: WindowID, eventMask: EventMask, window: WindowID,
                                  type: Atom, data: [Int]) {
        var longs = [CLong](repeating: 0, count: 5)
        for (i, v) in data.prefix(5).enumerated() { longs[i] = CLong(v) }
        _ = pbx_send_client_message(display, CX11.Window(destination.rawValue), eventMask.rawValue,
                                    CX11.Window(window.rawValue), CX11.Atom(type.rawValue), longs)
    }

    /// Asks for XFixes selection events about `selection` on `window`.
    /// The corresponding Xlib function is XFixesSelectSelectionInput.
    public func watchSelection(_ selection: Atom, on window: WindowID, mask: XFixesSelectionMask) {
        XFixesSelectSelectionInput(display, CX11.Window(window.rawValue), CX11.Atom(selection.rawValue),
                                   UInt(mask.rawValue))
    }

    // MARK: - Properties

    /// Writes a property. Format-32 items are passed to Xlib as C longs.
    /// The corresponding Xlib function is XChangeProperty.
    public func changeProperty(_ window: WindowID, _ property: Atom, _ value: PropertyValue,
                               mode: PropertyMode) {
        switch value.items {
        case .bytes(let bytes):
            bytes.withUnsafeBytes { changeProperty(window, property, type: value.type, bytes: $0, mode: mode) }
        case .source:
            // The selection responder reads a source itself (and refuses one that does not read); this keeps the
            // door total: what reads is written, else an empty value.
            let bytes = (try? value.inMemory().bytes) ?? []
            bytes.withUnsafeBytes { changeProperty(window, property, type: value.type, bytes: $0, mode: mode) }
        case .shorts(let shorts):
            let cShorts = shorts.map { CShort(bitPattern: $0) }
            _ = cShorts.withUnsafeBytes { raw in
                XChangeProperty(display, CX11.Window(window.rawValue), CX11.Atom(property.rawValue),
                                CX11.Atom(value.type.rawValue), 16, mode.rawValue,
                                raw.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(shorts.count))
            }
        case .longs(let longs):
            let cLongs = longs.map { CLong(Int64($0)) }
            _ = cLongs.withUnsafeBytes { raw in
                XChangeProperty(display, CX11.Window(window.rawValue), CX11.Atom(property.rawValue),
                                CX11.Atom(value.type.rawValue), 32, mode.rawValue,
                                raw.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(longs.count))
            }
        }
    }

    /// Writes format-8 data straight from `bytes` without copying it first.
    public func changeProperty(_ window: WindowID, _ property: Atom, type: Atom, bytes: UnsafeRawBufferPointer,
                               mode: PropertyMode) {
        // An empty buffer may have no base address; Xlib still wants a valid pointer, so lend it a
        // byte that lives for the duration of the call.
        var empty: UInt8 = 0
        withUnsafePointer(to: &empty) { fallback in
            let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) ?? fallback
            _ = XChangeProperty(display, CX11.Window(window.rawValue), CX11.Atom(property.rawValue),
                                CX11.Atom(type.rawValue), 8, mode.rawValue, base, Int32(bytes.count))
        }
    }

    /// Reads up to `maximumBytes` of a property from byte `offset` on (a multiple of 4), deleting it if `delete`
    /// and the read reached its end. A round trip. The corresponding Xlib function is XGetWindowProperty.
    public func getProperty(_ window: WindowID, _ property: Atom, offset: Int, delete: Bool, maximumBytes: Int) -> PropertyRead {
        withProperty(window, property, offset: offset, delete: delete, maximumBytes: maximumBytes) { read, bytes in
            guard let value = read.value, value.format == 8 else { return read }
            return PropertyRead(value: PropertyValue(type: value.type, bytes: Array(bytes)), bytesAfter: read.bytesAfter)
        }
    }

    /// `getProperty` with format-8 data handed to `body` in the server's reply itself (the connection's XCB
    /// side: one copy less than XGetWindowProperty, which copies the value out of the reply), freed after the
    /// call. A failed read (an X error, recorded as any other; a lost connection) is a read of no property.
    /// The corresponding Xlib function is XGetWindowProperty; the request is made by `pbx_get_property`.
    public func withProperty<Result>(_ window: WindowID, _ property: Atom, offset: Int, delete: Bool, maximumBytes: Int,
                                     _ body: (PropertyRead, UnsafeRawBufferPointer) -> Result) -> Result {
        var reply = pbx_property()
        let status = pbx_get_property(display, CX11.Window(window.rawValue), CX11.Atom(property.rawValue), offset / 4,
                                      (maximumBytes + 3) / 4, delete ? 1 : 0, &reply)
        defer { pbx_free_property(reply.reply) }
        let none = UnsafeRawBufferPointer(start: nil, count: 0)
        guard status == 0, reply.type != 0 else {
            return body(PropertyRead(value: nil, bytesAfter: 0), none)
        }
        let type = Atom(UInt32(truncatingIfNeeded: reply.type))
        let count = Int(reply.item_count)
        let read = { (items: PropertyValue.Items) in PropertyRead(value: PropertyValue(type: type, items: items), bytesAfter: Int(reply.bytes_after)) }
        guard let data = reply.data, count > 0 else {
            return body(read(reply.format == 16 ? .shorts([]) : reply.format == 32 ? .longs([]) : .bytes([])), none)
        }
        switch reply.format {
        case 8:
            return body(read(.bytes([])), UnsafeRawBufferPointer(start: data, count: count))
        case 16:
            let items = UnsafeRawBufferPointer(start: data, count: count * 2)
            return body(read(.shorts((0..<count).map { items.loadUnaligned(fromByteOffset: $0 * 2, as: UInt16.self) })), none)
        default:
            let items = UnsafeRawBufferPointer(start: data, count: count * 4)
            return body(read(.longs((0..<count).map { items.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self) })), none)
        }
    }

    /// The corresponding Xlib function is XDeleteProperty.
    public func deleteProperty(_ window: WindowID, _ property: Atom) {
        XDeleteProperty(display, CX11.Window(window.rawValue), CX11.Atom(property.rawValue))
    }

    // MARK: - Text encodings Xlib owns (CompoundTextCodec)

    /// COMPOUND_TEXT for UTF-8 text, or nil if Xlib cannot convert it.
    /// The corresponding Xlib function is Xutf8TextListToTextProperty(…, XCompoundTextStyle).
    public func compoundText(fromUTF8 text: [UInt8]) -> [UInt8]? {
        var property = XTextProperty()
        var cString = text.map { CChar(bitPattern: $0) } + [0]
        let status = cString.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var list: UnsafeMutablePointer<CChar>? = buffer.baseAddress
            return Xutf8TextListToTextProperty(display, &list, 1, XCompoundTextStyle, &property)
        }
        guard status >= 0, let value = property.value else { return nil }
        defer { XFree(value) }
        return Array(UnsafeBufferPointer(start: value, count: Int(property.nitems)))
    }

    /// UTF-8 text for COMPOUND_TEXT bytes, or nil if Xlib cannot convert them.
    /// The corresponding Xlib function is Xutf8TextPropertyToTextList.
    public func utf8(fromCompoundText bytes: [UInt8]) -> [UInt8]? {
        var copy = bytes
        return copy.withUnsafeMutableBufferPointer { buffer -> [UInt8]? in
            var property = XTextProperty(value: buffer.baseAddress, encoding: CX11.Atom(atoms.compoundText.rawValue),
                                         format: 8, nitems: UInt(buffer.count))
            var list: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = nil
            var count: Int32 = 0
            guard Xutf8TextPropertyToTextList(display, &property, &list, &count) >= 0, let list else { return nil }
            defer { XFreeStringList(list) }
            var out: [UInt8] = []
            for i in 0..<Int(count) {
                guard let s = list[i] else { continue }
                var p = s
                while p.pointee != 0 { out.append(UInt8(bitPattern: p.pointee)); p += 1 }
            }
            return out
        }
    }
}
