// SPDX-License-Identifier: Apache-2.0
/// A property read in one request.
public struct PropertyRead: Sendable {
    /// Nil when the property does not exist.
    public var value: PropertyValue?
    /// Bytes left unread past `maximumBytes` (then a delete was not done).
    public var bytesAfter: Int

    public init(value: PropertyValue?, bytesAfter: Int) {
        self.value = value
        self.bytesAfter = bytesAfter
    }
}

/// How a content served on a display numbers its type names as atoms: `intern` (a list, in one round trip) and its
/// inverse `name`. A display with a server uses the server's atoms (`XDisplay.contentNames()`'s default); one
/// without gives each content a table of its own, so the names live only as long as the content serving them.
public struct ContentNames {
    public var intern: ([String]) -> [Atom]
    public var name: (Atom) -> String?

    public init(intern: @escaping ([String]) -> [Atom], name: @escaping (Atom) -> String?) {
        self.intern = intern
        self.name = name
    }
}

/// How `changeProperty` combines the new data with the old (X's PropModeReplace, Prepend, Append).
public enum PropertyMode: Int32, Sendable {
    case replace = 0, prepend = 1, append = 2
}

/// The calls a selection owner, requestor and clipboard manager make on an X server, as one interface:
/// the real connection (`XClient.XConnection`, over Xlib) and a fake one (TestSupport's `FakeXServer`)
/// implement it, so the daemon's and the library's logic run against either. Semantics are Xlib's; each
/// requirement names the Xlib function it stands for in `XConnection`'s documentation.
///
/// Not thread-safe: every call comes from the thread that owns the connection.
public protocol XDisplay: AnyObject, CompoundTextCodec {
    /// The default screen's root window.
    var root: WindowID { get }
    /// The protocol atoms, interned at connect time.
    var atoms: StandardAtoms { get }
    /// The largest request the server accepts, in bytes.
    var maximumRequestBytes: Int { get }
    /// The serial the next request will carry; errors carry the serial of the request that caused them.
    var nextRequestSerial: UInt64 { get }
    /// True once the connection to the server is gone; every later call is a no-op.
    var isConnectionLost: Bool { get }
    /// The descriptor to poll for events, or nil when events are only ever already pending (a fake server
    /// delivers them as it is called: nothing more will come by waiting).
    var pollDescriptor: Int32? { get }

    /// Sends buffered requests.
    func flush()
    /// Sends buffered requests and waits until the server processed them.
    func sync()
    /// Events already received, without blocking (flushes first).
    func pendingEvents() -> Int
    /// `pendingEvents()`, or 0 at no cost when none can be there: none was found at the last look and nothing
    /// since could have read the socket, and the socket was not reported readable (`socketIsReadable()`). For a
    /// loop that polls `pollDescriptor` and says so when it is ready.
    func eventsWaiting() -> Int
    /// The poll found `pollDescriptor` readable (or hung up): the next `eventsWaiting()` looks.
    func socketIsReadable()
    /// The next event; call only when `pendingEvents() > 0`.
    func nextEvent() -> XEventValue
    /// The protocol errors recorded since the last call, oldest first.
    func takeErrors() -> [XProtocolError]

    func intern(_ name: String) -> Atom
    /// Interns several names in one round trip.
    func intern(_ names: [String]) -> [Atom]
    func name(of atom: Atom) -> String?
    /// The names a content served here is numbered with (`ContentNames`): by default this display's own atoms.
    func contentNames() -> ContentNames

    /// An unmapped window of this client's, selecting `eventMask`.
    func createWindow(eventMask: EventMask) -> WindowID
    func destroyWindow(_ window: WindowID)
    /// Replaces this client's event mask on `window`.
    func selectInput(_ window: WindowID, _ mask: EventMask)

    func setSelectionOwner(_ selection: Atom, owner: WindowID, time: Timestamp)
    /// A round trip.
    func selectionOwner(_ selection: Atom) -> WindowID
    func convertSelection(_ selection: Atom, target: Atom, property: Atom, requestor: WindowID, time: Timestamp)
    /// Sends SelectionNotify to `requestor` (`property` `.none` refuses).
    func sendSelectionNotify(requestor: WindowID, selection: Atom, target: Atom, property: Atom, time: Timestamp)
    func sendClientMessage(to destination: WindowID, eventMask: EventMask, window: WindowID, type: Atom, data: [Int])
    /// XFixes selection events about `selection`, delivered to `window`.
    func watchSelection(_ selection: Atom, on window: WindowID, mask: XFixesSelectionMask)

