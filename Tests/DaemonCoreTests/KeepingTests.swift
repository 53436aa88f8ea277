// SPDX-License-Identifier: Apache-2.0
import ControlProtocol
@testable import DaemonCore
import Foundation
import ImageCodecs
import Images
import PasteboardCore
import SystemSupport
import TestSupport
import XCTest
import XTypes

/// A target the daemon cannot keep costs that target alone: the rest of the copy is kept, served and
/// counted once, and one log line per change names what was left out and why (never content). The same
/// for a snapshot, SAVE_TARGETS, a control client's copy and a history entry read back.
final class KeepingTests: XCTestCase {
    let text = Array("the text survives".utf8)
    /// A 1,000-byte target name: LibreOffice's object descriptor for a document saved a few directories deep
    /// is of this kind (it names the document's path).
    let longName = #"application/x-openoffice-objectdescriptor-xml;windows_formatname="Star Object Descriptor (XML)";"#
        + #"typename="LibreOffice 7.4 Text Document";displayname="file:///"# + String(repeating: "deep/", count: 160) + #"doc.fodt""#

    func testALongTargetNameAnOverCapTargetAndARefusedOneCostOnlyThemselves() throws {
        XCTAssertGreaterThan(longName.utf8.count, 900)
        var configuration = DaemonConfiguration()
        configuration.maxTextBytes = 4096
        let h = try Harness(configuration: configuration)
        let owner = h.owner([("UTF8_STRING", text), (longName, Array("<descriptor/>".utf8)),
                             ("application/x-big", [UInt8](repeating: 0x61, count: 10_000)),
                             ("application/x-refused", Array("never sent".utf8)), ("text/html", Array("<b>html</b>".utf8))])
        owner.replies["application/x-refused"] = .some(nil)
        owner.own()
        h.settle()
        let count = try XCTUnwrap(h.count())
        XCTAssertEqual(owner.requested, ["TARGETS", "UTF8_STRING", "text/html", longName, "application/x-big", "application/x-refused"])
        guard case .read(count, let content)? = h.engine.manager.state.phase(of: .general) else {
            return XCTFail("nothing kept: \(String(describing: h.engine.manager.state.phase(of: .general))) \(h.log)")
        }
        XCTAssertEqual(content.types.map(\.rawValue), ["UTF8_STRING", "text/html", longName])
        let line = try XCTUnwrap(h.log.first { $0.contains("kept CLIPBOARD without") }, "\(h.log)")
        XCTAssertTrue(line.contains("without 2 of its targets"), line)
        XCTAssertTrue(line.contains("application/x-big: the data is larger than the cap of 4096 bytes"), line)
        XCTAssertTrue(line.contains("application/x-refused: the owner does not offer that type"), line)
        XCTAssertFalse(line.contains("never sent") || line.contains("survives"), "never content: \(line)")
        XCTAssertEqual(h.log.filter { $0.contains("kept CLIPBOARD without") }.count, 1, "one line per change")

        owner.exit()
        h.advance(by: .zero)
        XCTAssertTrue(h.daemonOwns(), "taken over with what was kept")
        XCTAssertEqual(h.count(), count, "a takeover is not a change")
        XCTAssertEqual(h.paste("UTF8_STRING").text, "the text survives")
        XCTAssertEqual(h.paste(longName).text, "<descriptor/>", "the long name is served too")
        XCTAssertEqual(h.paste("text/html").text, "<b>html</b>")
        XCTAssertTrue(h.targets().contains(longName))
        XCTAssertFalse(h.targets().contains("application/x-big"))
    }

    func testATextReplyOfTheWrongKindIsLeftOutAndTheNextEncodingIsRead() throws {
        let h = try Harness()
        let owner = h.owner([("UTF8_STRING", []), ("STRING", Array("caf\u{E9}".unicodeScalars.map { UInt8($0.value) }))])
        // A buggy owner: UTF8_STRING answered with 32-bit items.
        owner.replies["UTF8_STRING"] = PropertyValue(type: owner.connection.atoms.atom, longs: [1, 2])
        owner.own()
        h.settle()
        XCTAssertEqual(owner.requested, ["TARGETS", "UTF8_STRING", "STRING"], "the next of the text encodings")
        guard case .read(_, let content)? = h.engine.manager.state.phase(of: .general) else { return XCTFail("\(h.log)") }
        XCTAssertEqual(content.types, [.string])
        XCTAssertTrue(h.log.contains { $0.contains("UTF8_STRING: the owner answered with 32-bit items, not bytes") }, "\(h.log)")
        owner.exit()
        h.advance(by: .zero)
        XCTAssertEqual(h.paste("UTF8_STRING").text, "café", "UTF-8 derived from the Latin-1 kept")

        // Latin-1 bytes answered as STRING for a request of UTF8_STRING are kept as STRING, not mislabelled.
        let latin1 = h.owner([("UTF8_STRING", Array("na\u{EF}ve".unicodeScalars.map { UInt8($0.value) }))])
        latin1.replies["UTF8_STRING"] = PropertyValue(type: latin1.connection.atoms.string,
                                                      bytes: Array("na\u{EF}ve".unicodeScalars.map { UInt8($0.value) }))
        latin1.own()
        h.settle()
        guard case .read(_, let second)? = h.engine.manager.state.phase(of: .general) else { return XCTFail("\(h.log)") }
        XCTAssertEqual(second.types, [.string])
        latin1.exit()
        h.advance(by: .zero)
        XCTAssertEqual(h.paste("UTF8_STRING").text, "naïve")
    }

