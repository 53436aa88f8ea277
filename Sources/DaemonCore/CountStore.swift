import PasteboardCore
import SystemSupport

/// Persists every pasteboard's changeCount in `$XDG_STATE_HOME/pasteboard/counts` so that counts never
/// go back or repeat across restarts, even when the X server was reset in between (root-window
/// properties die with the server). One line per pasteboard, `NAME<TAB>COUNT`, written atomically
/// (temp file, fsync, rename, fsync of the directory) and mode 0600.
struct CountStore {
    let path: String?

    /// `directory` nil keeps counts in memory only (RAM-only mode, or no usable state directory).
    init(directory: String?) {
        path = directory.map { $0 + "/counts" }
    }

    func load() -> [PasteboardName: UInt64] {
        guard let path, let bytes = try? FileSystem.readFile(path, limit: 1 << 20) else { return [:] }
        var counts: [PasteboardName: UInt64] = [:]
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            let fields = line.split(separator: "\t")
            guard fields.count == 2, let count = UInt64(fields[1]),
                  let name = PasteboardName.named(String(fields[0])) else { continue }
            counts[name] = max(counts[name] ?? 0, count)
        }
        return counts
    }

    func save(_ counts: [PasteboardName: UInt64]) throws {
        guard let path else { return }
        let text = counts.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key.rawValue)\t\($0.value)\n" }.joined()
        try AtomicFile.write(Array(text.utf8), to: path, mode: 0o600)
    }
}
