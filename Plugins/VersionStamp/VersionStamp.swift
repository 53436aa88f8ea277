// SPDX-License-Identifier: Apache-2.0
import Foundation
import PackagePlugin

/// Writes the version in the repository's `VERSION` file into a Swift source of the target it is applied to
/// (`PasteboardCore`): `let stampedVersion = "0.1.0"`, which `PasteboardVersion.string` is. The one place
/// the version is written is `VERSION`; the Makefile reads the same file for the .deb and the man pages.
///
/// The command is `/bin/sh` (no tool of ours to build first); it runs again only when `VERSION` changes, and
/// refuses a file that is not one line of a version (digits, letters, `.`, `+`, `~`, `-`), so nothing that
/// would not be a Swift string literal reaches the source.
@main
struct VersionStamp: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let version = context.package.directoryURL.appending(path: "VERSION")
        let output = context.pluginWorkDirectoryURL.appending(path: "StampedVersion.swift")
        let script = """
            set -e
            version=$(cat "$1")
            case "$version" in
              ""|*[!0-9A-Za-z.+~-]*) echo "$1: not a version: '$version'" >&2; exit 1 ;;
            esac
            printf '// Generated from VERSION by Plugins/VersionStamp: edit VERSION, not this file.\\n' > "$2.new"
            printf 'let stampedVersion = "%s"\\n' "$version" >> "$2.new"
            mv -f "$2.new" "$2"
            """
        return [.buildCommand(displayName: "Stamping the version from VERSION",
                              executable: URL(fileURLWithPath: "/bin/sh"),
                              arguments: ["-c", script, "sh", version.path, output.path],
                              inputFiles: [version], outputFiles: [output])]
    }
}
