// SPDX-License-Identifier: Apache-2.0
import ControlProtocol
@testable import DaemonCore
import Foundation
import PasteboardCore
import SystemSupport
import TestSupport
import XCTest
import XTypes

/// What X requestors and control clients get from content the daemon holds: listed targets, values,
/// conversions, refusals. No X server: `FakeXServer`.
final class ServingTests: XCTestCase {
    func testPlainTextIsListedWithItsEncodingsAndRTFDButHTMLOnlyWhenAskedByName() throws {
        let h = try Harness()
        try h.copy([(.utf8PlainText, "line one\n\n\tindented  two")])
        let targets = h.targets()
        XCTAssertEqual(Array(targets.prefix(3)), ["TARGETS", "TIMESTAMP", "MULTIPLE"])
        for name in ["text/plain;charset=utf-8", "UTF8_STRING", "text/plain", "STRING", "TEXT", "COMPOUND_TEXT", "com.apple.flat-rtfd"] {
            XCTAssertTrue(targets.contains(name), "\(name) in \(targets)")
        }
        XCTAssertFalse(targets.contains("text/html"), "browsers would paste paragraphs")
        XCTAssertFalse(targets.contains("text/rtf"), "LibreOffice would paste RTF")
        XCTAssertEqual(h.paste("UTF8_STRING").text, "line one\n\n\tindented  two")
        // Asked for by name, HTML is made all the same.
        let html = h.paste("text/html")
        XCTAssertEqual(html.typeName, "text/html")
        XCTAssertTrue(html.text?.contains("indented") == true, html.text ?? "nil")
    }

    func testTextEncodingsAreServedAsXRequestorsExpect() throws {
        let h = try Harness()
        try h.copy([(.utf8PlainText, "naïve €")])
        let string = h.paste("STRING")
        XCTAssertEqual(string.typeName, "STRING")
        if case .some(.some(let value)) = string.result { XCTAssertEqual(value.bytes, Array("na".utf8) + [0xEF] + Array("ve ?".utf8)) }
        let text = h.paste("TEXT")
        XCTAssertEqual(text.typeName, "UTF8_STRING", "TEXT is answered in the encoding that holds every character")
        XCTAssertEqual(h.paste("COMPOUND_TEXT").text, "CT:naïve €", "Xlib's encoder (the fake's) on the loop thread")
        XCTAssertEqual(h.paste("text/plain").text, "naïve €")
    }

