// SPDX-License-Identifier: Apache-2.0
import SystemSupport
import XCTest

/// A fresh directory under /tmp (short, so socket paths fit in sun_path), removed with its contents.
struct TemporaryDirectory {
    let path: String

    init() throws {
        path = "/tmp/pbss-\(ProcessIdentity.processID)-\(String(UInt64.random(in: 0...UInt64.max), radix: 36))"
        try FileSystem.createDirectory(path, mode: 0o700)
    }

    func file(_ name: String) -> String { path + "/" + name }

    func remove() {
        Self.removeTree(path)
    }

    static func removeTree(_ path: String) {
        guard let status = try? FileSystem.status(path, followSymbolicLinks: false) else { return }
        if status.kind == .directory {
            try? FileSystem.setPermissions(path, 0o700)
            for name in (try? FileSystem.listDirectory(path)) ?? [] {
                removeTree(path + "/" + name)
            }
            try? FileSystem.removeDirectory(path)
        } else {
            try? FileSystem.removeFile(path)
        }
    }
}
