#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The committed Wayland glue is what protocols/wayland/generate.sh makes from the committed interface
# definitions (so neither drifts from the other). Exit 1 naming each file that differs.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$root/protocols/wayland/generate.sh" "$tmp"
status=0
for file in "$tmp"/generated/*; do
  relative=${file#"$tmp"/}
  if ! cmp -s "$file" "$root/Sources/CWaylandShims/$relative"; then
    echo "Sources/CWaylandShims/$relative is not what protocols/wayland/generate.sh makes: run make wayland-protocols" >&2
    status=1
  fi
done
exit $status
