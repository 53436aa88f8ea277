// SPDX-License-Identifier: Apache-2.0
import ControlProtocol
import PasteboardCore
import SystemSupport

/// A pasteboard pasteboardd serves, as `PasteboardDaemon.pasteboards()` lists it.
public struct PasteboardSummary: Equatable, Sendable {
    public var name: PasteboardName
    public var changeCount: UInt64
    /// Its content survives restarts (`pb pasteboard create --persistent`).
    public var persistent: Bool
    /// pasteboardd holds its content now (another application owns it otherwise, or nobody).
    public var held: Bool
}

/// One entry of the clipboard history, newest first (index 0).
public struct HistoryEntry: Equatable, Sendable {
    public var index: Int
    /// Seconds since 1970 (UTC).
    public var time: Int64
    public var pasteboard: PasteboardName
    public var types: [PasteboardType]
    /// Bytes over every representation.
    public var size: UInt64
    /// A one-line preview of the text (never more than a line).
    public var preview: String
    /// Who copied it, when known (nil from a daemon older than this library).
    public var source: ContentSource? = nil
}

/// pasteboardd itself: its status, its pasteboards, the history it keeps, pausing recording.
public final class PasteboardDaemon {
    private let client: DaemonClient

    /// Connects to the daemon of this user; `.daemonNotRunning` when none listens.
    public init(environment: [String: String] = Environment.all) throws(PasteboardError) {
        do { client = try DaemonClient(environment: environment) } catch { throw PasteboardError.translate(error) }
    }

    private func send(_ request: ControlRequest) throws(PasteboardError) -> ControlResponse {
        do { return try client.send(request) } catch { throw PasteboardError.translate(error) }
    }

    /// The daemon's status as name–value pairs, in its order (version, display, counts …).
    public func status() throws(PasteboardError) -> [(name: String, value: String)] {
        guard case .status(let pairs) = try send(.status) else { throw .refused("unexpected answer to status") }
        return pairs.map { ($0.key, $0.value) }
    }

    /// The pasteboards the daemon watches, by name.
    public func pasteboards() throws(PasteboardError) -> [PasteboardSummary] {
        guard case .pasteboards(let all) = try send(.pasteboards) else { throw .refused("unexpected answer") }
        return all.compactMap { info in
            PasteboardName.named(info.name).map {
                PasteboardSummary(name: $0, changeCount: info.changeCount, persistent: info.persistent, held: info.owned)
            }
        }
    }

    /// The X displays the daemon serves as one pasteboard, in order, with how each stands: `connected`,
    /// `connecting` (not reached yet, retried) or `disconnected` (its server went away, retried).
    public func displays() throws(PasteboardError) -> [(name: String, state: String)] {
        guard case .status(let pairs) = try send(.displays) else { throw .refused("unexpected answer to displays") }
        return pairs.map { ($0.key, $0.value) }
    }

    /// The peer daemons asked for, then those that connected, with how each stands and why the last attempt ended.
    public func peers() throws(PasteboardError) -> [(socket: String, state: String, lastError: String)] {
        guard case .peers(let peers) = try send(.peers) else { throw .refused("unexpected answer to peers") }
        return peers.map { ($0.socket, $0.state, $0.lastError) }
    }

    /// Shares the pasteboard with the daemon at `socket` (an absolute path), kept across restarts when `persistent`.
    public func addPeer(_ socket: String, persistent: Bool = true) throws(PasteboardError) {
        _ = try send(.addPeer(socket: socket, persistent: persistent))
    }

    /// Stops sharing with the peer at `socket`.
    public func removePeer(_ socket: String) throws(PasteboardError) {
        _ = try send(.removePeer(socket: socket))
    }

    /// Serves another X display too, while the daemon runs.
    public func addDisplay(_ name: String) throws(PasteboardError) {
        _ = try send(.addDisplay(name: name))
    }

