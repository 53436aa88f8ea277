// SPDX-License-Identifier: Apache-2.0
import PasteboardCore
import Selection
import SystemSupport
import XTypes

/// Keeps clipboard content alive after the application that copied it exits, without taking the
/// clipboard from a live owner ("read early, own late"), and keeps the history.
///
/// - Read early: when another client takes CLIPBOARD, a background snapshot reads its targets
///   (`Snapshotter`, within `SnapshotPolicy`'s caps).
/// - Own late: when XFixes reports the owner's window destroyed or its client closed, the daemon takes the
///   clipboard with the saved targets once the events already received are handled (a successor among them
///   wins), claiming it as of the vanished owner's own selection time: a successor that owns it again with
///   that time or later (Wine destroys its window and owns the clipboard again) wins over the daemon in any
///   order, without a fixed wait. That is not a new change: the count does not move. Never after a clear,
///   never for secret content.
/// - CLIPBOARD_MANAGER: the daemon owns the freedesktop manager selection when no one does and answers
///   SAVE_TARGETS, replying only once every target was read (INCR included) and the clipboard is ours. Held by
///   another pasteboardd's window, it is taken once the X server reports that window's hold ended.
/// - Persistence: the newest non-secret CLIPBOARD content is kept in `$XDG_STATE_HOME/pasteboard/
///   clipboard.archive` (or, a small copy in history, in the history's journal, which says so) and restored at
///   start when nobody owns the clipboard — or when its owner is the window of a pasteboardd that is gone
///   (`DaemonMark`), once the X server reports that window gone; the history lives beside it.
final class ClipboardManager {
    private unowned let service: SelectionService
    private let x: any XDisplay
    private let snapshotter: Snapshotter
    private let clock: any MonotonicClock
    private let log: Logger
    var configuration: DaemonConfiguration {
        didSet {
            snapshotter.policy = configuration.snapshotPolicy
            snapshotter.ownerTimeout = .milliseconds(configuration.ownerTimeoutMs)
            history.maximumEntries = configuration.historyLength
            history.maximumBytes = configuration.historyMaxBytes
            history.deduplicate = configuration.historyDeduplicate
        }
    }
    let history: HistoryStore
    private let stateDirectory: String?
    /// While paused nothing is read, recorded or taken over.
    var paused: Bool {
        get { state.paused }
        set { state.paused = newValue }
    }

    /// What the manager knows of each pasteboard's current content, and what it means to do (`ManagerState`).
    private(set) var state = ManagerState()
    /// - Parameter keeping: the history and the writer of another display's manager, to share (one
    ///   pasteboard, one history); nil: this manager makes them (the first display's).
    init(service: SelectionService, clock: any MonotonicClock, log: Logger, configuration: DaemonConfiguration,
         stateDirectory: String?, sharing keeping: ClipboardManager? = nil) {
        self.service = service
        self.x = service.x
        self.clock = clock
        self.log = log
        self.configuration = configuration
        self.stateDirectory = configuration.ramOnly ? nil : stateDirectory
        snapshotter = Snapshotter(x: service.x, clock: clock, log: log, policy: configuration.snapshotPolicy,
                                  ownerTimeout: .milliseconds(configuration.ownerTimeoutMs))
        let writer = keeping?.writer ?? BackgroundWriter()
        self.writer = writer
        restoresKeptContent = keeping == nil
        history = keeping?.history ?? HistoryStore(directory: self.stateDirectory.map { $0 + "/history" },
                                                   keptArchive: self.stateDirectory.map { $0 + "/clipboard.archive" },
                                                   maximumEntries: configuration.historyLength, maximumBytes: configuration.historyMaxBytes,
                                                   deduplicate: configuration.historyDeduplicate, writer: writer)
    }

    /// Where a copy read by another endpoint may be read straight into its archive's file (`IncomingArchive`): the
    /// history's directory, when the history is on disk (nil: RAM-only).
    var incomingDirectory: String? { stateDirectory.map { $0 + "/history" } }

