// SPDX-License-Identifier: Apache-2.0
import PasteboardCore
import XCTest

/// File URIs and the file managers' list formats: what GLib and Qt write, read back; what would touch the
/// wrong file, refused with a reason.
final class FileListTests: XCTestCase {
    // MARK: - Paths to URIs

    func testPathsArePercentEncodedAsGLibAndQtWriteThem() throws {
        XCTAssertEqual(try FileURI.encode(path: "/home/me/notes.txt"), "file:///home/me/notes.txt")
        XCTAssertEqual(try FileURI.encode(path: "/tmp/a b#c%d?e"), "file:///tmp/a%20b%23c%25d%3Fe")
        XCTAssertEqual(try FileURI.encode(path: "/tmp/naïve €"), "file:///tmp/na%C3%AFve%20%E2%82%AC")
        XCTAssertEqual(try FileURI.encode(path: "/tmp/keep-._~!$&'()*+,;=:@"), "file:///tmp/keep-._~!$&'()*+,;=:@")
        XCTAssertEqual(try FileURI.encode(path: "/tmp/line\nbreak"), "file:///tmp/line%0Abreak")
    }

    func testEncodingRefusesWhatIsNotOneAbsoluteFile() {
        for (path, reason) in [("notes.txt", "not absolute"), ("/", "names no file"), ("/tmp/../etc/passwd", ". or .."),
                               ("/tmp/./a", ". or .."), ("/tmp/a\0b", "NUL")] {
            XCTAssertThrowsError(try FileURI.encode(path: path), path) { error in
                XCTAssertTrue("\(error)".contains(reason), "\(path): \(error)")
            }
        }
    }

    func testEveryEncodedPathDecodesToItself() throws {
        for path in ["/a", "/tmp/a b#c%d?e", "/tmp/na\u{EF}ve €/日本.txt", "/tmp/%41", "/x/\t\u{7F}y", "/dir/"] {
            XCTAssertEqual(try FileURI.path(of: FileURI.encode(path: path)), path)
        }
    }

    // MARK: - URIs to paths

    func testTheHostPartMustBeThisMachine() throws {
        XCTAssertEqual(try FileURI.path(of: "file:///tmp/a"), "/tmp/a")
        XCTAssertEqual(try FileURI.path(of: "file://localhost/tmp/a"), "/tmp/a")
        XCTAssertEqual(try FileURI.path(of: "FILE://LocalHost/tmp/a"), "/tmp/a", "scheme and localhost are case-insensitive")
        XCTAssertEqual(try FileURI.path(of: "file:/tmp/a"), "/tmp/a", "RFC 8089's short form")
        XCTAssertEqual(try FileURI.path(of: "file://myhost/tmp/a", localHostNames: ["myhost"]), "/tmp/a")
        XCTAssertThrowsError(try FileURI.path(of: "file://otherhost/tmp/a", localHostNames: ["myhost"])) { error in
            XCTAssertTrue("\(error)".contains("another machine"), "\(error)")
        }
    }

    func testURIsThatWouldReachTheWrongFileAreRefused() {
        let refused: [(String, String)] = [
            ("https://example.com/a.txt", "not a file: URI"),
            ("sftp://host/tmp/a", "not a file: URI"),
            ("file:///tmp/a%2Fb", "encodes a /"),
            ("file:///tmp/a%00b", "NUL"),
            ("file:///tmp/a%zzb", "two hexadecimal digits"),
            ("file:///tmp/a%4", "two hexadecimal digits"),
            ("file:///tmp/a#frag", "fragment"),
            ("file:///tmp/a?q=1", "query"),
            ("file:///tmp/%2E%2E/etc/passwd", ". or .."),
            ("file:///tmp/%FF", "not UTF-8"),
            ("file://", "no absolute path"),
            ("file:relative", "no absolute path"),
            ("file:///tmp/a b", "space or a control character"),
            ("file:///tmp/a\u{1B}b", "space or a control character"),
            ("/tmp/plain-path", "no scheme"),
            ("file:///" + String(repeating: "a", count: FileList.maximumURILength), "longer than"),
        ]
        for (uri, reason) in refused {
            XCTAssertThrowsError(try FileURI.path(of: uri), uri) { error in
                XCTAssertTrue("\(error)".contains(reason), "\(uri): \(error)")
            }
        }
    }

    // MARK: - The formats

