import XCTest

@testable import RichText

func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }

func readRTF(_ s: String) -> ReadResult { RTFReader.read(bytes(s)) }

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