    /// Writes and removes the kept content and history files off the event loop, in order.
    let writer: BackgroundWriter
    /// Only the first display's manager restores the kept content at start; the others are served it.
    private let restoresKeptContent: Bool
    /// Called when a snapshot of a pasteboard ended, whatever it came to (the display's endpoint answers
    /// the fetches that waited for it).
    var onSnapshotEnded: ((PasteboardName) -> Void)?

    /// Called when a snapshot read the owner's TARGETS: the pasteboard, the change, the targets' names.
    var onTargets: ((PasteboardName, UInt64, [String]) -> Void)?
    /// Called with each representation a snapshot keeps, as soon as it is read: the pasteboard, the change.
    var onKept: ((PasteboardName, UInt64, Representation) -> Void)?
    /// Called when a snapshot starts receiving a target by INCR: the pasteboard, the change, the target, its
    /// bytes as they arrive (a reader on another display may be sent them as they come).
    var onArriving: ((PasteboardName, UInt64, PasteboardType, ArrivingBytes) -> Void)?
    /// Called when kept content was restored at start and is served (at that count): other displays serve it too.
    var onRestored: ((PasteboardName, UInt64) -> Void)?
    /// True when another endpoint holds `name` at start (a Wayland client's live copy): its kept content is not
    /// restored over it, as it is not over an X owner.
    var heldElsewhere: (PasteboardName) -> Bool = { _ in false }

    /// Stops reading every owner (the display is no longer served): what was being relayed elsewhere fails.
    func abandonSnapshots(_ why: String) { snapshotter.abandonAll(why) }

    /// The content read for `name` at change `count`, if the manager holds it.
    func keptContent(of name: PasteboardName, count: UInt64) -> PasteboardContent? {
        switch state.phase(of: name) {
        case .read(let readCount, let content) where readCount == count: content
        case .takeoverDue(let readCount, let content, _, _) where readCount == count: content
        default: nil
        }
    }

    /// True when change `count` of `name` is not to be read: set by an excluded application.
    func isExcluded(_ name: PasteboardName, count: UInt64) -> Bool { state.phase(of: name) == .secret(count: count) }

    /// True while the manager reads `name` from its owner.
    func isReading(_ name: PasteboardName) -> Bool { snapshotter.isActive(x.intern(name.rawValue)) }

    /// Waits until every file change asked for is on disk (a clean stop).
    func finishWrites() {
        writer.drain()
        logWriteFailures()
    }

    private func logWriteFailures() {
        for failure in writer.takeFailures() { log.limited(.warning, key: "disk-write", failure) }
    }

    /// Snapshots in progress, for `pb status`.
    var snapshotsInProgress: Int { snapshotter.activeCount }

    private var archivePath: String? { archivePath(for: .general) }

    /// Named pasteboards created with --persistent: their content is kept and restored like CLIPBOARD's.
    var persistent: Set<PasteboardName> = []

    /// Where `name`'s newest content is kept: `clipboard.archive` for CLIPBOARD, `pasteboards.d/<hex>.archive`
    /// for a persistent named pasteboard (the name hex-encoded, so any name is a safe file name).
    private func archivePath(for name: PasteboardName) -> String? {
        guard let stateDirectory else { return nil }
        if name == .general { return stateDirectory + "/clipboard.archive" }
        let hex = name.rawValue.utf8.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        return stateDirectory + "/pasteboards.d/" + hex + ".archive"
    }

    /// Forgets a removed pasteboard's kept content.
    func forget(_ name: PasteboardName) {
        discardKept(name)
        persistent.remove(name)
    }

    /// Removes `name`'s kept content from the disk, wherever it is (for CLIPBOARD, the history's journal may say
    /// which of its entries it is: that goes first, so a crash between the two brings nothing back).
    private func discardKept(_ name: PasteboardName) {
        guard let path = archivePath(for: name) else { return }
        if name == .general { history.keptElsewhere() }
        writer.submit(.remove(path: path))
    }

    // MARK: - Start

