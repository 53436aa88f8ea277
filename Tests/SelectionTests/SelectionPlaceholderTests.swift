import XCTest

final class SelectionPlaceholderTests: XCTestCase {
    func testPlaceholder() {}
}
