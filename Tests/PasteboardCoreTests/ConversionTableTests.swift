// SPDX-License-Identifier: Apache-2.0
import Foundation
import PasteboardCore
import XTypes
import XCTest

/// One test per rule of the conversion table: which offered type is read for a wanted one, how it is
/// converted, what a holder lists in TARGETS, which replies answer a request.
final class ConversionTableTests: XCTestCase {
    let table = ConversionTable.standard
    let rtf = Array(#"{\rtf1\ansi line {\b bold}\par}"#.utf8)
    let html = Array("<p>line <b>bold</b></p>".utf8)

    func plan(_ wanted: PasteboardType, _ offered: [PasteboardType]) -> ConversionPlan? {
        table.plan(producing: wanted, from: offered)
    }

    // MARK: - The standard table itself

    /// The standard table skips `init`'s check at start (it is built at every start of `pb`): it is checked here.
    func testEveryTypeOfTheStandardTableHasOneRow() {
        let types = table.rows.map(\.type)
        XCTAssertEqual(Set(types).count, types.count)
        XCTAssertEqual(ConversionTable(rows: table.rows, converters: table.converters).rows.count, types.count)
    }

    // MARK: - Choosing what to read

    func testAnOfferedTypeIsReadAsItIs() throws {
        let plan = try XCTUnwrap(plan(.html, [.utf8String, .html, .rtf]))
        XCTAssertEqual(plan.source, .html)
        XCTAssertTrue(plan.isIdentity)
    }

    func testAnAliasIsReadAsItIs() throws {
        XCTAssertEqual(plan(.plainText, [.utf8String])?.source, .utf8String)
        XCTAssertTrue(try XCTUnwrap(plan(.plainText, [.utf8String])).isIdentity)
        XCTAssertEqual(plan(.applicationRTF, [.richText])?.source, .richText, "LibreOffice's text/richtext carries RTF")
        XCTAssertTrue(try XCTUnwrap(plan(.applicationRTF, [.richText])).isIdentity)
        XCTAssertEqual(table.aliases(of: .rtf), [.rtf, .applicationRTF, .richText])
    }

    func testAnExactConversionIsPreferredToALossyOne() {
        // Latin-1 → UTF-8 keeps every character; HTML → text drops the markup.
        XCTAssertEqual(plan(.utf8String, [.html, .string])?.source, .string)
        XCTAssertEqual(plan(.utf8String, [.html, .string])?.fidelity, .exact)
    }

    func testTheRichestSourceWinsAmongEquals() {
        XCTAssertEqual(plan(.html, [.rtf, .flatRTFD])?.source, .flatRTFD, "RTFD before RTF")
        XCTAssertEqual(plan(.utf8String, [.html, .applicationRTF])?.source, .applicationRTF, "RTF before HTML")
    }

    func testAFaithfulConversionBeatsAnInventedOne() {
        XCTAssertEqual(plan(.rtf, [.utf8String, .html])?.source, .html, "HTML's structure is real, text's paragraphs are guessed")
    }

    func testUTF8IsPreferredAmongTextEncodings() {
        XCTAssertEqual(plan(.string, [.compoundText, .utf8PlainText, .utf8String])?.source, .utf8String)
    }

    func testNothingConvertsWhatAnInventedStepMade() throws {
        // Plain text → HTML directly (invented), never plain text → RTFD → HTML.
        let plan = try XCTUnwrap(plan(.html, [.utf8String]))
        XCTAssertEqual(plan.steps.count, 1)
        XCTAssertEqual(plan.fidelity, .invented)
        XCTAssertFalse(plan.isAdvertised)
    }

    func testTypesOutsideTheTableAreOnlyReadAsTheyAre() {
        XCTAssertEqual(plan(.png, [.png, .html])?.source, .png)
        XCTAssertNil(plan(.png, [.html, .utf8String]))
        XCTAssertNil(plan(PasteboardType("application/x-foo"), [.utf8String]))
        XCTAssertNil(plan(.utf8String, [.png]))
    }

    func testTextIsMadeFromTextEvenWhenNotUTF8() throws {
        let plan = try XCTUnwrap(plan(.utf8String, [.string]))
        XCTAssertEqual(try plan.run([0x63, 0x61, 0x66, 0xE9], services: ConversionServices()).data, Array("café".utf8))
    }

    // MARK: - Converting

    func testStringIsLatin1WithQuestionMarksForTheRest() throws {
        let plan = try XCTUnwrap(plan(.string, [.utf8String]))
        XCTAssertTrue(plan.isLossy)
        let result = try plan.run(Array("é€".utf8), services: ConversionServices())
        XCTAssertEqual(result.data, [0xE9, 0x3F])
        XCTAssertEqual(result.type, .string)
    }

    func testTextIsServedAsStringOrUTF8StringNeverAsText() throws {
        let latin = try XCTUnwrap(plan(.text, [.utf8String])).run(Array("é".utf8), services: ConversionServices())
        XCTAssertEqual(latin.type, .string)
        XCTAssertEqual(latin.data, [0xE9])
        let wide = try XCTUnwrap(plan(.text, [.utf8String])).run(Array("€".utf8), services: ConversionServices())
        XCTAssertEqual(wide.type, .utf8String)
        XCTAssertEqual(wide.data, Array("€".utf8))
        // Content kept under TEXT itself is converted too: the reply names the encoding chosen.
        let plan = try XCTUnwrap(plan(.text, [.text]))
        XCTAssertFalse(plan.isIdentity)
        XCTAssertEqual(try plan.run(Array("é".utf8), services: ConversionServices()).type, .string)
    }

    func testCompoundTextNeedsTheXConnectionsThread() throws {
        let plan = try XCTUnwrap(plan(.compoundText, [.rtf]))
        XCTAssertTrue(plan.needsCallerThread)
        XCTAssertEqual(plan.steps.prefix { !$0.needsCallerThread }.count, 1, "RTF → text may run on a worker; text → COMPOUND_TEXT may not")
        XCTAssertThrowsError(try plan.run(rtf, services: ConversionServices())) { error in
            XCTAssertTrue("\(error)".contains("no X connection"), "\(error)")
        }
        struct Reversed: CompoundTextCodec {
            func compoundText(fromUTF8 text: [UInt8]) -> [UInt8]? { text.reversed() }
            func utf8(fromCompoundText bytes: [UInt8]) -> [UInt8]? { bytes.reversed() }
        }
        XCTAssertEqual(try plan.run(rtf, services: ConversionServices(compoundText: Reversed())).data, Array("\ndlob enil".utf8))
    }

    func testRichTextConvertsBetweenItsFormats() throws {
        let toHTML = try XCTUnwrap(plan(.html, [.rtf])).run(rtf, services: ConversionServices())
        let markup = String(decoding: toHTML.data, as: UTF8.self)
        XCTAssertTrue(markup.contains("<b>bold</b>"), markup)
        let toText = try XCTUnwrap(plan(.utf8String, [.html])).run(html, services: ConversionServices())
        XCTAssertEqual(String(decoding: toText.data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines), "line bold")
        let viaRTFD = try XCTUnwrap(plan(.flatRTFD, [.html])).run(html, services: ConversionServices())
        XCTAssertTrue(viaRTFD.data.starts(with: Array("rtfd".utf8)))
    }

    func testAFailedConversionSaysWhichAndWhy() throws {
        let plan = try XCTUnwrap(plan(.html, [.flatRTFD]))
        XCTAssertThrowsError(try plan.run(Array("rtfd\0\0\0\0 garbage".utf8), services: ConversionServices())) { error in
            let failure = error as? ConversionError
            XCTAssertEqual(failure?.from, .flatRTFD)
            XCTAssertEqual(failure?.to, .html)
            XCTAssertFalse(failure?.reason.isEmpty ?? true)
        }
    }

    // MARK: - What a holder lists

    func testPlainTextIsListedWithItsEncodingsAndRTFDButNotHTMLOrRTF() {
        let listed = table.advertisedTypes(for: [.utf8PlainText])
        XCTAssertEqual(Array(listed.prefix(7)), [.utf8String, .utf8PlainText, .plainText, .string, .text, .compoundText, .flatRTFD],
                       "the text encodings UTF8_STRING first, as owners list them, then RTFD")
        XCTAssertFalse(listed.contains(.html), "Chromium and Firefox would paste <p> paragraphs instead of the text")
        XCTAssertFalse(listed.contains(.rtf), "LibreOffice would paste RTF instead of text in the paragraph style at the cursor")
        // Made when asked for by name all the same.
        XCTAssertNotNil(plan(.html, [.utf8PlainText]))
    }

    func testRichTextIsListedWithEveryRichAndPlainType() {
        let listed = table.advertisedTypes(for: [.html, .png])
        XCTAssertEqual(Array(listed.prefix(6)), [.html, .flatRTFD, .rtf, .applicationRTF, .richText, .png],
                       "the source's types in order, a family's others right after its first")
        for type in table.members(of: .plainText) { XCTAssertTrue(listed.contains(type), "\(type)") }
    }

    func testTheSourcesOwnTypesComeFirstInTheirOrder() {
        let listed = table.advertisedTypes(for: [.png, .rtf, .utf8String])
        XCTAssertEqual(listed.first, .png)
        XCTAssertLessThan(listed.firstIndex(of: .rtf)!, listed.firstIndex(of: .utf8String)!)
        XCTAssertEqual(Set(listed).count, listed.count, "no type twice")
    }

    func testServedTypesAreTheListedOnesThenThoseMadeOnRequestAndTheSameWhenAskedAgain() {
        let offered: [PasteboardType] = [.utf8PlainText, .plainText, .text, .string, .utf8String]
        let first = table.servedTypes(for: offered, derivingFrom: offered)
        XCTAssertEqual(first.listed, table.advertisedTypes(for: offered, derivingFrom: offered))
        XCTAssertTrue(first.onRequest.contains(.html), "HTML is made from text when a reader names it")
        XCTAssertTrue(Set(first.listed).isDisjoint(with: first.onRequest))
        for type in first.onRequest { XCTAssertNotNil(plan(type, offered), "\(type)") }
        // Far more lists than are kept: each answer is still its own, the kept ones forgotten and made again.
        for n in 0..<300 {
            let own = [PasteboardType("application/x-own-\(n)"), .html]
            XCTAssertEqual(table.servedTypes(for: own, derivingFrom: own).listed.first, own[0])
        }
        XCTAssertEqual(table.servedTypes(for: offered, derivingFrom: offered), first)
        // A picture whose bytes do not read is listed, nothing is made from it.
        let pictureOnly = table.servedTypes(for: [.png], derivingFrom: [])
        XCTAssertEqual(pictureOnly.listed, [.png])
        XCTAssertEqual(pictureOnly.onRequest, [])
    }

    // MARK: - Replies

    func testAReplyMustBeOfTheTypeAskedOrAnAlias() {
        XCTAssertTrue(table.accepts(reply: .html, forRequested: .html))
        XCTAssertTrue(table.accepts(reply: .utf8String, forRequested: .plainText), "the same UTF-8 under another name")
        XCTAssertTrue(table.accepts(reply: .string, forRequested: .text), "TEXT lets the owner choose the encoding")
        XCTAssertTrue(table.accepts(reply: .compoundText, forRequested: .text))
        XCTAssertFalse(table.accepts(reply: .rtf, forRequested: .html), "xclip answers every target with its one type")
        XCTAssertFalse(table.accepts(reply: .utf8String, forRequested: .string), "STRING promises Latin-1")
        XCTAssertFalse(table.accepts(reply: PasteboardType("INCR"), forRequested: .png))
    }

    func testReadChoosesFromTheOfferChecksTheReplyAndConverts() throws {
        var asked: [PasteboardType] = []
        // The owner offers RTF only: HTML is made from it.
        let made = try table.read(.html, offered: [.rtf], services: ConversionServices(), asUTF8Text: true) { source -> Result<Representation?, Never> in
            asked.append(source)
            return .success(Representation(type: source, data: rtf))
        }
        XCTAssertEqual(asked, [.rtf])
        XCTAssertTrue(String(decoding: made?.data ?? [], as: UTF8.self).contains("<b>bold</b>"))

        // An owner answering with another type than asked is caught.
        XCTAssertThrowsError(try table.read(.html, offered: [.html], services: ConversionServices(), asUTF8Text: true) { _ -> Result<Representation?, Never> in
            .success(Representation(type: .rtf, data: self.rtf))
        }) { error in
            guard case .read(.wrongReplyType(asked: .html, got: .rtf))? = error as? ReadError<Never> else { return XCTFail("\(error)") }
        }

        // A refusal is nil; nothing offered that converts is an error naming the type.
        XCTAssertNil(try table.read(.html, offered: [.html], services: ConversionServices(), asUTF8Text: true) { _ -> Result<Representation?, Never> in .success(nil) })
        XCTAssertThrowsError(try table.read(.html, offered: [.png], services: ConversionServices(), asUTF8Text: true) { _ -> Result<Representation?, Never> in .success(nil) }) { error in
            guard case .read(.notOffered(.html))? = error as? ReadError<Never> else { return XCTFail("\(error)") }
        }
    }

    func testReadTurnsTextOfAnyEncodingIntoUTF8() throws {
        // Asked for TEXT, the owner chose STRING: the reader gets UTF-8.
        let text = try table.read(.text, offered: [.text], services: ConversionServices(), asUTF8Text: true) { _ -> Result<Representation?, Never> in
            .success(Representation(type: .string, data: [0x63, 0x61, 0x66, 0xE9]))
        }
        XCTAssertEqual(text?.data, Array("café".utf8))
        // STRING asked by name keeps Latin-1's question marks, as an X requestor of STRING sees them.
        let string = try table.read(.string, offered: [.utf8String], services: ConversionServices(), asUTF8Text: true) { _ -> Result<Representation?, Never> in
            .success(Representation(type: .utf8String, data: Array("é€".utf8)))
        }
        XCTAssertEqual(string?.data, Array("é?".utf8))
    }

    // MARK: - Files

    let gnomeCut = Array("cut\nfile:///tmp/a%20b\nfile:///tmp/c".utf8)
    let kdeList = Array("file:///tmp/a%20b\r\nfile:///tmp/c\r\n".utf8)

    func run(_ wanted: PasteboardType, _ offered: [(PasteboardType, [UInt8])]) throws -> String {
        let plan = try XCTUnwrap(plan(wanted, offered.map(\.0)), "\(wanted) from \(offered.map(\.0))")
        var services = ConversionServices()
        for companion in plan.companions { services.companions[companion] = offered.first { $0.0 == companion }?.1 }
        let source = try XCTUnwrap(offered.first { $0.0 == plan.source }?.1)
        return String(decoding: try plan.run(source, services: services).data, as: UTF8.self)
    }

    func testAGnomeCutGivesKDEItsURIListAndCutMarker() throws {
        XCTAssertEqual(try run(.uriList, [(.gnomeCopiedFiles, gnomeCut)]), "file:///tmp/a%20b\r\nfile:///tmp/c\r\n")
        XCTAssertEqual(try run(.kdeCutSelection, [(.gnomeCopiedFiles, gnomeCut)]), "1")
        XCTAssertEqual(try run(.kdeCutSelection, [(.mateCopiedFiles, Array("copy\nfile:///tmp/a".utf8))]), "0", "Caja's copy")
        XCTAssertEqual(plan(.mateCopiedFiles, [.gnomeCopiedFiles])?.isIdentity, true, "Caja's name for the same bytes")
    }

    func testAKDECopyOrCutGivesGnomeItsListWithTheRightAction() throws {
        XCTAssertEqual(try run(.gnomeCopiedFiles, [(.uriList, kdeList)]), "copy\nfile:///tmp/a%20b\nfile:///tmp/c")
        let cut = try XCTUnwrap(plan(.gnomeCopiedFiles, [.uriList, .kdeCutSelection]))
        XCTAssertEqual(cut.source, .uriList)
        XCTAssertEqual(cut.companions, [.kdeCutSelection], "the marker beside the list is read with it")
        XCTAssertEqual(try run(.gnomeCopiedFiles, [(.uriList, kdeList), (.kdeCutSelection, Array("1".utf8))]),
                       "cut\nfile:///tmp/a%20b\nfile:///tmp/c")
        XCTAssertEqual(try run(.gnomeCopiedFiles, [(.uriList, kdeList), (.kdeCutSelection, Array("0".utf8))]),
                       "copy\nfile:///tmp/a%20b\nfile:///tmp/c")
        XCTAssertEqual(plan(.gnomeCopiedFiles, [.uriList])?.companions, [], "no marker offered: nothing more to read")
    }

    func testFilesAreListedWithEveryFileFormatAndTheirPathsAsText() throws {
        let listed = table.advertisedTypes(for: [.uriList, .kdeCutSelection])
        XCTAssertEqual(Array(listed.prefix(4)), [.uriList, .gnomeCopiedFiles, .mateCopiedFiles, .kdeCutSelection])
        for type in table.members(of: .plainText) { XCTAssertTrue(listed.contains(type), "\(type)") }
        XCTAssertEqual(try run(.utf8String, [(.gnomeCopiedFiles, gnomeCut)]), "/tmp/a b\n/tmp/c")
        XCTAssertEqual(plan(.utf8String, [.gnomeCopiedFiles, .uriList])?.source, .uriList, "one lossy step rather than two")
        // Paths are not a document: no RTF, HTML or RTFD is invented from them, listed or asked for by name.
        for rich in table.members(of: .richText) { XCTAssertNil(plan(rich, [.uriList]), "\(rich)") }
    }

    func testTextNeverBecomesFiles() {
        for type in table.members(of: .files) {
            XCTAssertNil(plan(type, [.utf8String]), "a copied path would paste as the file itself in a file manager")
            XCTAssertNil(plan(type, [.html]))
        }
    }

    func testABrokenFileListFailsItsConversionWithTheRuleItBroke() throws {
        let plan = try XCTUnwrap(plan(.uriList, [.gnomeCopiedFiles]))
        XCTAssertThrowsError(try plan.run(Array("copy\nfile:///tmp/a b".utf8), services: ConversionServices())) { error in
            XCTAssertEqual("\(error)", "cannot convert copied files to URI list: URI 1 contains a space or a control character")
        }
    }

    func testReadFetchesTheCompanionOfTheSourceItReads() throws {
        var asked: [PasteboardType] = []
        let offered: [PasteboardType: [UInt8]] = [.uriList: kdeList, .kdeCutSelection: Array("1".utf8)]
        let made = try table.read(.gnomeCopiedFiles, offered: [.uriList, .kdeCutSelection], services: ConversionServices(),
                                  asUTF8Text: true) { source -> Result<Representation?, Never> in
            asked.append(source)
            return .success(offered[source].map { Representation(type: source, data: $0) })
        }
        XCTAssertEqual(asked, [.uriList, .kdeCutSelection])
        XCTAssertEqual(made.map { String(decoding: $0.data, as: UTF8.self) }, "cut\nfile:///tmp/a%20b\nfile:///tmp/c")
        // A marker the owner refuses, or answers with another type, is no marker: a copy.
        let refused = try table.read(.gnomeCopiedFiles, offered: [.uriList, .kdeCutSelection], services: ConversionServices(),
                                     asUTF8Text: true) { source -> Result<Representation?, Never> in
            source == .uriList ? .success(Representation(type: source, data: self.kdeList)) : .success(Representation(type: .utf8String, data: Array("1".utf8)))
        }
        XCTAssertEqual(refused.map { String(decoding: $0.data, as: UTF8.self).hasPrefix("copy\n") }, true)
    }

    // MARK: - A new family is rows and converters

    func testANewFamilySlotsInAsRowsAndConverters() throws {
        let shout = TypeFamily("shouting")
        let upper = RepresentationFormat("upper-case text")
        let extended = ConversionTable(
            rows: table.rows + [TypeRow(PasteboardType("text/x-shout"), upper, shout)],
            converters: table.converters + [
                Converter(.utf8Text, to: upper, .faithful) { input, _ in
                    ConverterOutput(Array(String(decoding: input, as: UTF8.self).uppercased().utf8))
                },
            ])
        let listed = extended.advertisedTypes(for: [.rtf])
        XCTAssertTrue(listed.contains(PasteboardType("text/x-shout")), "RTF → text → shout, listed")
        let plan = try XCTUnwrap(extended.plan(producing: PasteboardType("text/x-shout"), from: [.rtf]))
        XCTAssertEqual(plan.steps.count, 2)
        XCTAssertEqual(try plan.run(rtf, services: ConversionServices()).data, Array("LINE BOLD\n".utf8))
    }
}