    func testRichTextIsConvertedForEveryRichAndPlainTarget() throws {
        let h = try Harness()
        try h.copy([(.rtf, #"{\rtf1\ansi plain {\b bold}\par}"#)])
        let targets = h.targets()
        for name in ["text/rtf", "application/rtf", "text/richtext", "text/html", "com.apple.flat-rtfd", "UTF8_STRING", "STRING"] {
            XCTAssertTrue(targets.contains(name), "\(name) in \(targets)")
        }
        XCTAssertTrue(h.paste("text/html").text?.contains("<b>bold</b>") == true)
        XCTAssertEqual(h.paste("UTF8_STRING").text?.trimmingCharacters(in: .newlines), "plain bold")
        XCTAssertEqual(h.paste("application/rtf").text, #"{\rtf1\ansi plain {\b bold}\par}"#, "the RTF as given, under an alias")
        XCTAssertEqual(h.paste("COMPOUND_TEXT").text?.trimmingCharacters(in: .newlines), "CT:plain bold",
                       "RTF → text on the worker, text → COMPOUND_TEXT on the loop")
    }

    func testAFailedConversionIsRefusedAndLoggedOnceWithoutContent() throws {
        let h = try Harness()
        try h.copy([(.flatRTFD, "rtfd\0\0\0\0 secret garbage")])
        XCTAssertEqual(h.paste("text/html").result.map { $0 == nil }, true, "refused, never garbage")
        XCTAssertEqual(h.paste("text/html").result.map { $0 == nil }, true, "and refused again without converting again")
        let lines = h.log.filter { $0.contains("could not derive text/html") }
        XCTAssertEqual(lines.count, 1, "\(h.log)")
        XCTAssertFalse(h.log.contains { $0.contains("secret garbage") }, "no content in the log")
        // A control client is told why.
        guard case .error(let code, let message)? = h.send(.read(pasteboard: "CLIPBOARD", types: ["text/html"], display: ":99")).first else {
            return XCTFail("no error")
        }
        XCTAssertEqual(code, .conversionFailed)
        XCTAssertTrue(message.contains("text/html"), message)
    }

    func testReadAnswersHeldContentConvertedAndSaysWhyWhenItCannot() throws {
        let h = try Harness()
        try h.copy([(.rtf, #"{\rtf1 {\i it}}"#)])
        guard case .items(let items)? = h.send(.read(pasteboard: "CLIPBOARD", types: ["text/html"], display: ":99.0")).first else {
            return XCTFail("no items")
        }
        XCTAssertEqual(items.first?.types, [.html])
        XCTAssertTrue(String(decoding: items.first?.data(for: .html) ?? [], as: UTF8.self).contains("<i>it</i>"))
        guard case .error(let code, _)? = h.send(.read(pasteboard: "CLIPBOARD", types: ["image/png"], display: ":99")).first else {
            return XCTFail("no error")
        }
        XCTAssertEqual(code, .typeNotOffered)
        guard case .error(let other, _)? = h.send(.read(pasteboard: "CLIPBOARD", types: ["text/html"], display: ":7")).first else {
            return XCTFail("no error")
        }
        XCTAssertEqual(other, .notFound, "another display's daemon is not asked")
        let foreign = h.owner([("UTF8_STRING", Array("theirs".utf8))])
        foreign.own()
        h.settle()
        guard case .error(let notHeld, _)? = h.send(.read(pasteboard: "CLIPBOARD", types: ["UTF8_STRING"], display: ":99")).first else {
            return XCTFail("no error")
        }
        XCTAssertEqual(notHeld, .notFound, "held by another application: the client reads it through X")
    }

    /// A control client asking for names nobody offers is refused without interning them: an X server keeps every
    /// atom for its life (and the daemon asked it for each such name with a round trip).
    func testAReadOfNamesNobodyOffersInternsNone() throws {
        let h = try Harness()
        try h.copy([(.utf8PlainText, "held")])
        let before = h.server.internedCount
        for n in 0..<30 {
            guard case .error(let code, _)? = h.send(.read(pasteboard: "CLIPBOARD", types: ["application/x-nobody-\(n)"], display: ":99")).first else {
                return XCTFail("a name nobody offers is refused")
            }
            XCTAssertEqual(code, .typeNotOffered)
        }
        XCTAssertEqual(h.server.internedCount, before, "no name interned for them")
        guard case .items(let items)? = h.send(.read(pasteboard: "CLIPBOARD", types: ["application/x-nobody", "text/html"], display: ":99")).first else {
            return XCTFail("the first name of the list that is served is read")
        }
        XCTAssertEqual(items.first?.types, [.html], "made from the text, by name")
        XCTAssertTrue(String(decoding: items.first?.data(for: .html) ?? [], as: UTF8.self).contains("held"))
    }

    func testMultipleGetsEachTargetConvertedOnce() throws {
        let h = try Harness()
        try h.copy([(.html, "<p>a <b>b</b></p>")])
        let requestor = FakeRequestor(server: h.server)   // not pumped: the properties stay for the test to read
        let c = requestor.connection
        let pairs = ["text/rtf", "P1", "UTF8_STRING", "P2", "image/png", "P3", "text/rtf", "P4"].map { c.intern($0).rawValue }
        c.changeProperty(requestor.window, c.intern("PAIRS"), PropertyValue(type: c.atoms.atomPair, longs: pairs))
        c.convertSelection(c.atoms.clipboard, target: c.atoms.multiple, property: c.intern("PAIRS"), requestor: requestor.window, time: .currentTime)
        h.settle()
        let written = h.server.property(requestor.window, c.intern("PAIRS"))?.atoms.map(\.rawValue)
        XCTAssertEqual(written?[5], 0, "image/png's pair is refused with None")
        XCTAssertTrue(String(decoding: h.server.property(requestor.window, c.intern("P1"))?.bytes ?? [], as: UTF8.self).hasPrefix("{\\rtf1"))
        XCTAssertEqual(h.server.property(requestor.window, c.intern("P1")), h.server.property(requestor.window, c.intern("P4")))
        XCTAssertEqual(h.server.property(requestor.window, c.intern("P2"))?.bytes.map { String(decoding: $0, as: UTF8.self) }?.trimmingCharacters(in: .newlines), "a b")
    }

    func testLargeValuesGoByIncrAndARequestorThatVanishesEndsTheTransfer() throws {
        let h = try Harness()
        let big = String(repeating: "0123456789abcdef", count: (3 << 20) / 16)
        try h.copy([(.utf8PlainText, big)])
        XCTAssertEqual(h.paste("UTF8_STRING").text, big, "INCR, in chunks, to the end")
        XCTAssertEqual(h.engine.service.transfers.count, 0)

        let requestor = h.requestor()
        requestor.ask("CLIPBOARD", "UTF8_STRING")
        // Answered with an INCR header; the requestor dies before reading.
        while h.x.pendingEvents() > 0 { h.engine.handle(h.x.nextEvent()) }
        XCTAssertEqual(h.engine.service.transfers.count, 1)
        requestor.connection.close()
        h.settle()
        XCTAssertEqual(h.engine.service.transfers.count, 0, "DestroyNotify dropped it")
    }

    func testARequestorWhoseWindowIsGoneCausesALoggedXErrorNotACrash() throws {
        let h = try Harness()
        try h.copy([(.utf8PlainText, "x")])
        let requestor = h.requestor()
        requestor.ask("CLIPBOARD", "UTF8_STRING")
        requestor.connection.destroyWindow(requestor.window)
        h.settle()
        XCTAssertTrue(h.log.contains { $0.contains("X error answering") && $0.contains("BadWindow") }, "\(h.log)")
        XCTAssertEqual(h.paste("UTF8_STRING").text, "x", "and serves on")
    }

    func testSideEffectTargetsAreRefused() throws {
        let h = try Harness()
        try h.copy([(.utf8PlainText, "x")])
        XCTAssertEqual(h.paste("DELETE").result.map { $0 == nil }, true)
        XCTAssertEqual(h.paste("UTF8_STRING").text, "x", "and the content stays")
    }

    func testPasteOnceContentIsClearedWhenThePasteGoesQuiet() throws {
        let h = try Harness()
        let count = try h.copy([(.utf8PlainText, "once")], options: [.pasteOnce])
        XCTAssertEqual(h.paste("TARGETS").typeName, "ATOM")
        h.advance(by: .seconds(1))
        XCTAssertTrue(h.daemonOwns(), "TARGETS is not a paste")
        XCTAssertEqual(h.paste("UTF8_STRING").text, "once")
        XCTAssertEqual(h.paste("UTF8_STRING").text, "once", "the paste's other requests within the quiet period")
        h.advance(by: SelectionService.pasteOnceQuietPeriod)
        XCTAssertFalse(h.daemonOwns())
        XCTAssertEqual(h.count(), count + 1, "the clear is one change")
    }

    // MARK: - Files

    func testADolphinCutTakenOverPastesInNautilusAsACutAndTheOtherWayRound() throws {
        let h = try Harness()
        // Dolphin cuts two files (Qt offers the URI list and KIO's marker), then quits.
        let dolphin = h.owner([("text/uri-list", Array("file:///home/me/a%20b.txt\r\nfile:///home/me/c\r\n".utf8)),
                               ("application/x-kde-cutselection", Array("1".utf8))])
        dolphin.own()
        h.settle()
        XCTAssertEqual(dolphin.requested, ["TARGETS", "text/uri-list", "application/x-kde-cutselection"])
        dolphin.exit()
        h.settle()
        h.advance(by: .zero)
        XCTAssertTrue(h.daemonOwns())
        let targets = h.targets()
        for name in ["text/uri-list", "application/x-kde-cutselection", "x-special/gnome-copied-files", "x-special/mate-copied-files", "UTF8_STRING"] {
            XCTAssertTrue(targets.contains(name), "\(name) in \(targets)")
        }
        XCTAssertEqual(h.paste("x-special/gnome-copied-files").text, "cut\nfile:///home/me/a%20b.txt\nfile:///home/me/c",
                       "Nautilus moves them, as Dolphin would have")
        XCTAssertEqual(h.paste("UTF8_STRING").text, "/home/me/a b.txt\n/home/me/c")
        XCTAssertFalse(targets.contains("text/html"), "paths are not a document")

        // Thunar copies one file: Dolphin gets its URI list and a marker that says copy.
        let thunar = h.owner([("x-special/gnome-copied-files", Array("copy\nfile:///tmp/d".utf8))])
        thunar.own()
        h.settle()
        thunar.exit()
        h.settle()
        h.advance(by: .zero)
        XCTAssertEqual(h.paste("text/uri-list").text, "file:///tmp/d\r\n")
        XCTAssertEqual(h.paste("application/x-kde-cutselection").text, "0")
    }

    func testABrokenFileListIsRefusedAndTheLogSaysWhyWithoutTheNames() throws {
        let h = try Harness()
        try h.copy([(.gnomeCopiedFiles, "copy\nfile:///home/me/secret plan.txt")])
        XCTAssertEqual(h.paste("x-special/gnome-copied-files").text, "copy\nfile:///home/me/secret plan.txt", "the bytes as given")
        XCTAssertEqual(h.paste("text/uri-list").result.map { $0 == nil }, true, "refused, never a broken list")
        XCTAssertTrue(h.log.contains { $0.contains("could not derive text/uri-list") && $0.contains("URI 1 contains a space") }, "\(h.log)")
        XCTAssertFalse(h.log.contains { $0.contains("secret plan") }, "no file name in the log")
    }
}

