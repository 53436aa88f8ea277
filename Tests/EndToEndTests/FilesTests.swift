// SPDX-License-Identifier: Apache-2.0
import Foundation
import SystemSupport
import TestSupport
import XCTest

/// Files on the clipboard, with GTK 3 and Qt 5 as the real readers and writers (Peers/toolkits.py):
/// `Gtk.Clipboard.wait_for_uris` and x-special/gnome-copied-files as Nautilus reads it, `QMimeData.urls()`
/// and KIO's cut marker as Dolphin reads them; a GTK owner of x-special/gnome-copied-files (Nautilus's
/// format) and a Qt owner of URLs with the cut marker (Dolphin's).
final class FilesTests: DesktopTestCase {
    /// Creates `names` (with their names as content) in a fresh directory and returns their paths.
    func makeFiles(_ names: [String]) throws -> [String] {
        let directory = desktop.home + "/files-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return try names.map { name in
            let path = directory + "/" + name
            try Data(name.utf8).write(to: URL(fileURLWithPath: path))
            return path
        }
    }

    func emptyDirectory() throws -> String {
        let path = desktop.home + "/paste-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    func toolkit(_ arguments: String...) throws -> [String: Any] {
        let result = try run("/usr/bin/python3", [peer("toolkits.py")] + arguments, timeout: 60)
        XCTAssertEqual(result.status, 0, result.stderr)
        return (try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [String: Any]) ?? [:]
    }

    /// Starts a toolkit owner, waits for its "ready" and for pasteboardd to have read its copy (the
    /// history's newest entry is `preview`).
    func startToolkitOwner(_ arguments: [String], preview: String) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [peer("toolkits.py")] + arguments
        process.environment = desktop.environment
        let output = Pipe()
        process.standardInput = FileHandle(forReadingAtPath: "/dev/null")
        process.standardOutput = output
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
        XCTAssertEqual(try LineReader(output.fileHandleForReading).line(timeout: 60), "ready")
        try waitUntil(10, "pasteboardd read the copy") {
            try pb("history", "list", "--limit", "1").text.hasSuffix(preview + "\n")
        }
        return process
    }

    /// Stops an owner by its PID and waits until pasteboardd serves what it had copied.
    func quit(_ owner: Process) throws {
        stop(owner)
        try waitUntil(10, "pasteboardd took CLIPBOARD over") {
            try pb("status").text.contains("owned.CLIPBOARD: yes")
        }
    }

    func uri(_ path: String) -> String {
        "file://" + path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "#?%")))!
    }

    // MARK: - pb as the writer

    func testFilesCopiedWithPbAreFilesToGTKAndQt() throws {
        let paths = try makeFiles(["a b.txt", "#hash%.txt", "naïve €.txt"])
        try pb(["copy", "--files"] + paths)
        let gtk = try toolkit("gtk-files")
        XCTAssertEqual(gtk["uris"] as? [String], paths.map(uri), "percent-encoded as GLib writes them")
        XCTAssertEqual(gtk["paths"] as? [String], paths, "GIO makes the same paths of them")
        XCTAssertEqual(gtk["copied"] as? String, "copy\n" + paths.map(uri).joined(separator: "\n"))
        let qt = try toolkit("qt-files")
        XCTAssertEqual(qt["paths"] as? [String], paths)
        XCTAssertEqual(qt["cut"] as? String, "0", "KIO reads a copy")
        XCTAssertEqual(try pb("paste").text, paths.joined(separator: "\n"), "the paths as text, no newline at the end")
        XCTAssertEqual(try pb("history", "list", "--limit", "1").text.split(separator: "\t").last,
                       "3 files: a b.txt, #hash%.txt, naïve €.txt\n")

        try pb(["copy", "--cut"] + paths)
        XCTAssertEqual(try toolkit("qt-files")["cut"] as? String, "1")
        XCTAssertEqual(try toolkit("gtk-files")["copied"] as? String, "cut\n" + paths.map(uri).joined(separator: "\n"))
    }

    // MARK: - Toolkits as the writers

    func testADolphinStyleCutInQtIsACutForGTKAfterQtQuitsAndPbPasteFilesMovesIt() throws {
        let paths = try makeFiles(["report.txt", "photo 1.png"])
        let qt = try startToolkitOwner(["qt-own-files", "cut"] + paths, preview: "2 files cut: report.txt, photo 1.png")
        // While Qt owns it, pb reads the URI list and KIO's marker beside it through X.
        XCTAssertEqual(try pb("paste", "-t", "x-special/gnome-copied-files").text, "cut\n" + paths.map(uri).joined(separator: "\n"))
        try quit(qt)
        let gtk = try toolkit("gtk-files")
        XCTAssertEqual(gtk["copied"] as? String, "cut\n" + paths.map(uri).joined(separator: "\n"), "Nautilus would move them")
        XCTAssertEqual(gtk["paths"] as? [String], paths)

        let destination = try emptyDirectory()
        let moved = try pb("paste", "--files", destination)
        XCTAssertEqual(moved.text, paths.map { "moved \($0) to \(destination)/\(($0 as NSString).lastPathComponent)\n" }.joined())
        for path in paths {
            XCTAssertFalse(FileManager.default.fileExists(atPath: path), "moved away: \(path)")
            let name = (path as NSString).lastPathComponent
            XCTAssertEqual(try String(contentsOfFile: destination + "/" + name, encoding: .utf8), name)
        }
        XCTAssertEqual(try run(desktop.pb, ["paste"]).status, 2, "a cut pasted whole is cleared, as file managers do")
    }

    func testANautilusStyleCopyInGTKIsPastedByPbAndIsURLsForQtAfterGTKQuits() throws {
        let paths = try makeFiles(["notes.md", "ünïcode.txt"])
        let gtk = try startToolkitOwner(["gtk-own-files", "copy"] + paths, preview: "2 files: notes.md, ünïcode.txt")
        let destination = try emptyDirectory()
        let copied = try pb("paste", "--files", destination)
        XCTAssertEqual(copied.text, paths.map { "copied \($0) to \(destination)/\(($0 as NSString).lastPathComponent)\n" }.joined())
        for path in paths { XCTAssertTrue(FileManager.default.fileExists(atPath: path), "a copy leaves \(path)") }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: destination).sorted(), ["notes.md", "ünïcode.txt"])

        try quit(gtk)
        let qt = try toolkit("qt-files")
        XCTAssertEqual(qt["paths"] as? [String], paths, "Dolphin gets the URI list derived from Nautilus's format")
        XCTAssertEqual(qt["cut"] as? String, "0")
    }

    // MARK: - Bad input

    func testEachFileThatCannotBePastedIsRefusedAndNothingIsOverwritten() throws {
        let paths = try makeFiles(["good.txt", "other.txt", "kept.txt"])
        let directory = (paths[0] as NSString).deletingLastPathComponent
        let host = ProcessIdentity.hostName ?? "localhost"
        let list = [
            uri(paths[0]),
            "https://example.com/page.html",
            "file://elsewhere.example/etc/hostname",
            "file://" + directory + "/a%2Fb",
            "file://" + directory + "/nul%00name",
            "file://" + directory + "/%2E%2E/x",
            "file://" + directory + "/missing.txt",
            "file://\(host)" + directory + "/other.txt",
            "file://" + directory + "/sub/good.txt",
            uri(paths[2]),
        ].joined(separator: "\r\n") + "\r\n"
        let owner = try startTestOwner(targets: [("text/uri-list", Array(list.utf8))])
        defer { owner.exit() }
        let destination = try emptyDirectory()
        try Data("mine".utf8).write(to: URL(fileURLWithPath: destination + "/kept.txt"))

        let result = try run(desktop.pb, ["paste", "--files", destination])
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(result.text, "copied \(paths[0]) to \(destination)/good.txt\ncopied \(paths[1]) to \(destination)/other.txt\n",
                       "the good ones, this machine's host name included, are pasted all the same")
        let errors = result.stderr.split(separator: "\n").map(String.init)
        let expected = [
            "file 2 (https://example.com/page.html): not a file: URI (only local files can be pasted)",
            "file 3 (file://elsewhere.example/etc/hostname): the URI names another machine (host elsewhere.example)",
            "file 4 (file://\(directory)/a%2Fb): the URI encodes a / inside a file name",
            "file 5 (file://\(directory)/nul%00name): the URI encodes a NUL byte",
            "file 6 (file://\(directory)/%2E%2E/x): the path has a . or .. component",
            "\(directory)/missing.txt: lstat(\(directory)/missing.txt): No such file or directory (errno 2)",
            "\(directory)/sub/good.txt: another file named good.txt is pasted too; not pasted",
            "\(destination)/kept.txt: exists; not replaced (--force replaces it)",
        ]
        XCTAssertEqual(errors, expected.map { "pb: " + $0 })
        XCTAssertEqual(try String(contentsOfFile: destination + "/kept.txt", encoding: .utf8), "mine")

        let forced = try run(desktop.pb, ["paste", "--files", "--force", destination])
        XCTAssertEqual(forced.status, 1, "the bad URIs are still bad")
        XCTAssertEqual(try String(contentsOfFile: destination + "/kept.txt", encoding: .utf8), "kept.txt", "replaced when asked")
    }

    func testWhatIsNotAFileListIsReportedWithPastesExitStatuses() throws {
        let destination = try emptyDirectory()
        let broken = try startTestOwner(targets: [("x-special/gnome-copied-files", Array("move\nfile:///tmp/x".utf8))])
        let result = try run(desktop.pb, ["paste", "--files", destination])
        XCTAssertEqual(result.status, 3)
        XCTAssertEqual(result.stderr, "pb: the files on CLIPBOARD are not a valid list: the first line is neither copy nor cut\n")
        broken.exit()

        try pb("copy", "just text")
        let text = try run(desktop.pb, ["paste", "--files", destination])
        XCTAssertEqual(text.status, 3, "text is never taken for files")
        XCTAssertTrue(text.stderr.contains("holds no files"), text.stderr)
        try pb("clear")
        XCTAssertEqual(try run(desktop.pb, ["paste", "--files", destination]).status, 2)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: destination), [])

        let paths = try makeFiles(["x.txt"])
        try pb("copy", "--files", paths[0])
        let notDirectory = try run(desktop.pb, ["paste", "--files", paths[0]])
        XCTAssertEqual(notDirectory.status, 1)
        XCTAssertEqual(notDirectory.stderr, "pb: \(paths[0]) is not a directory\n")

        let missing = try run(desktop.pb, ["copy", "--files", desktop.home + "/no-such-file"])
        XCTAssertEqual(missing.status, 1)
        XCTAssertEqual(missing.stderr, "pb: \(desktop.home)/no-such-file: no such file or directory\n")
        XCTAssertEqual(try run(desktop.pb, ["copy", "--files"]).status, 64)
        XCTAssertEqual(try run(desktop.pb, ["copy", "--cut", "-t", "html", paths[0]]).status, 64)
        XCTAssertEqual(try run(desktop.pb, ["paste", "--files", "-t", "html"]).status, 64)
    }
}
