// SPDX-License-Identifier: Apache-2.0
@testable import Pasteboard
import PasteboardCore
import XCTest

/// Which display the library reads itself when pasteboardd does not hold the content, and what pb hears without a
/// daemon: the Wayland seat on a Wayland session (even with XWayland's DISPLAY), X for named pasteboards and
/// without WAYLAND_DISPLAY.
final class DirectDisplayTests: XCTestCase {
    func testTheSeatWhenWaylandDisplayIsSetEvenWithDisplay() {
        XCTAssertEqual(DirectDisplay.choose(["WAYLAND_DISPLAY": "wayland-1"], pasteboard: .general), .wayland(socket: "wayland-1"))
        XCTAssertEqual(DirectDisplay.choose(["WAYLAND_DISPLAY": "wayland-1", "DISPLAY": ":0"], pasteboard: .primary),
                       .wayland(socket: "wayland-1"))
        XCTAssertEqual(DirectDisplay.choose(["WAYLAND_DISPLAY": "/run/user/1000/wayland-0"], pasteboard: .general),
                       .wayland(socket: "/run/user/1000/wayland-0"), "a path, as WAYLAND_DISPLAY may be")
    }

    func testXOtherwiseAndForNamedPasteboards() throws {
        XCTAssertEqual(DirectDisplay.choose(["DISPLAY": ":0"], pasteboard: .general), .x)
        XCTAssertEqual(DirectDisplay.choose(["WAYLAND_DISPLAY": "", "DISPLAY": ":0"], pasteboard: .general), .x, "empty is unset")
        XCTAssertEqual(DirectDisplay.choose([:], pasteboard: .general), .x)
        let named = try XCTUnwrap(PasteboardName.named("notes"))
        XCTAssertEqual(DirectDisplay.choose(["WAYLAND_DISPLAY": "wayland-1", "DISPLAY": ":0"], pasteboard: named), .x,
                       "a named pasteboard is an X selection (or pasteboardd's)")
    }

    /// With no X display, a named pasteboard is pasteboardd's alone: no Wayland selection carries it.
    func testNamedPasteboardsOnWaylandAloneAreTheDaemonsOnly() throws {
        let named = try XCTUnwrap(PasteboardName.named("notes"))
        XCTAssertEqual(DirectDisplay.choose(["WAYLAND_DISPLAY": "wayland-1"], pasteboard: named), .daemonOnly)
        XCTAssertEqual(DirectDisplay.choose(["WAYLAND_DISPLAY": "wayland-1", "DISPLAY": ""], pasteboard: named), .daemonOnly, "empty is unset")
        XCTAssertEqual(DirectDisplay.choose(["WAYLAND_DISPLAY": "wayland-1"], pasteboard: .general), .wayland(socket: "wayland-1"))
        XCTAssertEqual(DirectDisplay.choose([:], pasteboard: named), .x, "no display at all: X says why it cannot be opened")
    }

    func testXStandsBehindTheSeatOnlyWithDisplay() {
        XCTAssertTrue(DirectDisplay.hasXFallback(["DISPLAY": ":0", "WAYLAND_DISPLAY": "wayland-1"]))
        XCTAssertFalse(DirectDisplay.hasXFallback(["WAYLAND_DISPLAY": "wayland-1"]))
        XCTAssertFalse(DirectDisplay.hasXFallback(["DISPLAY": ""]))
    }

    func testNoDaemonOnWaylandSaysHowToStartItThere() {
        let x = "\(DaemonClientError.notRunning(socket: "/run/user/1000/pasteboard/control.sock"))"
        XCTAssertTrue(x.contains("systemctl --user start pasteboardd") && !x.contains("WAYLAND_DISPLAY"), x)
        let wayland = "\(DaemonClientError.notRunning(socket: "/run/user/1000/pasteboard/control.sock", wayland: true))"
        XCTAssertTrue(wayland.contains("systemctl --user import-environment WAYLAND_DISPLAY"), wayland)
        XCTAssertTrue(wayland.contains("pasteboardd &"), wayland)
    }
}
