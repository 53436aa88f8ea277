#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Checks that every source file the project wrote (Swift, C, headers, Python, shell) carries the SPDX line
`SPDX-License-Identifier: Apache-2.0` in its first three lines (after a #! or #compdef line, or Package.swift's
swift-tools-version). Generated files and other producers' fixtures are listed as exempt. Exit 1 naming each
file without it, 0 when all have it."""
import os
import subprocess
import sys

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXEMPT = {
    "Sources/RichText/CodePageTables.swift",  # generated (its header says how)
}
SUFFIXES = (".swift", ".c", ".h", ".py", ".sh")
files = subprocess.run(["git", "-C", root, "ls-files"], capture_output=True, text=True, check=True).stdout.split("\n")
missing = []
for path in files:
    if not path.endswith(SUFFIXES) or path in EXEMPT or "/Fixtures/" in path or path.startswith("Fuzz/corpus/"):
        continue
    full = os.path.join(root, path)
    if not os.path.isfile(full):
        continue
    with open(full, encoding="utf-8", errors="replace") as f:
        head = [f.readline() for _ in range(3)]
    if not any("SPDX-License-Identifier: Apache-2.0" in line for line in head):
        missing.append(path)
for path in missing:
    print(f"{path}: no SPDX-License-Identifier: Apache-2.0 line in its first three lines", file=sys.stderr)
sys.exit(1 if missing else 0)