    func testAPictureThatDoesNotReadIsLeftOutAndTheNextFormatIsRead() throws {
        let h = try Harness()
        let bmp = try BMPCodec.encode(ImageServingTests.picture(width: 8, height: 4))
        let owner = h.owner([("image/png", Array("not a png at all".utf8)), ("image/bmp", bmp), ("UTF8_STRING", Array("caption".utf8))])
        owner.own()
        h.settle()
        XCTAssertEqual(owner.requested, ["TARGETS", "UTF8_STRING", "image/png", "image/bmp"])
        guard case .read(_, let content)? = h.engine.manager.state.phase(of: .general) else { return XCTFail("\(h.log)") }
        XCTAssertEqual(content.types.map(\.rawValue), ["UTF8_STRING", "image/png", "image/bmp"], "both kept as given")
        XCTAssertFalse(h.log.contains { $0.contains("kept CLIPBOARD without") }, "the BMP stands for the pictures: \(h.log)")
        owner.exit()
        h.advance(by: .zero)
        XCTAssertEqual(h.paste("image/png").text, "not a png at all", "the owner's bytes, as given")
        let tiff = try XCTUnwrap(h.paste("image/tiff").result??.bytes, "TIFF made from the BMP that reads")
        XCTAssertEqual(ImageFormat.sniff(tiff), .tiff)

        // The only picture does not read: served as given, and no picture type is listed that would be made from it.
        let alone = h.owner([("image/png", Array("still no png".utf8)), ("UTF8_STRING", Array("caption".utf8))])
        alone.own()
        h.settle()
        XCTAssertTrue(h.log.contains { $0.contains("kept CLIPBOARD without 1 of its targets: picture types made from image/png: not a picture that can be read") },
                      "\(h.log)")
        alone.exit()
        h.advance(by: .zero)
        let targets = h.targets()
        XCTAssertTrue(targets.contains("image/png"), "\(targets)")
        XCTAssertFalse(targets.contains { $0.hasPrefix("image/") && $0 != "image/png" }, "\(targets)")
        XCTAssertEqual(h.paste("image/png").text, "still no png")
        XCTAssertNil(h.paste("image/jpeg").result ?? nil, "refused, never garbage")

        // JPEG bytes offered as image/png are kept as what they are, not mislabelled.
        let jpeg = try ImageTranscoder.encode(ImageServingTests.picture(), as: .jpeg, codec: SystemImageCodec())
        XCTAssertEqual(SnapshotPolicy().keep(target: "image/png", replyType: "image/png", bytes: jpeg, format: 8),
                       .keep(Representation(type: PasteboardType("image/jpeg"), data: jpeg)))
    }

    func testNothingReadableSaysWhyForEachTarget() throws {
        let h = try Harness()
        let owner = h.owner([("UTF8_STRING", text), ("text/html", [])])
        owner.replies["UTF8_STRING"] = .some(nil)
        owner.replies["text/html"] = .some(nil)
        owner.own()
        h.settle()
        let line = try XCTUnwrap(h.log.first { $0.contains("could not read CLIPBOARD") }, "\(h.log)")
        XCTAssertTrue(line.contains("no target could be read (UTF8_STRING: the owner does not offer that type; text/html: the owner does not offer that type)"), line)
    }

