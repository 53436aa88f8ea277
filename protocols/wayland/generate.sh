#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Makes the Wayland client glue of Sources/CWaylandShims from this directory's interface definitions with
# wayland-scanner (Debian: libwayland-bin), into DIR (default: the source tree). The glue is committed, not made
# at build time: SwiftPM has no step that runs a tool for a C target, and committed glue builds without
# wayland-scanner installed. `make wayland-protocols` runs this; `make test` checks the committed files are
# what it makes (Tests/Tools/check-wayland-glue.sh).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/../../Sources/CWaylandShims}
mkdir -p "$out/generated"
for protocol in wlr-data-control-unstable-v1 ext-data-control-v1; do
  for kind in client-header private-code; do
    case $kind in
      client-header) file="$out/generated/$protocol-client-protocol.h" ;;
      private-code) file="$out/generated/$protocol-protocol.c" ;;
    esac
    wayland-scanner "$kind" "$here/$protocol.xml" "$file.scanned"
    { echo "// SPDX-License-Identifier: Apache-2.0"
      echo "// Made by protocols/wayland/generate.sh from protocols/wayland/$protocol.xml: do not edit."
      cat "$file.scanned"; } >"$file"
    rm "$file.scanned"
  done
done