    /// Restores the last CLIPBOARD content if nobody owns the clipboard, and becomes the clipboard
    /// manager unless another one is running.
    ///
    /// A selection still owned by the window of a pasteboardd that is gone (`DaemonMark.hasEnded`: killed, and
    /// this daemon started before the X server saw its connection close) is not taken from it: the daemon waits
    /// for the server to report that window gone (XFixes) and then restores, or takes CLIPBOARD_MANAGER, as of the
    /// gone owner's selection time — so whoever sets the selection meanwhile, or at once after, keeps it.
    func start() {
        markDaemonWindow()
        let managerSelection = x.atoms.clipboardManager
        // Watched before its owner is asked: a hold that ends after the answer is reported (the pasteboards are
        // watched already, by the endpoint's start).
        x.watchSelection(managerSelection, on: service.ownerWindow)
        if restoresKeptContent { restore() }
        let owner = x.selectionOwner(managerSelection)
        if owner.isNone {
            acquireManagerSelection()
        } else if let mark = DaemonMark.read(from: owner, x) {
            // Two daemons on one display would both take over each vanished owner and answer each other's
            // takeover as a new copy: the one that manages the display does that alone, until its hold ends.
            state.anotherDaemonManages = true
            state.managerSelectionAwaited = true
            if hasEnded(mark) {
                log.info("the pasteboardd (pid \(mark.processID)) that managed \(displayName) is gone: acting as manager once the X server sees its window go")
            } else {
                log.info("another pasteboardd (pid \(mark.processID)) manages \(displayName): bridging its copies, leaving takeovers to it until it stops")
            }
        } else {
            log.info("another clipboard manager owns CLIPBOARD_MANAGER; pasteboardd will not take it")
        }
    }

    /// Takes CLIPBOARD_MANAGER (as of `time`, a vanished owner's, if given) and announces the new manager.
    private func acquireManagerSelection(at time: Timestamp? = nil) {
        let managerSelection = x.atoms.clipboardManager
        service.acquire(managerSelection, at: time) { [weak self] time in
            guard let self else { return }
            guard let time else {
                self.log.info("another clipboard manager took CLIPBOARD_MANAGER first; not acting as manager")
                return
            }
            self.state.managerAcquiredAt = time
            self.state.anotherDaemonManages = false
            // ICCCM 2.8: announce the new manager to clients waiting for one.
            self.x.sendClientMessage(to: self.x.root, eventMask: [.structureNotify], window: self.x.root,
                                     type: self.x.atoms.manager,
                                     data: [Int(time.rawValue), Int(managerSelection.rawValue), Int(self.service.ownerWindow.rawValue), 0, 0])
            self.log.info("acting as clipboard manager (CLIPBOARD_MANAGER)")
        }
    }

    /// Whether process `pid` of this machine runs pasteboardd (`DaemonMark.runsDaemon`; a test gives its own).
    var runsDaemon: (Int32) -> Bool = DaemonMark.runsDaemon

    /// True when `mark` is a pasteboardd's that is gone (`DaemonMark.hasEnded`).
    private func hasEnded(_ mark: DaemonMark) -> Bool { mark.hasEnded(local: .own, runsDaemon: runsDaemon) }

    /// A selection that is no pasteboard changed owner (XFixes): CLIPBOARD_MANAGER, while the daemon waits for a
    /// pasteboardd's hold on it to end.
    func otherSelectionChanged(_ change: SelectionOwnerChange) {
        guard change.selection == x.atoms.clipboardManager, state.managerSelectionAwaited else { return }
        if change.kind == .setOwner && !change.owner.isNone {
            guard change.owner != service.ownerWindow, DaemonMark.read(from: change.owner, x) == nil else { return }
            state.managerSelectionAwaited = false
            state.anotherDaemonManages = false
            log.info("another clipboard manager took CLIPBOARD_MANAGER; pasteboardd will not take it")
            return
        }
        // Released, or its window or client gone: taken as of that hold's time, so a manager that takes it at
        // the same moment wins whatever the order.
        state.managerSelectionAwaited = false
        acquireManagerSelection(at: change.selectionTime)
    }

    private func restore() {
        for name in [PasteboardName.general] + persistent.sorted(by: { $0.rawValue < $1.rawValue }) {
            restore(name)
        }
    }

