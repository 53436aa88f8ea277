#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Checks that every target's dependencies in Package.swift are exactly the project modules its sources
import (STYLE.md: a layer imports only layers below it, and the manifest says which). Exit 1 with the
differences, 0 when they agree."""
import os
import re
import sys

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
manifest = open(os.path.join(root, "Package.swift"), encoding="utf-8").read()

targets = {}
for match in re.finditer(r'\.(target|testTarget|executableTarget|systemLibrary)\(\s*name:\s*"([^"]+)"(.*?)\)\s*,\s*(?=\n\s*(?:///|//|\.|\]))',
                         manifest, re.S):
    kind, name, rest = match.groups()
    deps = re.search(r'dependencies:\s*\[([^\]]*)\]', rest)
    path = re.search(r'path:\s*"([^"]+)"', rest)
    targets[name] = {
        "kind": kind,
        "deps": set(re.findall(r'"([^"]+)"', deps.group(1))) if deps else set(),
        "path": path.group(1) if path else ("Tests/" if kind == "testTarget" else "Sources/") + name,
    }

problems = []
for name, target in sorted(targets.items()):
    if target["kind"] == "systemLibrary":
        continue
    imported = set()
    directory = os.path.join(root, target["path"])
    for folder, _, files in os.walk(directory):
        for file in files:
            if file.endswith(".swift"):
                text = open(os.path.join(folder, file), encoding="utf-8").read()
                imported |= set(re.findall(r'^\s*(?:@testable\s+|@_exported\s+)?import\s+(\w+)', text, re.M))
            elif file.endswith((".c", ".h")):
                text = open(os.path.join(folder, file), encoding="utf-8").read()
                if re.search(r'#include\s*[<"]X11/', text):
                    imported.add("CX11")
    imported = {module for module in imported if module in targets and module != name}
    missing = imported - target["deps"]
    unused = target["deps"] - imported
    if missing:
        problems.append(f"{name} imports {', '.join(sorted(missing))} without declaring it")
    if unused:
        problems.append(f"{name} declares {', '.join(sorted(unused))} but does not import it")

declared = len(re.findall(r'\.(?:target|testTarget|executableTarget|systemLibrary)\(', manifest))
if len(targets) != declared:
    problems.append(f"read {len(targets)} of the {declared} targets it declares: this script's pattern needs updating")
for problem in problems:
    print("Package.swift: " + problem)
sys.exit(1 if problems else 0)