    func testSaveTargetsKeepsWhatCanBeKept() throws {
        var configuration = DaemonConfiguration()
        configuration.maxTextBytes = 4096
        let h = try Harness(configuration: configuration)
        let owner = h.owner([("UTF8_STRING", text), (longName, Array("<descriptor/>".utf8)),
                             ("application/x-big", [UInt8](repeating: 0x61, count: 10_000)), ("application/x-refused", [])])
        owner.replies["application/x-refused"] = .some(nil)
        owner.silent = true   // the early read gets nothing: what is saved comes from SAVE_TARGETS
        owner.own()
        h.settle()
        h.advance(by: .milliseconds(Int64(configuration.ownerTimeoutMs)))
        owner.silent = false
        let count = try XCTUnwrap(h.count())
        // GTK's gtk_clipboard_store: the targets to save, then SAVE_TARGETS.
        let c = owner.connection
        let list = c.intern("SAVE_LIST")
        c.changeProperty(owner.window, list, PropertyValue(type: c.atoms.atom, longs: ["UTF8_STRING", longName, "application/x-big",
                                                                                       "application/x-refused"].map { c.intern($0).rawValue }))
        c.convertSelection(c.atoms.clipboardManager, target: c.atoms.saveTargets, property: list, requestor: owner.window, time: .currentTime)
        h.settle()
        XCTAssertEqual(owner.notifications.first?.property, list, "SAVE_TARGETS answered: saved")
        XCTAssertTrue(h.daemonOwns())
        XCTAssertEqual(h.count(), count, "saving is not a change")
        owner.exit()
        h.settle()
        XCTAssertEqual(h.paste("UTF8_STRING").text, "the text survives")
        XCTAssertEqual(h.paste(longName).text, "<descriptor/>")
        XCTAssertTrue(h.log.contains { $0.contains("kept CLIPBOARD without 2 of its targets") }, "\(h.log)")
    }

    func testAChangeReadEarlyAndSavedIsLoggedOnce() throws {
        let h = try Harness()
        let owner = h.owner([("UTF8_STRING", text), ("application/x-refused", [])])
        owner.replies["application/x-refused"] = .some(nil)
        owner.own()
        h.settle()
        XCTAssertEqual(h.log.filter { $0.contains("kept CLIPBOARD without") }.count, 1, "\(h.log)")
        let c = owner.connection
        c.convertSelection(c.atoms.clipboardManager, target: c.atoms.saveTargets, property: .none, requestor: owner.window, time: .currentTime)
        h.settle()
        XCTAssertTrue(h.daemonOwns(), "saved")
        XCTAssertEqual(h.log.filter { $0.contains("kept CLIPBOARD without") }.count, 1, "one line for the one change: \(h.log)")
    }

    func testAClientCopyWithATypeNoItemMayCarryKeepsTheRest() throws {
        let h = try Harness()
        // What the library never sends, written by hand: a representation named by 70,000 bytes, one named twice.
        let huge = String(repeating: "x", count: PasteboardLimits.maximumTypeNameLength + 4465)
        var writer = WireWriter()
        writer.u32(0)
        writer.u8(ControlProtocolVersion.current)
        writer.u16(ControlRequest.Kind.setItems.rawValue)
        writer.string("CLIPBOARD")
        writer.u32(1)
        writer.u32(4)
        for (type, data) in [("UTF8_STRING", "kept"), (huge, "lost"), ("text/html", "<i>kept</i>"), ("UTF8_STRING", "second")] {
            writer.string(type)
            writer.bytes(Array(data.utf8))
        }
        writer.u32(0)
        var frame = writer.joined
        let length = UInt32(frame.count - 4)
        frame.replaceSubrange(0..<4, with: withUnsafeBytes(of: length.littleEndian, Array.init))
        var skipped: [SkippedRepresentation] = []
        let request = try ControlRequest.decode(body: Array(frame[4...]), skipped: &skipped)
        guard case .setItems(_, let items, _) = request else { return XCTFail("\(request)") }
        XCTAssertEqual(items.first?.types, [.utf8String, .html])
        XCTAssertEqual(skipped.map(\.reason), ["its name is 70000 bytes, more than 65535", "given twice; the first is kept"])
        let before = try XCTUnwrap(h.count())
        guard case .changeCount(_, let count)? = h.send(request).first else { return XCTFail() }
        XCTAssertEqual(count, before + 1, "one change")
        XCTAssertEqual(h.paste("UTF8_STRING").text, "kept")
    }