    private func restore(_ name: PasteboardName) {
        var skipped: [SkippedRepresentation] = []
        let journalKept = name == .general ? history.keptArchive(skipped: &skipped) : nil
        guard let path = archivePath(for: name), journalKept != nil || FileSystem.fileExists(path) else { return }
        do {
            // Kept content is written up to the history's budget, whatever its source (a pb copy may exceed the
            // snapshot cap): it is read back up to that. Its large representations stay in the file and are
            // served from there. A small one the history's journal holds is read from there.
            let archive = try journalKept ?? ContentArchive.open(path: path, contentBytes: configuration.historyMaxBytes, skipped: &skipped)
            if !skipped.isEmpty { log.info("restoring \(name) without \(skipped.count) of its types: \(skipped.summary())") }
            guard !archive.content.items.isEmpty else {
                log.warning("cannot restore the saved content of \(name): none of its types can be kept")
                return
            }
            // The archive keeps the content; who copied it is in the history entry it is (the same digest).
            var content = archive.content
            if let newest = history.entries.first(where: { $0.pasteboard == name }), newest.source != nil,
               newest.digest == HistoryStore.digest(of: content) {
                content.source = newest.source
            }
            let owner = x.selectionOwner(x.intern(name.rawValue))
            if owner.isNone && !heldElsewhere(name) {
                state.restoreStarted(name, .underWay)
                restoreNow(name, content)
            } else if !heldElsewhere(name), let mark = DaemonMark.read(from: owner, x), owner != service.ownerWindow, hasEnded(mark) {
                state.restoreStarted(name, .awaitingOwnerGone(content))
                log.info("\(name) is still owned by the window of pasteboardd pid \(mark.processID), which is gone: "
                         + "restoring its saved content once the X server sees that window go")
            } else {
                log.info("\(name) is owned; not restoring its saved content")
            }
        } catch {
            log.warning("cannot restore the saved content of \(name): \(error)")
        }
    }

    /// Serves `content` as `name`'s, not a new change: now (asking the server's time) or as of `time`, the gone
    /// owner's selection time. Given up if anyone sets `name` before the server's time arrives (`isRestoring`).
    private func restoreNow(_ name: PasteboardName, _ content: PasteboardContent, at time: Timestamp? = nil) {
        var ownership = SelectionService.Ownership(content: content, silent: true)
        ownership.stillWanted = { [weak self] in self?.state.isRestoring(name) == true }
        service.own(name, ownership, at: time) { [weak self, log] result in
            self?.state.restoreEnded(name)
            switch result {
            case .failure(.lostRace): log.info("not restoring \(name): another client set it first")
            case .failure(let error): log.warning("could not restore \(name): \(error)")
            case .success(let count): self?.onRestored?(name, count)
            }
        }
    }

    // MARK: - Hooks from the selection service

    /// Another client took `name`: read its content in the background.
    func foreignOwnerChanged(_ name: PasteboardName, selection: Atom, owner: WindowID, count: UInt64, source: ContentSource? = nil) {
        let excluded = excludedClass(of: owner)
        if let excluded { log.info("\(name) was set by an excluded application (\(excluded)): not read") }
        guard state.foreignOwner(name, count: count, excluded: excluded != nil, source: source) else { return }
        if name == .general {
            snapshot(name, selection: selection, count: count)
        } else if name == .primary && (configuration.recordPrimary || configuration.syncPrimaryToClipboard) {
            // A drag-select changes PRIMARY many times: read once it settles.
            snapshotter.abandon(selection)
            state.primaryDue = clock.now() + .milliseconds(500)
        }
    }

    private func snapshot(_ name: PasteboardName, selection: Atom, count: UInt64, targets: [Atom]? = nil,
                          then: ((Snapshotter.Outcome) -> Void)? = nil) {
        snapshotter.start(Snapshotter.Request(selection: selection, name: name, targets: targets,
                                              onTargets: { [weak self] in self?.onTargets?(name, count, $0) },
                                              onKept: { [weak self] in self?.onKept?(name, count, $0) },
                                              onArriving: { [weak self] in self?.onArriving?(name, count, PasteboardType($0), $1) },
                                              incomingDirectory: incomingDirectory) {
            [weak self] outcome in
            self?.snapshotDone(name, count: count, outcome)
            then?(outcome)
            self?.onSnapshotEnded?(name)
        })
    }

