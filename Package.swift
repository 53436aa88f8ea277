// swift-tools-version:6.0
// SPDX-License-Identifier: Apache-2.0
import PackageDescription

// pasteboard: an X11 clipboard daemon (pasteboardd), its command line (pb, pbcopy, pbpaste)
// and a Swift library, laid out in the layers of shared/STYLE.md. A layer imports only layers below it.

let package = Package(
    name: "pasteboard",
    products: [
        .executable(name: "pasteboardd", targets: ["pasteboardd"]),
        .executable(name: "pb", targets: ["pb"]),
        .library(name: "Pasteboard", targets: ["Pasteboard"]),
        .library(name: "RichText", targets: ["RichText"]),
    ],
    targets: [
        // MARK: - Doors (the only places that touch C)

        /// Xlib (with its XCB side: property reads) and XFixes as a system library (pkg-config x11 xfixes x11-xcb xcb).
        .systemLibrary(
            name: "CX11",
            pkgConfig: "x11 xfixes x11-xcb xcb",
            providers: [.apt(["libx11-dev", "libxfixes-dev", "libx11-xcb-dev", "libxcb1-dev"])]
        ),
        /// What Swift cannot import from Xlib: error handlers, XEvent casts, macros. Every symbol is prefixed `pbx_`.
        .target(name: "CX11Shims", dependencies: ["CX11"]),
        /// The data-control protocols' client glue (made by wayland-scanner from protocols/wayland, committed) and a
        /// connection whose listener callbacks become queued events. Every symbol is prefixed `pbw_`. It is the only
        /// code that includes libwayland-client (Debian's libwayland-dev, which the Makefile installs), so the library
        /// is linked here: no Swift target imports it, so it needs no system-library module of its own.
        .target(name: "CWaylandShims", linkerSettings: [.linkedLibrary("wayland-client")]),
        /// The only Swift target that sees libwayland: a compositor connection bound to a data-control manager.
        .target(name: "WaylandClient", dependencies: ["CWaylandShims"]),
        /// The X protocol's values (atoms, windows, times, properties, events, the standard atoms), shared by the
        /// door and the pure core so that neither imports the other.
        .target(name: "XTypes"),
        /// The only Swift target that sees Xlib: a connection, atoms, windows, properties, selections, XFixes.
        .target(name: "XClient", dependencies: ["CX11", "CX11Shims", "XTypes"]),
        /// What Swift cannot call from libc (prctl, syscall: variadic) or see (GNU-only flags). Every symbol is prefixed
        /// `pbs_`; only SystemSupport imports it.
        .target(name: "CSystemShims"),
        /// The only other caller of libc: fds, poll, Unix sockets, signals, clocks, child processes, atomic files, sd_notify.
        .target(name: "SystemSupport", dependencies: ["CSystemShims"]),
        /// The image libraries opened on first use, not linked (linked, they cost every start of pb and pasteboardd the
        /// loader's time): libspng (PNG) with the inflaters of its image data, libdeflate and zlib; TurboJPEG; libwebp;
        /// giflib; libtiff. Each a table of the functions used, typed from its header (the -dev packages) and filled
        /// once by dlopen of its SONAME. Every symbol is prefixed `pbi_`.
        .target(name: "CImageShims"),
        /// The only Swift target that calls the image libraries: `SystemImageCodec`, decoding and encoding through them.
        .target(name: "ImageCodecs", dependencies: ["CImageShims", "Images", "SystemSupport"]),

        // MARK: - Pure core (no Glibc, no X)

        /// ICCCM selection protocol as values: targets, request answers, INCR and MULTIPLE state machines, text encodings.
        .target(name: "Selection", dependencies: ["XTypes"]),
        /// The control socket's framing and messages, versioned and binary-safe.
        .target(name: "ControlProtocol", dependencies: ["PasteboardCore", "XTypes"]),
        /// Pasteboard types, their families and the conversion table, items, change counting; the version, from VERSION.
        .target(name: "PasteboardCore", dependencies: ["Selection", "XTypes", "RichText", "Images"],
                plugins: ["VersionStamp"]),
        /// Pictures as values: the pixel buffer, formats by magic bytes, headers, limits, BMP, orientation, and the
        /// policy between decoders and encoders (the C codecs come in through the `ImageCodec` protocol).
        .target(name: "Images"),
        /// Attributed text with RTF, HTML, plain text and flat RTFD codecs.
        .target(name: "RichText"),
        /// argv → a command value or a usage error, for pb, pbcopy and pbpaste.
        .target(name: "CLISupport", dependencies: ["PasteboardCore"]),

        // MARK: - Client library

        /// The public Swift API: Pasteboard.general, named pasteboards, items, changeCount, over the control socket, X and
        /// a Wayland seat through data-control.
        .target(
            name: "Pasteboard",
            dependencies: ["PasteboardCore", "ControlProtocol", "SystemSupport", "XClient", "Selection", "XTypes", "ImageCodecs",
                           "WaylandClient"]
        ),

        // MARK: - Service

        /// The daemon: one poll loop over X, the control socket and signals; selection serving; change counting.
        .target(
            name: "DaemonCore",
            dependencies: ["XClient", "SystemSupport", "Selection", "ControlProtocol", "PasteboardCore", "RichText", "XTypes",
                           "Images", "ImageCodecs", "WaylandClient"]
        ),

        // MARK: - Executables (thin: parse, wire, run)

        /// The daemon's main.
        .executableTarget(name: "pasteboardd", dependencies: ["DaemonCore", "PasteboardCore", "SystemSupport"]),
        /// The command line; also pbcopy and pbpaste by argv[0].
        .executableTarget(
            name: "pb",
            dependencies: ["CLISupport", "Pasteboard", "RichText", "SystemSupport", "XTypes"]
        ),

        // The example programs of docs/library.md are a package of their own (docs/examples), depending on
        // this one by path as a program of yours would; ExamplesTests builds and runs them.

        // MARK: - Build plugins

        /// Stamps the version in VERSION into PasteboardCore (`PasteboardVersion.string`).
        .plugin(name: "VersionStamp", capability: .buildTool()),

        // MARK: - Tests

        /// Xvfb fixture, peer runners and helpers shared by the test targets.
        .target(name: "TestSupport", dependencies: ["SystemSupport", "XTypes"], path: "Tests/TestSupport"),
        .testTarget(name: "SelectionTests", dependencies: ["Selection", "XTypes"]),
        .testTarget(name: "WaylandClientTests", dependencies: ["WaylandClient", "SystemSupport", "TestSupport"]),
        .testTarget(name: "ControlProtocolTests", dependencies: ["ControlProtocol", "PasteboardCore", "TestSupport", "XTypes"]),
        .testTarget(name: "CLISupportTests", dependencies: ["CLISupport", "PasteboardCore"]),
        .testTarget(name: "PasteboardCoreTests", dependencies: ["PasteboardCore", "TestSupport", "XTypes", "Images"]),
        .testTarget(name: "SystemSupportTests", dependencies: ["SystemSupport"]),
        .testTarget(name: "ImagesTests", dependencies: ["Images", "TestSupport"]),
        /// The image codecs against pictures PIL wrote (make-fixtures.py), hostile input and threads.
        .testTarget(name: "ImageCodecsTests", dependencies: ["ImageCodecs", "Images", "TestSupport"], exclude: ["make-fixtures.py"]),
        /// The library's requestor on a fake X server.
        .testTarget(name: "PasteboardTests", dependencies: ["Pasteboard", "ControlProtocol", "PasteboardCore", "SystemSupport", "TestSupport", "XTypes"]),
        /// The daemon's logic on a fake X server with a manual clock: no DISPLAY, no Xvfb, seconds.
        .testTarget(
            name: "DaemonCoreTests",
            dependencies: ["DaemonCore", "ControlProtocol", "PasteboardCore", "SystemSupport", "TestSupport", "XTypes", "Images", "ImageCodecs", "RichText"]
        ),
        .testTarget(name: "RichTextTests", dependencies: ["RichText", "SystemSupport", "TestSupport"], resources: [.copy("Fixtures")]),
        /// The built binaries against a real Xvfb and real peers (xclip, xsel, python-xlib requestors).
        .testTarget(
            name: "EndToEndTests", dependencies: ["Pasteboard", "SystemSupport", "TestSupport", "XClient", "XTypes"],
            exclude: ["Peers"]
        ),

        // MARK: - Fuzzing

        /// What the harnesses share: the input as choices, invariants, the libFuzzer/replay entry point.
        .target(name: "FuzzSupport", path: "Fuzz/FuzzSupport"),
        /// libFuzzer harness for the RTF, HTML and flat-RTFD readers (docs/fuzzing.md); build with -sanitize=fuzzer.
        .executableTarget(name: "RichTextFuzz", dependencies: ["RichText", "FuzzSupport"], path: "Fuzz/RichTextFuzz"),
        /// libFuzzer harness for SelectionRequest answers, MULTIPLE, INCR send/receive, Latin-1 and the text targets of the conversion table (docs/fuzzing.md).
        .executableTarget(name: "SelectionFuzz", dependencies: ["PasteboardCore", "Selection", "XTypes", "FuzzSupport"], path: "Fuzz/SelectionFuzz"),
        /// libFuzzer harness for the image decoders (PNG, JPEG, GIF, BMP, TIFF, WebP by IMAGE_FUZZ_TARGET), through SystemImageCodec and BMPCodec.
        .executableTarget(name: "ImageFuzz", dependencies: ["ImageCodecs", "Images", "FuzzSupport"], path: "Fuzz/ImageFuzz"),
        /// libFuzzer harness for the control protocol: chunked framing, request/response decoding, encode round trips,
        /// and the remote socket's dispatcher (`RemoteAccess`).
        .executableTarget(name: "ControlFuzz", dependencies: ["ControlProtocol", "DaemonCore", "PasteboardCore", "SystemSupport", "FuzzSupport"],
                          path: "Fuzz/ControlFuzz"),
    ],
    swiftLanguageModes: [.v6]
)
