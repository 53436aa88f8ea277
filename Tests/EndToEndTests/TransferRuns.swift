// SPDX-License-Identifier: Apache-2.0
import Foundation
import XCTest

/// Running pb under Tests/EndToEndTests/Peers/transfer.py (a terminal on its standard error, a slow reader,
/// signals to its process group) and reading what `pb status` counts of transfers: for the tests of large
/// copies and pastes.
extension DesktopTestCase {
    /// What transfer.py saw of `pb arguments` run with `options`.
    func transfer(_ options: [String], _ arguments: [String]) throws -> [String: Any] {
        let result = try run("/usr/bin/python3", [peer("transfer.py")] + options + ["--", desktop.pb] + arguments, timeout: 150)
        XCTAssertEqual(result.status, 0, result.stderr)
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout)) as? [String: Any], result.text)
    }

    /// The `transfers` line of `pb status`.
    func transfers() throws -> String? {
        for line in try pb("status").text.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if parts.count == 2 && parts[0] == "transfers" { return parts[1] }
        }
        return nil
    }
}