    /// Stops serving an X display (not the first).
    public func removeDisplay(_ name: String) throws(PasteboardError) {
        _ = try send(.removeDisplay(name: name))
    }

    /// Starts serving a named pasteboard (kept across restarts with `persistent`); returns its count.
    @discardableResult
    public func createPasteboard(_ name: PasteboardName, persistent: Bool) throws(PasteboardError) -> UInt64 {
        guard case .changeCount(_, let count) = try send(.createPasteboard(name: name.rawValue, persistent: persistent)) else {
            throw .refused("unexpected answer")
        }
        return count
    }

    /// Stops serving a named pasteboard and forgets its kept content.
    public func removePasteboard(_ name: PasteboardName) throws(PasteboardError) {
        _ = try send(.removePasteboard(name: name.rawValue))
    }

    /// Stops (true) or resumes (false) reading, recording and taking over other applications' copies.
    public func setRecordingPaused(_ paused: Bool) throws(PasteboardError) {
        _ = try send(paused ? .pause : .resume)
    }

    // MARK: - History

    /// The newest `limit` entries (0: all), newest first.
    public func history(limit: Int = 0) throws(PasteboardError) -> [HistoryEntry] {
        let entries: [ControlProtocol.HistoryEntry]
        do {
            guard case .sourcedHistory(let sourced) = try client.send(.sourcedHistory(limit: UInt32(clamping: limit))) else {
                throw PasteboardError.refused("unexpected answer")
            }
            entries = sourced
        } catch DaemonClientError.daemon(code: .badRequest, _) {
            // A daemon older than `sourcedHistory`: the history without sources.
            guard case .history(let plain) = try send(.history(limit: UInt32(clamping: limit))) else { throw .refused("unexpected answer") }
            entries = plain
        } catch let error as PasteboardError {
            throw error
        } catch {
            throw PasteboardError.translate(error)
        }
        return entries.map {
            HistoryEntry(index: Int($0.index), time: $0.timestamp, pasteboard: PasteboardName(rawValue: $0.pasteboard),
                         types: $0.types.map(PasteboardType.init(rawValue:)), size: $0.size, preview: $0.preview, source: $0.source)
        }
    }

    /// The items of history entry `index`; `.notHeld` when there is none.
    public func historyItems(_ index: Int) throws(PasteboardError) -> [PasteboardItem] {
        guard case .items(let items) = try send(.historyItem(index: UInt32(clamping: index))) else { throw .refused("unexpected answer") }
        return items
    }

    /// Makes history entry `index` the clipboard again (one change); returns the new count.
    @discardableResult
    public func copyHistoryEntry(_ index: Int) throws(PasteboardError) -> UInt64 {
        guard case .changeCount(_, let count) = try send(.historyCopy(index: UInt32(clamping: index))) else { throw .refused("unexpected answer") }
        return count
    }

    /// Makes `entry` the clipboard again (one change), wherever it is in the history now: entries listed a
    /// while ago (a menu was open meanwhile) may have moved down as new copies came. `.notHeld` when it is
    /// no longer in the history.
    @discardableResult
    public func copyHistoryEntry(_ entry: HistoryEntry) throws(PasteboardError) -> UInt64 {
        let now = try history()
        let same = { (other: HistoryEntry) in
            other.time == entry.time && other.size == entry.size && other.types == entry.types
                && other.preview == entry.preview && other.pasteboard == entry.pasteboard
        }
        let index = now.indices.contains(entry.index) && same(now[entry.index]) ? entry.index : now.firstIndex(where: same)
        guard let index else { throw .notHeld("that entry is no longer in the history") }
        return try copyHistoryEntry(index)
    }

    /// Deletes history entry `index` (from the disk too, before this returns).
    public func deleteHistoryEntry(_ index: Int) throws(PasteboardError) {
        _ = try send(.historyDelete(index: UInt32(clamping: index)))
    }

    /// Deletes every history entry.
    public func clearHistory() throws(PasteboardError) {
        _ = try send(.historyClear)
    }
}