    /// The change whose left-out targets were last logged, per pasteboard.
    private var loggedOmissions: [PasteboardName: UInt64] = [:]

    private func snapshotDone(_ name: PasteboardName, count: UInt64, _ outcome: Snapshotter.Outcome) {
        switch state.snapshotEnded(name, count: count, outcome) {
        case .ignore:
            return
        case .keep(let content, let takeOverAt):
            // Watchers learn what the copy is, now that it is read (`kept`: not a change).
            service.onChange?(.serving(name, count: count, content, state: .kept))
            if case .complete(_, let skipped, _) = outcome, !skipped.isEmpty, loggedOmissions[name] != count {
                // One line per change (a SAVE_TARGETS read of the same change says nothing again), naming each
                // target left out and why (never content).
                loggedOmissions[name] = count
                log.info("kept \(name) without \(skipped.count) of its targets: \(skipped.summary())")
            }
            if case .complete(_, _, let incoming) = outcome { record(name, content, incoming: incoming) } else { record(name, content) }
            if let ownerTime = takeOverAt {
                _ = state.ownerVanished(name, currentCount: count, ownerTime: ownerTime, now: clock.now(), readInProgress: false)
            }
            if name == .primary && configuration.syncPrimaryToClipboard {
                service.own(.general, content: content) { _ in }
            } else if name == .general && configuration.enrichRichText && Self.hasRichText(content)
                        && x.selectionOwner(x.atoms.clipboard) != service.ownerWindow {
                // Serve the same content with every rich and plain target at once: not a new change.
                log.info("enriching CLIPBOARD with derived rich-text targets")
                service.own(.general, content: content, silent: true) { _ in }
            }
        case .secret(let countChange):
            log.info("\(name) holds secret content: not read, recorded or kept")
            if name == .general { discardKept(name) }
            if countChange { service.countExternalChange(name) }
        case .unreadable(let countChange):
            if case .failed(let why, let skipped) = outcome {
                log.info("could not read \(name): \(why)" + (skipped.isEmpty ? "" : " (\(skipped.summary()))"))
            }
            if countChange { service.countExternalChange(name) }
        }
    }

    static func hasRichText(_ content: PasteboardContent) -> Bool {
        content.types.contains { ConversionTable.standard.family(of: $0) == .richText }
    }

    /// The WM_CLASS (instance or class name) of `owner` or of its client leader, when it is one the
    /// configuration excludes.
    private func excludedClass(of owner: WindowID) -> String? {
        guard !configuration.excludedWindowClasses.isEmpty, !owner.isNone else { return nil }
        return service.serials.lookingUp { service.sources.classNames(of: owner) }.first { name in
            configuration.excludedWindowClasses.contains { $0.lowercased() == name.lowercased() }
        }
    }

    /// The owner set `name` to None: forget its content; never bring it back.
    func cleared(_ name: PasteboardName) {
        state.cleared(name)
        snapshotter.abandon(x.intern(name.rawValue))
        if name == .general || persistent.contains(name) {
            // Gone from the disk before anything else happens: a crash right after a clear must not bring
            // the content back (the only removal that waits for the writer thread).
            discardKept(name)
            finishWrites()
        }
    }

    /// The owner of `name` went away. Returns true when the manager will take over (or count the change
    /// itself once it knows it cannot).
    func ownerVanished(_ name: PasteboardName, selection: Atom, ownerTime: Timestamp) -> Bool {
        switch state.ownerVanished(name, currentCount: service.count(of: name), ownerTime: ownerTime, now: clock.now(),
                                   readInProgress: snapshotter.isActive(selection)) {
        case .notManaged: return false
        case .takeOver, .decideWhenRead, .restoring: return true
        case .restore(let content):
            log.info("the gone pasteboardd's window no longer owns \(name): restoring its saved content")
            restoreNow(name, content, at: ownerTime)
            return true
        }
    }

