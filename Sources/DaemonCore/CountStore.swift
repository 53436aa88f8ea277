// SPDX-License-Identifier: Apache-2.0
import PasteboardCore
import SystemSupport

/// Persists every pasteboard's changeCount in `$XDG_STATE_HOME/pasteboard/counts` so that counts never
/// go back or repeat across restarts, even when the X server was reset in between (root-window
/// properties die with the server). One line per pasteboard, `NAME<TAB>COUNT`, written atomically
/// (temp file, fsync, rename, fsync of the directory) and mode 0600.
///
/// The file is written ahead: `record` saves every count plus `lease` whenever a count passes what the
/// file holds, so a change costs the two fsyncs only once in `lease` changes, never between a change and
/// its publication. After a crash the counts resume from the file — past every count ever published, by
/// less than `lease`. A clean stop saves the exact counts (`saveExactly`), so a restart continues at once.
struct CountStore {
    let path: String?
    /// How far ahead of the published counts the file is written.
    static let lease: UInt64 = 32
    /// A count in the file above 2^63 (no daemon's: a change a nanosecond for 292 years) is read as this one, far
    /// above any a daemon reaches too, so that the lease added and the counts going on from it never overflow,
    /// however the file was made, and what is then written (below 2^63) reads back as it is.
    static let maximumCount: UInt64 = 1 << 62
    /// What the file holds (after `load`, `record` or `saveExactly`).
    private(set) var saved: [PasteboardName: UInt64] = [:]

    /// `directory` nil keeps counts in memory only (RAM-only mode, or no usable state directory).
    init(directory: String?) {
        path = directory.map { $0 + "/counts" }
    }

    mutating func load() -> [PasteboardName: UInt64] {
        let counts = read()
        saved = counts
        return counts
    }

    /// Makes sure the file holds at least `counts` (writing `counts` + `lease` when it does not).
    mutating func record(_ counts: [PasteboardName: UInt64]) throws {
        guard path != nil, counts.contains(where: { name, count in count > saved[name] ?? 0 }) else { return }
        let ahead = counts.mapValues { $0 + Self.lease }
        try save(ahead)
        saved = ahead
    }

    /// Writes exactly `counts` (a clean stop).
    mutating func saveExactly(_ counts: [PasteboardName: UInt64]) throws {
        try save(counts)
        saved = counts
    }

    private func read() -> [PasteboardName: UInt64] {
        guard let path, let bytes = try? FileSystem.readFile(path, limit: 1 << 20) else { return [:] }
        var counts: [PasteboardName: UInt64] = [:]
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            let fields = line.split(separator: "\t")
            guard fields.count == 2, let count = UInt64(fields[1]),
                  let name = PasteboardName.named(String(fields[0])) else { continue }
            counts[name] = max(counts[name] ?? 0, count > 1 << 63 ? Self.maximumCount : count)
        }
        return counts
    }

    private func save(_ counts: [PasteboardName: UInt64]) throws {
        guard let path else { return }
        let text = counts.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key.rawValue)\t\($0.value)\n" }.joined()
        try AtomicFile.write(Array(text.utf8), to: path, mode: 0o600)
    }
}