/// Changes of pasteboards as pasteboardd pushes them: no polling.
public final class PasteboardWatcher {
    private let client: DaemonClient
    private let reportsKept: Bool

    /// Watches `pasteboards` (empty: every pasteboard pasteboardd serves): each change with who copied and the
    /// patterns of its text (`watchEvents`), or without them from a daemon older than this library (`watch`).
    /// `reportsKept`: also the `kept` record that follows another application's copy once pasteboardd read it
    /// (the same count, with its types, source and patterns); not a change of its own.
    public init(pasteboards: [PasteboardName], environment: [String: String] = Environment.all,
                reportsKept: Bool = true) throws(PasteboardError) {
        self.reportsKept = reportsKept
        do {
            client = try DaemonClient(environment: environment)
            do {
                _ = try client.send(.watchEvents(pasteboards: pasteboards.map(\.rawValue), events: .changes))
            } catch .daemon(code: .badRequest, _) {
                _ = try client.send(.watch(pasteboards: pasteboards.map(\.rawValue)))
            }
        } catch {
            throw PasteboardError.translate(error)
        }
    }

    /// The next change, waiting at most `timeoutMilliseconds` (nil: as long as it takes).
    public func next(timeoutMilliseconds: Int? = nil) throws(PasteboardError) -> PasteboardChange {
        let deadline = timeoutMilliseconds.map { SystemClock().now() + .milliseconds($0) }
        while true {
            let response: ControlResponse
            do { response = try client.receive(deadline: deadline) } catch { throw PasteboardError.translate(error) }
            switch response {
            case .changed(let board, let count, let types, let state, let image):
                return PasteboardChange(pasteboard: PasteboardName(rawValue: board), changeCount: count, state: state,
                                        types: types.map(PasteboardType.init(rawValue:)), image: image)
            case .change(let change):
                if change.state == "kept" && !reportsKept { continue }
                return PasteboardChange(pasteboard: PasteboardName(rawValue: change.pasteboard), changeCount: change.count,
                                        state: change.state, types: change.types.map(PasteboardType.init(rawValue:)),
                                        image: change.image, source: change.source, patterns: change.patterns)
            default:
                continue
            }
        }
    }
}

/// Reads of the content pasteboardd serves, as it pushes them: one `PasteboardRead` per X request for a
/// target (TARGETS, TIMESTAMP and MULTIPLE's wrapper are not reads; each target MULTIPLE asks for is) and per
/// paste by a control client, refusals by `readPolicy` included.
public final class PasteboardReadWatcher {
    private let client: DaemonClient

    /// Watches the reads of `pasteboards` (empty: every pasteboard). `.refused` from a daemon older than this
    /// library, which cannot tell.
    public init(pasteboards: [PasteboardName] = [], environment: [String: String] = Environment.all) throws(PasteboardError) {
        do {
            client = try DaemonClient(environment: environment)
            _ = try client.send(.watchEvents(pasteboards: pasteboards.map(\.rawValue), events: .reads))
        } catch .daemon(code: .badRequest, let message) {
            throw .refused("this pasteboardd does not report reads (\(message))")
        } catch {
            throw PasteboardError.translate(error)
        }
    }

    /// The next read, waiting at most `timeoutMilliseconds` (nil: as long as it takes).
    public func next(timeoutMilliseconds: Int? = nil) throws(PasteboardError) -> PasteboardRead {
        let deadline = timeoutMilliseconds.map { SystemClock().now() + .milliseconds($0) }
        while true {
            let response: ControlResponse
            do { response = try client.receive(deadline: deadline) } catch { throw PasteboardError.translate(error) }
            if case .read(let read) = response {
                return PasteboardRead(pasteboard: PasteboardName(rawValue: read.pasteboard), type: PasteboardType(read.type),
                                      reader: read.reader, time: read.time, refusal: read.refusal, via: read.via)
            }
        }
    }
}
