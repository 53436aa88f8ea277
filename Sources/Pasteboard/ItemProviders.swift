// SPDX-License-Identifier: Apache-2.0
import ControlProtocol
import PasteboardCore
import SystemSupport

/// An item whose types are announced now and whose bytes are made only when a reader asks for one
/// (NSPasteboardItemDataProvider, NSItemProvider): `provide` runs in this process, on the library's own
/// thread, the first time any reader — an X application, pb, another display's application — asks for one of
/// `types`; the daemon keeps the bytes for the rest of this change.
///
/// ```swift
/// try Pasteboard.general.setItemProviders([
///     PasteboardItemProvider(types: [.png, .utf8PlainText]) { type in
///         type == .png ? try render() : Array("a chart".utf8)
///     }
/// ])
/// ```
public struct PasteboardItemProvider: Sendable {
    public let types: [PasteboardType]
    /// Makes the bytes of one of `types`; a thrown error refuses that type to its reader.
    public let provide: @Sendable (PasteboardType) throws -> [UInt8]

    public init(types: [PasteboardType], provide: @escaping @Sendable (PasteboardType) throws -> [UInt8]) {
        self.types = types
        self.provide = provide
    }
}

extension Pasteboard {
    /// Replaces the content with items whose bytes `providers` make on request (NSPasteboard's
    /// `declareTypes(_:owner:)` with a data provider): one change, announced at once with every type; returns
    /// the new count. The library answers the daemon's requests on a thread of its own over a connection of
    /// its own, so the caller needs no run loop; each type is asked for once per change. A provider that throws,
    /// or does not answer within 3 s, refuses that type to the reader who asked.
    ///
    /// The providers serve until the pasteboard changes again. When this process ends (or closes its
    /// connection) first, the types already provided stay on the pasteboard and the others are withdrawn — not
    /// provided first: a process that is ending should not make every type nobody asked for, and one that
    /// crashed cannot; a pasteboard of which nothing was provided is cleared then. Lazy content is never
    /// recorded in history or kept across a restart of the daemon: it does not exist until it is asked for.
    ///
    /// Throws `.refused` for an empty list, a provider without types or with a type twice, or an expiry
    /// (`options.expiresAfter` is for content written whole).
    @discardableResult
    public func setItemProviders(_ providers: [PasteboardItemProvider], options: PasteboardOptions = PasteboardOptions()) throws(PasteboardError) -> UInt64 {
        guard !providers.isEmpty else { throw .refused("setItemProviders needs at least one provider") }
        guard options.expiresAfter == nil else { throw .refused("an expiry is for content written whole, not for providers") }
        for (index, provider) in providers.enumerated() {
            guard !provider.types.isEmpty else { throw .refused("provider \(index) has no types") }
            guard Set(provider.types).count == provider.types.count else { throw .refused("provider \(index) names a type twice") }
        }
        var flags: CopyOptions = []
        if options.sensitive { flags.insert(.sensitive) }
        if options.pasteOnce { flags.insert(.pasteOnce) }
        if options.localOnly { flags.insert(.localOnly) }
        let session: ProviderConnection
        do {
            let client = try DaemonClient(environment: environment)
            let answer = try client.send(.setItemProviders(pasteboard: name.rawValue, types: providers.map { $0.types.map(\.rawValue) },
                                                           options: flags))
            guard case .changeCount(_, let count) = answer else { throw PasteboardError.refused("unexpected answer") }
            session = ProviderConnection(client: client, providers: providers, count: count)
        } catch let error as DaemonClientError {
            throw PasteboardError.translate(error)
        } catch let error as PasteboardError {
            throw error
        } catch {
            throw .refused("\(error)")
        }
        guard DetachedThread.start({ session.serve() }) else {
            throw .refused("cannot start the thread that answers for the providers")
        }
        return session.count
    }
}

/// The connection a `setItemProviders` call keeps open, served by one thread: each `provide` event is answered
/// with the first provider that has the type (as X readers see the items: the first that offers a type gives
/// it). Only that thread touches the connection once it runs.
final class ProviderConnection: @unchecked Sendable {
    private let client: DaemonClient
    private let providers: [PasteboardItemProvider]
    let count: UInt64

    init(client: DaemonClient, providers: [PasteboardItemProvider], count: UInt64) {
        self.client = client
        self.providers = providers
        self.count = count
    }

    /// Answers the daemon until it closes the connection (the content was replaced) or the connection breaks.
    func serve() {
        while true {
            guard let event = try? client.receive(deadline: nil) else { return }
            guard case .provide(let request, let name) = event else { continue }   // `ok` answers to what was sent
            let answer = Self.answer(request, for: PasteboardType(name), from: providers)
            do { try client.post(answer) } catch { return }
        }
    }

    /// What to send for `request` asking for `type`: the bytes, or why not.
    static func answer(_ request: UInt64, for type: PasteboardType, from providers: [PasteboardItemProvider]) -> ControlRequest {
        guard let provider = providers.first(where: { $0.types.contains(type) }) else {
            return .provideFailed(request: request, reason: "no provider offers \(type)")
        }
        do {
            let bytes = try provider.provide(type)
            guard bytes.count <= PasteboardLimits.maximumCopyBytes else {
                return .provideFailed(request: request, reason: "the provider made \(bytes.count) bytes of \(type), more than one copy carries (\(PasteboardLimits.maximumCopyBytes))")
            }
            return .provided(request: request, data: bytes)
        } catch {
            return .provideFailed(request: request, reason: "\(error)")
        }
    }
}