    /// Local-only content is written as PBA2 with its flag and read back local-only, from memory and from its
    /// file; everything else stays PBA1 (which older versions read); a flag this version does not know refuses
    /// the archive rather than drop a rule.
    func testALocalOnlyArchiveKeepsItsFlagAndOthersStayTheFirstLayout() throws {
        let item = try PasteboardItem([(.utf8String, Array("here only".utf8))])
        let local = ContentArchive(pasteboard: .general, changeCount: 3, time: 1_700_000_000,
                                   content: PasteboardContent(items: [item], isLocalOnly: true))
        let bytes = local.encode()
        XCTAssertEqual(Array(bytes.prefix(4)), Array("PBA2".utf8))
        var skipped: [SkippedRepresentation] = []
        XCTAssertEqual(try ContentArchive.decode(bytes, skipped: &skipped), local)
        XCTAssertTrue(try ContentArchive.decode(bytes, skipped: &skipped).content.isLocalOnly)
        let path = NSTemporaryDirectory() + "local-only-" + UUID().uuidString
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        XCTAssertTrue(try ContentArchive.open(try OpenFile(readingAt: path), skipped: &skipped).content.isLocalOnly, "read from its file too")

        let plain = ContentArchive(pasteboard: .general, changeCount: 3, time: 1_700_000_000, content: PasteboardContent(items: [item]))
        XCTAssertEqual(Array(plain.encode().prefix(4)), Array("PBA1".utf8))
        XCTAssertFalse(try ContentArchive.decode(plain.encode(), skipped: &skipped).content.isLocalOnly)

        var unknown = bytes
        unknown[4 + 16] |= 0x2   // the flags' low byte, after the magic, the count and the time
        XCTAssertThrowsError(try ContentArchive.decode(unknown, skipped: &skipped)) { error in
            XCTAssertTrue("\(error)".contains("flags 0x3 this version does not know"), "\(error)")
        }
    }

    func testAHistoryEntryOrKeptClipboardWithATypeNoItemMayCarryIsRestoredWithTheRest() throws {
        let directory = NSTemporaryDirectory() + "keeping-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // An archive whose second representation's name no item may carry (a NUL), beside good text.
        var writer = WireWriter()
        for byte in ContentArchive.magic { writer.u8(byte) }
        writer.u64(7)
        writer.i64(1_700_000_000)
        writer.string("CLIPBOARD")
        writer.u32(1)
        writer.u32(2)
        writer.string("UTF8_STRING")
        writer.bytes(Array("restored".utf8))
        writer.string("bad\0name")
        writer.bytes([1, 2, 3])
        var skipped: [SkippedRepresentation] = []
        let archive = try ContentArchive.decode(writer.joined, skipped: &skipped)
        XCTAssertEqual(archive.content.types, [.utf8String])
        XCTAssertEqual(skipped.map(\.reason), ["its name contains a NUL byte"])
        try Data(writer.joined).write(to: URL(fileURLWithPath: directory + "/clipboard.archive"))

        let h = try Harness(keepState: true, directory: directory)
        XCTAssertTrue(h.daemonOwns(), "restored: \(h.log)")
        XCTAssertEqual(h.paste("UTF8_STRING").text, "restored")
        XCTAssertTrue(h.log.contains { $0.contains("restoring CLIPBOARD without 1 of its types: bad") }, "\(h.log)")
    }

    /// Kept content is written up to the history's budget whatever its source, and read back up to it: a
    /// pb copy larger than the snapshot cap comes back after a restart.
    func testKeptContentLargerThanTheSnapshotCapIsRestored() throws {
        let directory = NSTemporaryDirectory() + "keeping-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var configuration = DaemonConfiguration()
        configuration.maxSnapshotBytes = 1 << 20
        let big = String(repeating: "z", count: 3 << 20)
        do {
            let h = try Harness(configuration: configuration, keepState: true, directory: directory)
            try h.copy([(.utf8PlainText, big)])
            h.engine.stop()
        }
        let h = try Harness(configuration: configuration, keepState: true, directory: directory)
        XCTAssertTrue(h.daemonOwns(), "restored: \(h.log)")
        XCTAssertEqual(h.paste("UTF8_STRING").text?.count, 3 << 20)
    }

    func testHistoryKeepsTypeNamesWithSpacesWhole() throws {
        let directory = NSTemporaryDirectory() + "keeping-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        do {
            let h = try Harness(keepState: true, directory: directory)
            try h.copy([(.utf8String, "x"), (PasteboardType(longName), "<d/>"), (PasteboardType("a%20b\tc"), "y")])
            h.engine.stop()
        }
        let h = try Harness(keepState: true, directory: directory)
        XCTAssertEqual(h.engine.manager.history.entries.first?.types, ["UTF8_STRING", longName, "a%20b\tc"])
        XCTAssertEqual(HistoryStore.unescaped("100%25%20%09%0A"), "100% \t\n", "an older index's escapes")
        XCTAssertEqual(HistoryStore.unescaped("50%"), "50%", "a % not followed by two hex digits is itself")
    }
}