    /// The daemon took `name` with new content (pb copy, the library). Secret or expiring content is kept
    /// nowhere but in what is served: an older archive of the pasteboard is removed, so that a restart does
    /// not bring back what came before it either.
    func daemonOwned(_ name: PasteboardName, content: PasteboardContent, count: UInt64) {
        state.daemonOwned(name, count: count, content: content)
        if content.isKeptOnlyWhileServed {
            if name == .general || persistent.contains(name) { discardKept(name) }
            return
        }
        if !paused { record(name, content) }
    }

    /// Keeps non-secret content: the newest CLIPBOARD content on disk, and every change in history, whatever
    /// its size — written on the writer thread (atomically, 0600), so a large copy holds nothing on the loop,
    /// and the history keeps no copy of its own once the file is written. The kept content is written once:
    /// when the history holds it in a file, the archive is a hard link to that file (a 10 MiB copy costs one write
    /// and one fsync, not two of each); when the history holds it in its journal (a small copy), the journal's frame
    /// for it also says it is the kept content, and there is no archive (a line costs one append and one
    /// fdatasync). Content larger than the history's whole budget (`historyMaxBytes`) is neither recorded nor
    /// written: it is served from memory while it lasts. A copy another kind of endpoint read (a Wayland seat's) is
    /// recorded here too, at the count this display adopted.
    ///
    /// A copy read straight into its archive's file (`incoming`: a large copy read early from an X owner or a
    /// Wayland seat, with its digest) is
    /// kept by committing that file, never written again: as the history's entry (the kept archive a link to it), or
    /// as the kept archive when the history does not take it; a file neither takes is removed once the reader drops it.
    func record(_ name: PasteboardName, _ content: PasteboardContent, incoming: (archive: IncomingArchive, digest: UInt64)? = nil) {
        guard !content.isKeptOnlyWhileServed, !paused else { return }
        let fits = content.byteCount <= configuration.historyMaxBytes
        let time = WallClock.now
        let count = service.count(of: name) ?? 0
        var placement: HistoryStore.Placement?
        let keptOnDisk = (name == .general || persistent.contains(name)) ? archivePath(for: name) : nil
        // nspasteboard.org's auto-generated content is not the user's copy: served and kept, never in history.
        if content.isAutoGenerated { log.info("\(name) holds auto-generated content (org.nspasteboard.AutoGeneratedType): not recorded in history") }
        if fits && !content.isAutoGenerated && (name == .general || (name == .primary && configuration.recordPrimary)) {
            placement = history.add(content, pasteboard: name, time: time, changeCount: count, incoming: incoming,
                                    keeping: name == .general && keptOnDisk != nil)
        }
        guard let path = keptOnDisk else {
            if case .file(let historyFile) = placement { serveFromFile(name, count: count, content, once: historyFile, readInto: incoming != nil) }
            return
        }
        guard fits else {
            // An older archive must not come back after a restart in place of this content.
            discardKept(name)
            log.info("\(name) holds \(content.byteCount) bytes, more than historyMaxBytes (\(configuration.historyMaxBytes)): "
                     + (incoming == nil ? "served from memory" : "served from the file it was read into, removed") + ", not kept in history or on disk")
            return
        }
        // A small copy the history holds in its journal is kept there too (the journal says so: one write).
        if placement == .journal && name == .general { return }
        try? FileSystem.createDirectory(FileSystem.parentDirectory(of: path), mode: 0o700, intermediate: true)
        if case .file(let historyFile) = placement {
            writer.submit(.link(existing: historyFile, path: path))
        } else {
            let archive = ContentArchive(pasteboard: name, changeCount: count, time: time, content: content)
            writer.submit(incoming?.archive.commit(as: path, archive) ?? .writeSegments(path: path, segments: archive.encodeSegments(), mode: 0o600))
        }
        if name == .general { history.keptElsewhere() }
        serveFromFile(name, count: count, content, once: path, readInto: incoming != nil)
    }

    // MARK: - Serving large content from its file

    /// A file being written that will hold exactly a change's content.
    private struct Adoption {
        var name: PasteboardName
        var count: UInt64
        var path: String
    }
    /// By the id of the writer's notice that follows the file's write.
    private var adoptions: [UInt64: Adoption] = [:]

    /// Called when the content of a change was adopted from its file (`adoptWrittenFiles`): what else holds
    /// that change's bytes (the endpoint's offer) lets them go.
    var onAdopted: ((PasteboardName, UInt64, PasteboardContent) -> Void)?

