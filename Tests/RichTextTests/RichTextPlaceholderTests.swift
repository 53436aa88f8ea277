import XCTest

final class RichTextPlaceholderTests: XCTestCase {
    func testPlaceholder() {}
}