    func testGnomeCopiedFilesCarriesTheActionAndTheURIs() throws {
        let cut = try FileList(copiedFiles: Array("cut\nfile:///tmp/a\nfile:///tmp/b%20c".utf8))
        XCTAssertEqual(cut.action, .cut)
        XCTAssertEqual(cut.uris, ["file:///tmp/a", "file:///tmp/b%20c"])
        XCTAssertEqual(cut.copiedFiles, Array("cut\nfile:///tmp/a\nfile:///tmp/b%20c".utf8), "as Nautilus writes it: no newline at the end")
        // What other writers add: a trailing newline, CRLF, a NUL at the end (Thunar's strings).
        XCTAssertEqual(try FileList(copiedFiles: Array("copy\r\nfile:///tmp/a\r\n\0".utf8)), FileList(action: .copy, uris: ["file:///tmp/a"]))
        XCTAssertThrowsError(try FileList(copiedFiles: Array("move\nfile:///tmp/a".utf8))) { XCTAssertEqual($0 as? FileListError, .unknownAction) }
        XCTAssertThrowsError(try FileList(copiedFiles: Array("copy\n".utf8))) { XCTAssertEqual($0 as? FileListError, .empty) }
        XCTAssertThrowsError(try FileList(copiedFiles: [])) { XCTAssertEqual($0 as? FileListError, .empty) }
    }

    func testURIListsFollowRFC2483() throws {
        let list = try FileList(uriList: Array("# a comment\r\nfile:///tmp/a\r\n\r\nfile:///tmp/b\n".utf8))
        XCTAssertEqual(list.uris, ["file:///tmp/a", "file:///tmp/b"])
        XCTAssertEqual(list.action, .copy)
        XCTAssertEqual(list.uriList, Array("file:///tmp/a\r\nfile:///tmp/b\r\n".utf8))
        XCTAssertThrowsError(try FileList(uriList: Array("file:///tmp/a\nnot a uri\n".utf8))) { error in
            XCTAssertEqual(error as? FileListError, .badURI(line: 2, reason: "contains a space or a control character"))
        }
        XCTAssertThrowsError(try FileList(uriList: Array("# only a comment\r\n".utf8))) { XCTAssertEqual($0 as? FileListError, .empty) }
    }

    func testAListHoldsAtMostTheLimitOfFiles() throws {
        let many = Array(String(repeating: "file:///tmp/a\n", count: FileList.maximumFiles + 1).utf8)
        XCTAssertThrowsError(try FileList(uriList: many)) { XCTAssertEqual($0 as? FileListError, .tooManyFiles(FileList.maximumFiles + 1)) }
        XCTAssertEqual(try FileList(uriList: Array(many.dropFirst("file:///tmp/a\n".utf8.count))).uris.count, FileList.maximumFiles)
    }

    func testKDEsMarkerIsOneForACut() throws {
        XCTAssertEqual(FileList.action(fromKDECutMarker: Array("1".utf8)), .cut)
        XCTAssertEqual(FileList.action(fromKDECutMarker: Array("0".utf8)), .copy)
        XCTAssertEqual(FileList.action(fromKDECutMarker: []), .copy)
        XCTAssertEqual(FileList(action: .cut, uris: ["file:///a"]).kdeCutMarker, Array("1".utf8))
        XCTAssertEqual(FileList(action: .copy, uris: ["file:///a"]).kdeCutMarker, Array("0".utf8))
    }

    func testAsTextLocalFilesArePathsAndOtherURIsStayURIs() throws {
        let list = FileList(uris: ["file:///tmp/a%20b", "sftp://host/tmp/c", "file://elsewhere/tmp/d", "file:///tmp/two%0Alines"])
        XCTAssertEqual(String(decoding: list.text, as: UTF8.self), "/tmp/a b\nsftp://host/tmp/c\nfile://elsewhere/tmp/d\nfile:///tmp/two%0Alines",
                       "no newline at the end: pasted into a shell, it runs nothing; a name with a newline stays a URI, one line")
        XCTAssertEqual(list.names, ["a b", "c", "d", "two\nlines"])
    }

    func testAListOfPathsIsMadeOfFileURIs() throws {
        let list = try FileList(action: .cut, paths: ["/tmp/a b", "/tmp/c#"])
        XCTAssertEqual(list.uris, ["file:///tmp/a%20b", "file:///tmp/c%23"])
        XCTAssertEqual(list.action, .cut)
        XCTAssertThrowsError(try FileList(paths: [])) { XCTAssertEqual($0 as? FileListError, .empty) }
        XCTAssertThrowsError(try FileList(paths: ["relative"]))
    }

    // MARK: - Summaries

