// SPDX-License-Identifier: Apache-2.0
import Foundation
import TestSupport
import XCTest

/// Options a user turns on: paste-once, PRIMARY sync, rich-text enrichment, excluded applications,
/// and the macOS spellings of pbcopy and pbpaste.
final class OptionsTests: DesktopTestCase {
    override class var startsDaemon: Bool { false }

    override func tearDown() {
        desktop.stopDaemon()
        try? FileManager.default.removeItem(atPath: configPath)
        super.tearDown()
    }

    var configPath: String { desktop.home + "/config/pasteboard/config.json" }

    func start(config: String? = nil) throws {
        if let config {
            try FileManager.default.createDirectory(atPath: desktop.home + "/config/pasteboard", withIntermediateDirectories: true)
            try config.write(toFile: configPath, atomically: true, encoding: .utf8)
        }
        try desktop.startDaemon()
    }

    func testPasteOnceClearsAfterThePaste() throws {
        try start()
        try pb("copy", "--paste-once", input: Array("one time".utf8))
        let copied = try count()
        XCTAssertEqual(try pb("types").status, 0, "listing the types is not a paste")
        XCTAssertEqual(try run("xclip", ["-o", "-selection", "clipboard"]).text, "one time")
        // Watch the count, not the content: every paste would extend the quiet period.
        try waitUntil(5, "the clipboard is cleared after the paste") { try count() == copied + 1 }
        XCTAssertEqual(try run(desktop.pb, ["paste"]).status, 2)
    }

    func testPrimarySyncCopiesASettledSelectionToTheClipboard() throws {
        try start(config: "{\"syncPrimaryToClipboard\": true}")
        let owner = try startTestOwner("PRIMARY", targets: [("UTF8_STRING", Array("selected text".utf8))])
        defer { owner.exit() }
        try waitUntil(10, "PRIMARY reached CLIPBOARD") { try run(desktop.pb, ["paste"]).text == "selected text" }
    }

    func testPrimaryIsNotRecordedByDefault() throws {
        try start()
        let owner = try startTestOwner("PRIMARY", targets: [("UTF8_STRING", Array("just selected".utf8))])
        defer { owner.exit() }
        try pb("copy", input: Array("a real copy".utf8))
        XCTAssertTrue(try pb("history").text.contains("a real copy"))
        XCTAssertFalse(try pb("history").text.contains("just selected"))
    }

    func testEnrichServesDerivedTargetsForAnotherAppsRichCopy() throws {
        try start(config: "{\"enrichRichText\": true}")
        let rtf = #"{\rtf1\ansi {\b enriched} text\par}"#
        let owner = try startTestOwner(targets: [("text/rtf", Array(rtf.utf8))])
        defer { owner.exit() }
        try waitUntil(10, "HTML is offered") { try pb("types").text.contains("text/html") }
        XCTAssertTrue(try pb("paste", "-t", "html").text.contains("<b>enriched</b>"))
        XCTAssertEqual(try pb("paste", "-t", "rtf").text, rtf, "the original RTF is served byte for byte")
    }

    func testExcludedApplicationsAreNeitherRecordedNorKept() throws {
        try start(config: "{\"excludedWindowClasses\": [\"KeePassXC\"]}")
        let owner = try startTestOwner(windowClass: "KeePassXC", targets: [("UTF8_STRING", Array("excluded secret".utf8))])
        XCTAssertEqual(try pb("paste").text, "excluded secret")
        owner.exit()
        try waitUntil(10, "the clipboard emptied") { try run(desktop.pb, ["paste"]).status == 2 }
        XCTAssertFalse(try pb("history").text.contains("excluded secret"))
    }

    func testPbcopyAndPbpasteSpeakMacOSFlags() throws {
        try start()
        let pbcopy = desktop.home + "/pbcopy", pbpaste = desktop.home + "/pbpaste"
        try? FileManager.default.createSymbolicLink(atPath: pbcopy, withDestinationPath: desktop.pb)
        try? FileManager.default.createSymbolicLink(atPath: pbpaste, withDestinationPath: desktop.pb)
        XCTAssertEqual(try run(pbcopy, [], input: Array("mac style\n".utf8)).status, 0)
        XCTAssertEqual(try run(pbpaste, []).text, "mac style\n", "no newline added or removed")
        XCTAssertEqual(try run(pbcopy, ["-pboard", "find"], input: Array("found".utf8)).status, 0)
        XCTAssertEqual(try run(pbpaste, ["-pboard", "find"]).text, "found")
        XCTAssertEqual(try run(pbpaste, ["-pboard", "general"]).text, "mac style\n")
        let rtf = #"{\rtf1\ansi Rich {\b bold}\par}"#
        XCTAssertEqual(try run(pbcopy, [], input: Array(rtf.utf8)).status, 0)
        XCTAssertEqual(try run(pbpaste, ["-Prefer", "rtf"]).text, rtf)
        XCTAssertEqual(try run(pbpaste, ["-Prefer", "txt"]).text, "Rich bold\n", "RTF input is offered as text too")
        XCTAssertEqual(try run(pbpaste, ["-Prefer", "ps"]).text, "Rich bold\n", "ps falls back to text")
        XCTAssertEqual(try run(pbpaste, ["-Prefer", "pdf"]).status, 64)
    }

    func testXclipSpellingsAreAccepted() throws {
        try start()
        try pb("copy", "-selection", "clipboard", input: Array("xclip style".utf8))
        XCTAssertEqual(try pb("paste", "-b").text, "xclip style")
        XCTAssertEqual(try pb("paste", "-l").text.contains("UTF8_STRING"), true)
    }
}
