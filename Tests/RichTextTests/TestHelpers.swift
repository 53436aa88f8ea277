// SPDX-License-Identifier: Apache-2.0
import XCTest

@testable import RichText
import SystemSupport

/// glibc's iconv, as pb and the daemon inject it: the double-byte code pages need it.
extension IconvCodePages: CodePageDecoder {}

let systemCodePages = IconvCodePages()

func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }

/// Reads RTF with the system decoder, as pb and the daemon do.
func readRTF(_ s: String) -> ReadResult { RTFReader.read(bytes(s), codePages: systemCodePages) }

/// The document's visible runs (hidden dropped), merged.
func runs(_ document: AttributedDocument) -> [TextRun] {
    document.normalized().paragraphs.flatMap(\.runs)
}

func fixtureURL(_ name: String) -> URL {
    Bundle.module.url(forResource: "Fixtures/" + name, withExtension: nil)!
}

func fixture(_ name: String) throws -> [UInt8] {
    Array(try Data(contentsOf: fixtureURL(name)))
}