    func testAPreviewNamesFilesImagesOrText() throws {
        let files = PasteboardContent(items: [try PasteboardItem([(.uriList, Array("file:///tmp/a.txt\r\nfile:///tmp/b%0Ac.txt\r\nfile:///tmp/d\r\n".utf8))])])
        XCTAssertEqual(files.preview(), "3 files: a.txt, b c.txt, d", "a newline in a file name is shown as a space")
        let cut = PasteboardContent(items: [try PasteboardItem([(.gnomeCopiedFiles, Array("cut\nfile:///tmp/a.txt".utf8))])])
        XCTAssertEqual(cut.preview(), "1 file cut: a.txt")
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8)
        png += [0, 0, 0x07, 0x80, 0, 0, 0x04, 0x38, 8, 6, 0, 0, 0]
        let image = PasteboardContent(items: [try PasteboardItem([(.png, png), (.html, Array("<img>".utf8))])])
        XCTAssertEqual(image.preview(), "image/png 1920×1080", "a browser's image copy: the picture and HTML")
        let textAndPicture = PasteboardContent(items: [try PasteboardItem([(.png, png), (.utf8String, Array("cells".utf8))])])
        XCTAssertEqual(textAndPicture.preview(), "cells", "text rendered as a picture beside it is still text")
        XCTAssertEqual(PasteboardContent(items: [try PasteboardItem([(PasteboardType("image/jpeg"), [0xFF, 0xD8, 0xFF])])]).preview(),
                       "image/jpeg, 3 bytes")
        let text = PasteboardContent(items: [try PasteboardItem([(.utf8PlainText, Array("line\u{1B}[31m\nnext\u{202E}gnp.exe".utf8))])])
        XCTAssertEqual(text.preview(), "line [31m next gnp.exe")
        XCTAssertEqual(OneLine.make(String(repeating: "x", count: 100), limit: 10), "xxxxxxxxxx…")
        XCTAssertEqual(OneLine.make("a\r\nb\rc\n\td\u{7F}\u{1B}e", limit: 20), "a b c  d  e", "CR LF is one break, one space")
        XCTAssertEqual(OneLine.make("ab\r\ncd", limit: 4), "ab c…", "CR LF counts as one character")
        XCTAssertEqual(OneLine.make("ab\r\ncd", limit: 5), "ab cd")
    }

    /// A copy with rich text and no plain text (an HTML or RTF file copied by type, a Mac's RTFD) is previewed
    /// by its text, as CopyQ shows it, not as "[text/html]".
    func testAPreviewOfRichTextWithoutPlainTextIsItsText() throws {
        func preview(_ type: PasteboardType, _ bytes: [UInt8]) throws -> String {
            try PasteboardContent(items: [PasteboardItem([(type, bytes)])]).preview()
        }
        XCTAssertEqual(try preview(.html, Array("<p>from <b>another</b>\napplication</p>".utf8)), "from another application")
        let rtf = Array(#"{\rtf1\ansi{\fonttbl{\f0 Arial;}}\f0 Hello \b bold\b0  caf\'e9\par second\par}"#.utf8)
        XCTAssertEqual(try preview(.rtf, rtf), "Hello bold café second")
        let plan = try XCTUnwrap(ConversionTable.standard.plan(producing: .flatRTFD, from: [.rtf]))
        XCTAssertEqual(try preview(.flatRTFD, try plan.run(rtf, services: ConversionServices()).data), "Hello bold café second")

        // Word's and Outlook's HTML put tens of KiB of styles before the body: still read.
        let styles = "<style>" + String(repeating: "p.MsoNormal { margin: 0cm; font-family: Calibri; }\n", count: 800) + "</style>"
        XCTAssertLessThan(styles.utf8.count, PasteboardContent.previewSourceBytes)
        XCTAssertEqual(try preview(.html, Array("<html><head>\(styles)</head><body><p>Dear team,</p></body></html>".utf8)), "Dear team,")
        // Only the start is read, whatever the size: a 4 MiB document shows its beginning.
        let long = "<p>Chapter one</p>" + String(repeating: "<p>more text</p>", count: 4 << 18)
        XCTAssertEqual(try preview(.html, Array(long.utf8)).prefix(24), "Chapter one more text mo")
        // Text beyond the bound is not looked for: a 100 KiB font table first leaves the type.
        let fonts = (0..<3000).map { #"{\f\#($0) Font Number \#($0);}"# }.joined()
        XCTAssertGreaterThan(fonts.utf8.count, PasteboardContent.previewSourceBytes)
        XCTAssertEqual(try preview(.rtf, Array((#"{\rtf1\ansi{\fonttbl "# + fonts + #"}\f0 late\par}"#).utf8)), "[text/rtf]")
        // Rich text showing no text (a picture only) and malformed bytes fall back to the type too.
        XCTAssertEqual(try preview(.html, Array("<img src=x>".utf8)), "[text/html]")
        XCTAssertEqual(try preview(.flatRTFD, [0x72, 0x74, 0x66, 0x64]), "[com.apple.flat-rtfd]")
    }
}
