// SPDX-License-Identifier: Apache-2.0
/// The version of pasteboard's programs and library: the repository's `VERSION` file, stamped into the build by
/// the `VersionStamp` plugin (Package.swift), the same file the Makefile puts in the .deb and the man pages.
public enum PasteboardVersion {
    public static let string = stampedVersion
}
