// swift-tools-version:6.0
// SPDX-License-Identifier: Apache-2.0
import PackageDescription

// The example programs of docs/library.md, as a program of yours would be built: a package of its own that
// depends on pasteboard by path (here the checkout this directory is in; yours would name where you cloned it)
// and uses its `Pasteboard` product. The tests build this package (ExamplesTests) and run its programs
// against pasteboardd, xclip and GTK, so what docs/library.md shows stays true.
//
//   swift build --package-path docs/examples
//   .build/debug/CopyRich   (in docs/examples; pasteboardd running on $DISPLAY)
let package = Package(
    name: "pasteboard-examples",
    dependencies: [
        .package(name: "pasteboard", path: "../.."),
    ],
    targets: [
        /// One write of plain text, HTML and RTF (one change); who copied next, and what its text is.
        .executableTarget(name: "CopyRich", dependencies: [.product(name: "Pasteboard", package: "pasteboard")],
                          path: "CopyRich"),
        /// A lazy provider: bytes made in this process when a reader first asks.
        .executableTarget(name: "ProvideLazily", dependencies: [.product(name: "Pasteboard", package: "pasteboard")],
                          path: "ProvideLazily"),
        /// A password manager's copy: sensitive, local-only, expiring; who read it.
        .executableTarget(name: "CopyPassword", dependencies: [.product(name: "Pasteboard", package: "pasteboard")],
                          path: "CopyPassword"),
        /// The typed accessors on a pasteboard of its own, then on what another application copies.
        .executableTarget(name: "TypedAccessors", dependencies: [.product(name: "Pasteboard", package: "pasteboard")],
                          path: "TypedAccessors"),
    ]
)
