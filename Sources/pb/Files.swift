// SPDX-License-Identifier: Apache-2.0
import CLISupport
import Pasteboard
import SystemSupport

/// `pb copy --files` and `pb paste --files`: files on the clipboard, as file managers put them there.
extension Runner {
    /// Offers the files at `request.files` (relative paths made absolute) as a file manager does: GNOME's
    /// list, the URI list, KDE's cut marker for a cut, the paths as text. One change.
    func copyFiles(_ request: CopyRequest) -> ExitCode {
        var paths: [String] = []
        for operand in request.files {
            do {
                let path = try FileSystem.absolutePath(operand)
                _ = try FileSystem.status(path, followSymbolicLinks: false)
                _ = try FileURI.encode(path: path)
                paths.append(path)
            } catch let error as Errno where error.code == .noSuchFileOrDirectory {
                return fail("\(Self.shown(operand)): no such file or directory")
            } catch {
                return fail("\(Self.shown(operand)): \(error)")
            }
        }
        do {
            let list = try FileList(action: request.cut ? .cut : .copy, paths: paths)
            let item = try PasteboardItem(list.representations)
            try board(request.pasteboard).setItems([item], options: request.options)
            return .success
        } catch {
            return fail("\(error)")
        }
    }

    /// Copies (for a cut, moves) the files a file manager put on the pasteboard into the directory asked
    /// (the current one by default), one line per file on standard output; what cannot be pasted is said on
    /// standard error and makes the status 1, the other files are pasted all the same. Nothing is replaced
    /// without `--force`; a file already in the directory is left where it is. After a cut whose every
    /// file moved, the pasteboard is cleared, as file managers do (the files are no longer where it says),
    /// unless its changeCount moved meanwhile (a new copy is never cleared).
    func pasteFiles(_ request: PasteRequest) -> ExitCode {
        let board = board(request.pasteboard, timeoutMilliseconds: request.timeoutMilliseconds)
        // The count the files were read at: a cut is cleared afterwards only if nothing was copied meanwhile.
        let countWhenRead = try? board.changeCount
        let list: FileList
        do {
            guard let files = try board.files() else {
                return fail("\(request.pasteboard) holds no files (it offers neither x-special/gnome-copied-files nor text/uri-list)", .typeNotOffered)
            }
            list = files
        } catch {
            return fail(error, pasteboard: request.pasteboard)
        }
        let directory: String
        do {
            directory = try FileSystem.absolutePath(request.filesDirectory ?? ".")
            guard try FileSystem.status(directory).kind == .directory else { return fail("\(Self.shown(directory)) is not a directory") }
        } catch {
            return fail("cannot paste into \(Self.shown(request.filesDirectory ?? ".")): \(error)")
        }
        let localHosts: Set<String> = ProcessIdentity.hostName.map { [$0] } ?? []
        let verb = list.action == .cut ? "moved" : "copied"
        var names: Set<String> = []
        var failures = 0
        func refuse(_ what: String, _ why: String) {
            Output.error("\(programName): \(what): \(why)")
            failures += 1
        }
        for (index, uri) in list.uris.enumerated() {
            let source: String
            do { source = try FileURI.path(of: uri, localHostNames: localHosts) } catch {
                refuse("file \(index + 1) (\(Self.shown(uri)))", "\(error)")
                continue
            }
            let name = String(source.split(separator: "/").last ?? "")
            let destination = (directory == "/" ? "" : directory) + "/" + name
            guard names.insert(name).inserted else {
                refuse(Self.shown(source), "another file named \(Self.shown(name)) is pasted too; not pasted")
                continue
            }
            if let from = try? FileSystem.status(source, followSymbolicLinks: false),
               let to = try? FileSystem.status(destination, followSymbolicLinks: false),
               from.device == to.device && from.inode == to.inode {
                Output.line("\(Self.shown(destination)) is already there")
                continue
            }
            do {
                let skipped = list.action == .cut
                    ? try FileTree.move(source, to: destination, replacing: request.force)
                    : try FileTree.copy(source, to: destination, replacing: request.force)
                Output.line("\(verb) \(Self.shown(source)) to \(Self.shown(destination))")
                for path in skipped { refuse(Self.shown(path), "not a file, directory or link; skipped") }
            } catch FileTree.Refusal.exists(let path) {
                refuse(Self.shown(path), "exists; not replaced (--force replaces it)")
            } catch {
                refuse(Self.shown(source), "\(error)")
            }
        }
        if list.action == .cut && failures == 0, let count = countWhenRead, (try? board.changeCount) == count {
            _ = try? board.clear()
        }
        return failures == 0 ? .success : .failure
    }

    /// A path or URI as it is shown on a terminal: no control character, at most 4096 characters.
    static func shown(_ text: String) -> String { OneLine.make(text, limit: 4096) }
}