    func changeProperty(_ window: WindowID, _ property: Atom, _ value: PropertyValue, mode: PropertyMode)
    /// Writes format-8 data straight from `bytes` (no copy is made first).
    func changeProperty(_ window: WindowID, _ property: Atom, type: Atom, bytes: UnsafeRawBufferPointer, mode: PropertyMode)
    /// Reads up to `maximumBytes` from byte `offset` on (a multiple of 4), deleting the property if `delete` and
    /// the read reached its end. A round trip.
    func getProperty(_ window: WindowID, _ property: Atom, offset: Int, delete: Bool, maximumBytes: Int) -> PropertyRead
    /// `getProperty` with format-8 data left where it was read: `body` gets the read, whose value (if any) then
    /// has empty bytes, and the data, valid only during the call (for other formats the data is empty and the
    /// value holds the items). A reader appending INCR chunks copies each once, not twice. A round trip.
    func withProperty<Result>(_ window: WindowID, _ property: Atom, offset: Int, delete: Bool, maximumBytes: Int,
                              _ body: (PropertyRead, UnsafeRawBufferPointer) -> Result) -> Result
    func deleteProperty(_ window: WindowID, _ property: Atom)
    /// The process id of the local client that created `window`, as the X server knows it (X-Resource 1.2);
    /// nil when the server cannot tell (no extension, a remote client) or the window is gone. A round trip.
    func clientProcessID(of window: WindowID) -> Int32?
    /// The window that has the input focus; `.none` when none has (or PointerRoot). A round trip.
    func inputFocus() -> WindowID
}

extension XDisplay {
    /// Always looks (a fake server delivers its events as it is called).
    public func eventsWaiting() -> Int { pendingEvents() }
    public func socketIsReadable() {}
    /// A server that cannot say which process made a window (a fake one, unless it says).
    public func clientProcessID(of window: WindowID) -> Int32? { nil }
    /// A server with no focus (a fake one, unless it says).
    public func inputFocus() -> WindowID { .none }
    /// The server's atoms: a name interned for one content is the same atom for every other.
    public func contentNames() -> ContentNames {
        ContentNames(intern: { self.intern($0) }, name: { self.name(of: $0) })
    }

    public func changeProperty(_ window: WindowID, _ property: Atom, _ value: PropertyValue) {
        changeProperty(window, property, value, mode: .replace)
    }

    public func changeProperty(_ window: WindowID, _ property: Atom, type: Atom, bytes: UnsafeRawBufferPointer) {
        changeProperty(window, property, type: type, bytes: bytes, mode: .replace)
    }

    public func watchSelection(_ selection: Atom, on window: WindowID) {
        watchSelection(selection, on: window, mask: .all)
    }

    public func createWindow() -> WindowID { createWindow(eventMask: [.propertyChange]) }

    /// Reads up to `maximumBytes` from the start of the property.
    public func getProperty(_ window: WindowID, _ property: Atom, delete: Bool, maximumBytes: Int) -> PropertyRead {
        getProperty(window, property, offset: 0, delete: delete, maximumBytes: maximumBytes)
    }

    /// `withProperty` over `getProperty`, for displays that hold property values as arrays anyway (fakes).
    public func withProperty<Result>(_ window: WindowID, _ property: Atom, offset: Int, delete: Bool, maximumBytes: Int,
                                     _ body: (PropertyRead, UnsafeRawBufferPointer) -> Result) -> Result {
        var read = getProperty(window, property, offset: offset, delete: delete, maximumBytes: maximumBytes)
        guard let value = read.value, let bytes = value.bytes else { return body(read, UnsafeRawBufferPointer(start: nil, count: 0)) }
        read.value = PropertyValue(type: value.type, bytes: [])
        return bytes.withUnsafeBytes { body(read, $0) }
    }
}
