import XCTest

final class PasteboardCorePlaceholderTests: XCTestCase {
    func testPlaceholder() {}
}