    /// Once `path` is written, serves and keeps `name`'s change `count` from it when its content has a
    /// representation large enough to be left in the file (`ContentArchive.servedFromFileAbove`): the bytes in
    /// memory are let go then, so a large copy costs page cache, not the daemon's memory. Content served from files
    /// already is left as it is, unless it was read into this very file (`readInto`: its small representations are
    /// then served from there too).
    private func serveFromFile(_ name: PasteboardName, count: UInt64, _ content: PasteboardContent, once path: String,
                               readInto: Bool = false) {
        guard readInto || !content.hasSources, content.items.contains(where: { $0.representations.contains { $0.byteCount >= ContentArchive.servedFromFileAbove } })
        else { return }
        adoptions[writer.submitNotice()] = Adoption(name: name, count: count, path: path)
    }

    /// The writer finished the changes before `notices`: each file this manager waited for is opened and its
    /// content served and kept in place of the bytes in memory, if that change is still current. (The writer
    /// is shared by the displays' managers: each takes the notices it asked for.)
    func adoptWrittenFiles(_ notices: [UInt64]) {
        for id in notices {
            guard let adoption = adoptions.removeValue(forKey: id) else { continue }
            adopt(adoption)
        }
    }

    private func adopt(_ adoption: Adoption) {
        let (name, count) = (adoption.name, adoption.count)
        guard let held = keptContent(of: name, count: count) ?? (service.count(of: name) == count ? service.content(of: name) : nil)
        else { return }
        let archive: ContentArchive
        do {
            var skipped: [SkippedRepresentation] = []
            archive = try ContentArchive.open(path: adoption.path, contentBytes: configuration.historyMaxBytes, skipped: &skipped)
        } catch {
            log.limited(.warning, key: "adopt", "cannot serve \(name) from \(adoption.path), serving it from memory: \(error)")
            return
        }
        var replacement = archive.content
        replacement.isSensitive = held.isSensitive
        replacement.isTransient = held.isTransient
        replacement.isLocalOnly = held.isLocalOnly
        guard replacement.hasSameShape(as: held) else {
            log.limited(.warning, key: "adopt", "\(adoption.path) does not hold \(name)'s current content: serving it from memory")
            return
        }
        let served = service.adopt(name, count: count, replacement)
        let kept = state.adopt(name, count: count, replacement)
        guard served || kept else { return }
        log.debug("serving \(name) (count \(count)) from \(adoption.path)")
        onAdopted?(name, count, replacement)
        MemoryRelease.trim()
    }

    /// Marks the daemon's window as pasteboardd's (`DaemonMark`), so another pasteboardd on the display knows it
    /// — and a daemon started after this one was killed knows it for gone.
    func markDaemonWindow() { DaemonMark.own.write(on: service.ownerWindow, x) }

    /// The display's name, for the log (set by its endpoint).
    var displayName = "this display"

    /// Gives CLIPBOARD_MANAGER up (the display is no longer served), if the daemon holds it.
    func releaseManagerSelection() {
        guard let time = state.managerAcquiredAt else { return }
        state.managerAcquiredAt = nil
        if x.selectionOwner(x.atoms.clipboardManager) == service.ownerWindow {
            x.setSelectionOwner(x.atoms.clipboardManager, owner: .none, time: time)
        }
        x.flush()
    }

    /// Another client took a selection the daemon held that is not a pasteboard.
    func lostSelection(_ selection: Atom) {
        if selection == x.atoms.clipboardManager, state.managerAcquiredAt != nil {
            state.managerAcquiredAt = nil
            log.info("another clipboard manager took CLIPBOARD_MANAGER; no longer acting as manager")
        }
    }

    // MARK: - Events and timers

    /// Events for snapshots and for a SAVE_TARGETS requestor; true when consumed.
    func handle(_ event: XEventValue) -> Bool {
        if snapshotter.handle(event) { return true }
        if case .destroyNotify(let window) = event, let save = state.save, window == save.request.requestor {
            log.info("the client asking to save the clipboard went away: nothing saved")
            snapshotter.abandon(x.atoms.clipboard)
            state.save = nil
        }
        return false
    }

