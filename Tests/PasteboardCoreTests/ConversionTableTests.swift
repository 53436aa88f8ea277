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
