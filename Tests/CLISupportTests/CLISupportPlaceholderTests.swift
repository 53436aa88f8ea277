import XCTest

final class CLISupportPlaceholderTests: XCTestCase {
    func testPlaceholder() {}
}