    var nextDeadline: MonotonicInstant? {
        var earliest = Earliest()
        earliest.add(snapshotter.nextDeadline)
        earliest.add(state.nextDeadline)
        return earliest.value
    }

    func expire(now: MonotonicInstant) {
        logWriteFailures()
        snapshotter.expire(now: now)
        if let due = state.primaryDue, due <= now {
            state.primaryDue = nil
            if let phase = state.phase(of: .primary), case .reading(let count, _) = phase, !paused {
                snapshot(.primary, selection: x.atoms.primary, count: count)
            }
        }
        for takeover in state.takeDueTakeovers(now: now) { takeOver(takeover) }
    }

    private func takeOver(_ takeover: ManagerState.Takeover) {
        let name = takeover.name
        guard x.selectionOwner(x.intern(name.rawValue)).isNone else {
            log.debug("\(name) has a new owner; no takeover")
            return
        }
        service.own(name, content: takeover.content, silent: true, at: takeover.ownerTime) { [log] result in
            if case .failure(let error) = result { log.info("could not take over \(name): \(error)") }
        }
    }

    // MARK: - CLIPBOARD_MANAGER and SAVE_TARGETS

    /// Answers a request for CLIPBOARD_MANAGER; false when the request is not for it.
    func answer(_ request: SelectionRequest) -> Bool {
        guard request.selection == x.atoms.clipboardManager else { return false }
        guard let acquiredAt = state.managerAcquiredAt else {
            service.executor.refuse(request)
            return true
        }
        guard request.target == x.atoms.saveTargets else {
            service.executor.answer(request, acquiredAt: acquiredAt, offered: [x.atoms.saveTargets], convert: { _ in nil })
            return true
        }
        startSave(request)
        return true
    }

    private func startSave(_ request: SelectionRequest) {
        let property = request.property.isNone ? x.atoms.saveTargets : request.property
        guard state.save == nil, !paused else {
            refuseSave(request, why: state.save != nil ? "a save is already in progress" : "recording is paused")
            return
        }
        let owner = x.selectionOwner(x.atoms.clipboard)
        guard !owner.isNone, owner != service.ownerWindow else {
            refuseSave(request, why: "nobody else owns CLIPBOARD")
            return
        }
        // The list of targets to save, if the client gave one (else every target).
        var targets: [Atom]? = nil
        if !request.property.isNone {
            service.serials.label(.reply(requestor: request.requestor))
            let read = x.getProperty(request.requestor, request.property, delete: false, maximumBytes: 64 << 10)
            if let value = read.value, value.format == 32, !value.atoms.isEmpty { targets = value.atoms }
        }
        state.save = ManagerState.SaveRequest(request: request, property: property)
        x.selectInput(request.requestor, [.structureNotify])
        let count = service.count(of: .general) ?? 0
        _ = state.foreignOwner(.general, count: count, excluded: false)
        snapshot(.general, selection: x.atoms.clipboard, count: count, targets: targets) { [weak self] outcome in
            self?.saveRead(outcome)
        }
    }

    private func saveRead(_ outcome: Snapshotter.Outcome) {
        guard let save = state.save else { return }
        guard case .complete(let content, _, _) = outcome else {
            state.save = nil
            refuseSave(save.request, why: "its content could not be read")
            return
        }
        // Take the clipboard first; only then tell the client, which exits on seeing the reply.
        service.own(.general, content: content, silent: true) { [weak self] result in
            guard let self, self.state.save?.request == save.request else { return }
            self.state.save = nil
            guard case .success = result else {
                self.refuseSave(save.request, why: "the clipboard could not be taken")
                return
            }
            self.x.selectInput(save.request.requestor, [])
            self.service.executor.acknowledge(save.request, property: save.property)
            self.log.info("saved CLIPBOARD for an exiting client (\(content.types.count) types, \(content.byteCount) bytes)")
        }
    }

    private func refuseSave(_ request: SelectionRequest, why: String) {
        log.info("refused to save the clipboard: \(why)")
        x.selectInput(request.requestor, [])
        service.executor.refuse(request)
    }
}
