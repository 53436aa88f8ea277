// SPDX-License-Identifier: Apache-2.0
import PasteboardCore
import XCTest

/// What a snapshot keeps of an answer can be known before its bytes are looked at (`keptName`), and that answer
/// is `keep`'s own: a value read straight into a file is kept under the name it would have had in memory.
final class SnapshotPolicyTests: XCTestCase {
    let policy = SnapshotPolicy()

    func testTheNameIsDecidedByTheTargetAndTheReplyTypeAlone() {
        XCTAssertEqual(policy.keptName(target: "UTF8_STRING", replyType: "UTF8_STRING"), .named(PasteboardType("UTF8_STRING")))
        XCTAssertEqual(policy.keptName(target: "UTF8_STRING", replyType: "STRING"), .named(PasteboardType("STRING")),
                       "text kept under the encoding it came in")
        XCTAssertEqual(policy.keptName(target: "text/plain;charset=utf-8", replyType: "UTF8_STRING"),
                       .named(PasteboardType("text/plain;charset=utf-8")), "the same encoding under another name")
        guard case .leftOut(let why) = policy.keptName(target: "UTF8_STRING", replyType: "image/png") else {
            return XCTFail("text answered as a picture is left out")
        }
        XCTAssertTrue(why.reason.contains("not text"), why.reason)
        XCTAssertEqual(policy.keptName(target: "image/png", replyType: "image/png"), .picture(.png), "its header is looked at")
        XCTAssertEqual(policy.keptName(target: "image/x-unknown", replyType: "image/x-unknown"), .named(PasteboardType("image/x-unknown")))
        XCTAssertEqual(policy.keptName(target: "application/octet-stream", replyType: "ATOM"), .named(PasteboardType("application/octet-stream")))
        XCTAssertTrue(policy.keepsBytesAsRead(target: "text/html"))
        XCTAssertFalse(policy.keepsBytesAsRead(target: "image/jpeg"))
    }

    func testKeepAgreesWithTheNameDecidedBeforehand() {
        let targets = ["UTF8_STRING", "STRING", "TEXT", "text/plain", "text/plain;charset=utf-8", "text/html", "text/rtf",
                       "image/png", "image/x-unknown", "application/octet-stream", "com.apple.flat-rtfd"]
        let bytes = Array("not a picture, some text".utf8)
        for target in targets {
            for reply in [nil] + targets.map(Optional.some) {
                let verdict = policy.keep(target: target, replyType: reply, bytes: bytes, format: 8)
                switch policy.keptName(target: target, replyType: reply) {
                case .named(let type):
                    XCTAssertEqual(verdict, .keep(Representation(type: type, data: bytes)), "\(target) as \(reply ?? "nil")")
                case .leftOut(let skipped):
                    XCTAssertEqual(verdict, .leaveOut(skipped), "\(target) as \(reply ?? "nil")")
                case .picture:
                    guard case .keepAsGiven = verdict else { return XCTFail("a picture that does not read is kept as given: \(target)") }
                }
            }
        }
    }

    /// The cache gives what the policy would, whatever came before: the same names again, other names, another policy.
    func testTheCachedPlanIsThePolicysOwn() {
        var cache = ReadingPlanCache()
        let strict = SnapshotPolicy(textCap: 16)
        let sequence: [(SnapshotPolicy, [String])] = [
            (policy, ["UTF8_STRING", "text/html", "TARGETS"]), (policy, ["UTF8_STRING", "text/html", "TARGETS"]),
            (policy, ["image/png", "image/jpeg"]), (strict, ["image/png", "image/jpeg"]), (policy, ["UTF8_STRING", "text/html", "TARGETS"]),
        ]
        for (policy, names) in sequence {
            XCTAssertEqual(cache.plan(policy, offered: names), policy.readingPlan(offered: names), "\(names)")
        }
    }

    /// A reader on another display asking one owner for target after target has each target's plan made once, while
    /// up to `capacity` are asked in turn; a list of names longer than `maximumNameBytes` is planned each time, never kept.
    func testPlansOfTheTargetsLastAskedAreKeptAndLongListsAreNot() {
        var cache = ReadingPlanCache()
        let targets = (0..<ReadingPlanCache.capacity).map { ["text/x-target-\($0)"] }
        for _ in 0..<3 {
            for names in targets { XCTAssertEqual(cache.plan(policy, offered: names), policy.readingPlan(offered: names)) }
        }
        XCTAssertEqual(cache.made, ReadingPlanCache.capacity, "each made once")
        _ = cache.plan(policy, offered: ["text/x-one-more"])
        _ = cache.plan(policy, offered: targets[0])
        XCTAssertEqual(cache.made, ReadingPlanCache.capacity + 2, "the one asked longest ago made way for the new one")
        let long = (0..<40).map { "application/x-" + String(repeating: "n", count: 250) + "-\($0)" }
        for _ in 0..<2 { XCTAssertEqual(cache.plan(policy, offered: long), policy.readingPlan(offered: long)) }
        XCTAssertEqual(cache.made, ReadingPlanCache.capacity + 4, "10 KB of names: made each time")
        _ = cache.plan(policy, offered: targets[0])
        XCTAssertEqual(cache.made, ReadingPlanCache.capacity + 4, "and the kept ones stay")
    }
}
