// SPDX-License-Identifier: Apache-2.0
import Glibc
import SystemSupport
import XCTest

/// Copying and moving files and directory trees as `pb paste --files` does: nothing overwritten unless
/// asked, links copied as links, modes kept, moves across file systems.
final class FileTreeTests: XCTestCase {
    var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory()
    }

    override func tearDown() {
        directory.remove()
    }

    func write(_ text: String, _ name: String, mode: FilePermissions = 0o644) throws {
        try AtomicFile.write(Array(text.utf8), to: directory.file(name), mode: mode)
    }

    func read(_ name: String) throws -> String {
        String(decoding: try FileSystem.readFile(directory.file(name), limit: 1 << 20), as: UTF8.self)
    }

    func testAFileIsCopiedWithItsModeAndNeverOverAnotherUnlessAsked() throws {
        try write("original", "a.sh", mode: 0o755)
        try FileTree.copy(directory.file("a.sh"), to: directory.file("b.sh"))
        XCTAssertEqual(try read("b.sh"), "original")
        XCTAssertEqual(try FileSystem.status(directory.file("b.sh")).permissions, 0o755)

        try write("theirs", "c.txt")
        XCTAssertThrowsError(try FileTree.copy(directory.file("a.sh"), to: directory.file("c.txt"))) {
            XCTAssertEqual($0 as? FileTree.Refusal, .exists(directory.file("c.txt")))
        }
        XCTAssertEqual(try read("c.txt"), "theirs", "left alone")
        let before = try FileSystem.status(directory.file("c.txt")).inode
        try FileTree.copy(directory.file("a.sh"), to: directory.file("c.txt"), replacing: true)
        XCTAssertEqual(try read("c.txt"), "original")
        XCTAssertNotEqual(try FileSystem.status(directory.file("c.txt")).inode, before, "a new file renamed over it, not rewritten in place")
        XCTAssertEqual(Set(try FileSystem.listDirectory(directory.path)), ["a.sh", "b.sh", "c.txt"], "no temporary file left")

        try FileSystem.createDirectory(directory.file("dir"))
        XCTAssertThrowsError(try FileTree.copy(directory.file("a.sh"), to: directory.file("dir"))) {
            XCTAssertEqual($0 as? FileTree.Refusal, .exists(directory.file("dir")))
        }
        XCTAssertThrowsError(try FileTree.copy(directory.file("a.sh"), to: directory.file("dir"), replacing: true)) {
            XCTAssertEqual($0 as? FileTree.Refusal, .directoryInTheWay(directory.file("dir")))
        }
        // A directory replaces a file when asked.
        try FileSystem.createDirectory(directory.file("dir/inner"))
        try FileTree.copy(directory.file("dir"), to: directory.file("c.txt"), replacing: true)
        XCTAssertEqual(try FileSystem.listDirectory(directory.file("c.txt")), ["inner"])
    }

    func testADirectoryTreeIsCopiedWithLinksAsLinksAndSpecialFilesSkipped() throws {
        try FileSystem.createDirectory(directory.file("tree"))
        try FileSystem.createDirectory(directory.file("tree/sub"))
        try write("deep", "tree/sub/file.txt")
        try FileSystem.createSymbolicLink(at: directory.file("tree/loop"), pointingTo: ".")
        try FileSystem.createSymbolicLink(at: directory.file("tree/dangling"), pointingTo: "/nonexistent/x")
        XCTAssertEqual(mkfifo(directory.file("tree/fifo"), 0o600), 0)
        try FileSystem.setPermissions(directory.file("tree/sub"), 0o555)
        defer { try? FileSystem.setPermissions(directory.file("tree/sub"), 0o755); try? FileSystem.setPermissions(directory.file("copy/sub"), 0o755) }

        let skipped = try FileTree.copy(directory.file("tree"), to: directory.file("copy"))
        XCTAssertEqual(skipped, [directory.file("tree/fifo")])
        XCTAssertEqual(try read("copy/sub/file.txt"), "deep")
        XCTAssertEqual(try FileSystem.symbolicLinkTarget(directory.file("copy/loop")), ".", "a link loop is copied, not followed")
        XCTAssertEqual(try FileSystem.symbolicLinkTarget(directory.file("copy/dangling")), "/nonexistent/x")
        XCTAssertEqual(try FileSystem.status(directory.file("copy/sub")).permissions, 0o555, "a read-only directory is filled, then made read-only")
        XCTAssertEqual(Set(try FileSystem.listDirectory(directory.file("copy"))), ["sub", "loop", "dangling"])
    }

    func testADirectoryIsNeverCopiedIntoItself() throws {
        try FileSystem.createDirectory(directory.file("tree"))
        try FileSystem.createDirectory(directory.file("tree/inner"))
        XCTAssertThrowsError(try FileTree.copy(directory.file("tree"), to: directory.file("tree/inner/tree"))) {
            XCTAssertEqual($0 as? FileTree.Refusal, .intoItself(directory.file("tree/inner/tree")))
        }
        XCTAssertThrowsError(try FileTree.move(directory.file("tree"), to: directory.file("tree/inner/tree")))
        XCTAssertEqual(try FileSystem.listDirectory(directory.file("tree/inner")), [])
        // Nor over a file inside it when replacing is asked.
        try write("theirs", "tree/inner/file.txt")
        XCTAssertThrowsError(try FileTree.copy(directory.file("tree"), to: directory.file("tree/inner/file.txt"), replacing: true)) {
            XCTAssertEqual($0 as? FileTree.Refusal, .intoItself(directory.file("tree/inner/file.txt")))
        }
        XCTAssertEqual(try read("tree/inner/file.txt"), "theirs")
        XCTAssertEqual(try FileSystem.listDirectory(directory.file("tree/inner")), ["file.txt"], "no temporary left")
    }

    func testAMoveRenamesAndRefusesWhatIsInTheWay() throws {
        try write("moving", "a.txt")
        try write("theirs", "b.txt")
        XCTAssertThrowsError(try FileTree.move(directory.file("a.txt"), to: directory.file("b.txt"))) {
            XCTAssertEqual($0 as? FileTree.Refusal, .exists(directory.file("b.txt")))
        }
        let inode = try FileSystem.status(directory.file("a.txt")).inode
        try FileTree.move(directory.file("a.txt"), to: directory.file("c.txt"))
        XCTAssertFalse(FileSystem.fileExists(directory.file("a.txt")))
        XCTAssertEqual(try FileSystem.status(directory.file("c.txt")).inode, inode, "renamed, not copied")
        try FileTree.move(directory.file("c.txt"), to: directory.file("b.txt"), replacing: true)
        XCTAssertEqual(try read("b.txt"), "moving")
    }

    func testAMoveToAnotherFileSystemCopiesThenRemovesTheSource() throws {
        // /dev/shm is a tmpfs of its own, so rename(2) across gives EXDEV.
        let other = "/dev/shm/pbss-\(ProcessIdentity.processID)-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileTree.remove(other) }
        XCTAssertNotEqual(try FileSystem.status("/dev/shm").device, try FileSystem.status(directory.path).device,
                          "the test needs /dev/shm on another file system than /tmp")
        try FileSystem.createDirectory(directory.file("tree"))
        try write("across", "tree/file.txt", mode: 0o640)
        try FileTree.move(directory.file("tree"), to: other)
        XCTAssertFalse(FileSystem.fileExists(directory.file("tree")))
        XCTAssertEqual(String(decoding: try FileSystem.readFile(other + "/file.txt", limit: 100), as: UTF8.self), "across")
        XCTAssertEqual(try FileSystem.status(other + "/file.txt").permissions, 0o640)
    }

    func testPathsAreMadeAbsoluteAsText() throws {
        let here = try FileSystem.currentDirectory()
        XCTAssertEqual(try FileSystem.absolutePath("a/./b/../c"), (here == "/" ? "" : here) + "/a/c")
        XCTAssertEqual(try FileSystem.absolutePath("/x//y/../../.."), "/")
        XCTAssertEqual(try FileSystem.absolutePath("/tmp/a b/"), "/tmp/a b")
        XCTAssertEqual(try FileSystem.resolvedPath(directory.path + "/."), try FileSystem.resolvedPath(directory.path))
    }
}
