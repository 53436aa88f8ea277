import XCTest

final class SystemSupportPlaceholderTests: XCTestCase {
    func testPlaceholder() {}
}
