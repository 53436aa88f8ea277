// SPDX-License-Identifier: Apache-2.0
import ControlProtocol
@testable import Pasteboard
import PasteboardCore
import XCTest

/// What the library answers the daemon's `provide` requests with: the first provider that has the type, its
/// bytes or its error as a reason; never a crash, never another type's bytes.
final class ItemProviderAnswerTests: XCTestCase {
    struct Unavailable: Error, CustomStringConvertible { var description: String { "the renderer is busy" } }

    let providers = [
        PasteboardItemProvider(types: [.utf8PlainText]) { _ in Array("first".utf8) },
        PasteboardItemProvider(types: [.utf8PlainText, .html]) { type in
            guard type == .html else { return Array("second".utf8) }
            return Array("<p>second</p>".utf8)
        },
        PasteboardItemProvider(types: [.png]) { _ in throw Unavailable() },
    ]

    func testTheFirstProviderWithTheTypeAnswers() {
        XCTAssertEqual(ProviderConnection.answer(1, for: .utf8PlainText, from: providers), .provided(request: 1, data: Array("first".utf8)))
        XCTAssertEqual(ProviderConnection.answer(2, for: .html, from: providers), .provided(request: 2, data: Array("<p>second</p>".utf8)))
    }

    func testAThrowingProviderAndAnUnknownTypeAreRefusalsWithAReason() {
        XCTAssertEqual(ProviderConnection.answer(3, for: .png, from: providers), .provideFailed(request: 3, reason: "the renderer is busy"))
        guard case .provideFailed(4, let reason) = ProviderConnection.answer(4, for: .rtf, from: providers) else { return XCTFail() }
        XCTAssertTrue(reason.contains("text/rtf"), reason)
    }

    func testAnExpiryOutsideOneMillisecondToSevenDaysIsRefusedBeforeAnythingIsSent() throws {
        let board = Pasteboard(name: .general, environment: ["XDG_RUNTIME_DIR": "/nonexistent"])
        let item = try PasteboardItem([(type: .utf8PlainText, data: Array("x".utf8))])
        for expiry: Duration in [.seconds(Int64.max), .seconds(7 * 24 * 3600 + 1), .milliseconds(604_800_001), .zero, .seconds(-1)] {
            XCTAssertThrowsError(try board.setItems([item], options: PasteboardOptions(expiresAfter: expiry))) { error in
                guard case PasteboardError.refused(let why) = error else { return XCTFail("\(expiry): \(error)") }
                XCTAssertTrue(why.contains("7 days"), why)
            }
        }
    }

    func testBadProviderListsAreRefusedBeforeAnythingIsSent() {
        let board = Pasteboard(name: .general, environment: ["XDG_RUNTIME_DIR": "/nonexistent"])
        for (providers, why) in [([], "at least one"), ([PasteboardItemProvider(types: []) { _ in [] }], "no types"),
                                 ([PasteboardItemProvider(types: [.html, .html]) { _ in [] }], "twice")] {
            XCTAssertThrowsError(try board.setItemProviders(providers)) { error in
                XCTAssertTrue("\(error)".contains(why), "\(error)")
            }
        }
        XCTAssertThrowsError(try board.setItemProviders(self.providers, options: PasteboardOptions(expiresAfter: .seconds(5)))) { error in
            XCTAssertTrue("\(error)".contains("expiry"), "\(error)")
        }
    }
}
