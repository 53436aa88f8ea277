// SPDX-License-Identifier: Apache-2.0
import Foundation

/// Skips, recorded where `make test` counts them: parallel XCTest reports a skipped test as passed and
/// prints nothing of it, so a test that skips says so here too (`Tests/Tools/summary.py` reads the log).
public enum SkipLog {
    /// Appends `test<TAB>reason` to `$PB_TEST_SKIP_LOG` (when set) and returns `reason`, for
    /// `throw XCTSkip(SkipLog.record(name, reason))`. `test` is XCTest's name of the test
    /// (`Class.method`, or `-[Module.Class method]`).
    public static func record(_ test: String, _ reason: String) -> String {
        guard let path = ProcessInfo.processInfo.environment["PB_TEST_SKIP_LOG"], !path.isEmpty else { return reason }
        var name = test.trimmingCharacters(in: CharacterSet(charactersIn: "-[]"))
        name = name.replacingOccurrences(of: " ", with: ".")
        let parts = name.split(separator: ".")
        if parts.count >= 2 { name = parts.suffix(2).joined(separator: ".") }
        let line = name + "\t" + reason.replacingOccurrences(of: "\n", with: " ") + "\n"
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        if fd >= 0 {
            _ = line.withCString { write(fd, $0, strlen($0)) }
            close(fd)
        }
        return reason
    }
}

/// A seeded random number generator (SplitMix64) for tests that draw random input: each prints its seed,
/// and `PB_TEST_SEED` replays a run.
public struct SeededGenerator: RandomNumberGenerator {
    public private(set) var state: UInt64
    public let seed: UInt64

    public init(seed: UInt64) {
        self.seed = seed
        state = seed
    }

    /// The seed from `PB_TEST_SEED`, else a fresh one; printed with `test`'s name so a failure can be replayed.
    public static func forTest(_ test: String) -> SeededGenerator {
        let seed = ProcessInfo.processInfo.environment["PB_TEST_SEED"].flatMap { UInt64($0) }
            ?? UInt64.random(in: 0...UInt64.max)
        print("\(test): random seed \(seed) (replay with PB_TEST_SEED=\(seed))")
        return SeededGenerator(seed: seed)
    }

    /// A number in 0..<bound (0 when bound is 0): for the choices of a test that draws its input.
    public mutating func below(_ bound: Int) -> Int { bound <= 0 ? 0 : Int(next() % UInt64(bound)) }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
