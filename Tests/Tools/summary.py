#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Prints `make test`'s last line, `N passed, M failed, K skipped`, from the xunit report and the skip log.

Parallel XCTest marks a skipped test as passed in its xunit report and prints nothing of it, so every skip
in the tests goes through TestSupport's `skip(_:)`, which also appends a line `Class.test<TAB>reason` to
the file named by PB_TEST_SKIP_LOG. Exits 1 when a test failed, when the report is missing or empty (the
tests did not run), or when the report and the log disagree."""
import sys
import xml.etree.ElementTree as ET

report, skip_log = sys.argv[1], sys.argv[2]
try:
    cases = ET.parse(report).getroot().iter("testcase")
    results = {}
    for case in cases:
        name = f'{case.get("classname", "").split(".")[-1]}.{case.get("name")}'
        results[name] = "failed" if case.find("failure") is not None or case.find("error") is not None else "passed"
except (OSError, ET.ParseError) as error:
    print(f"no test report ({error}): the tests did not run")
    print("0 passed, 1 failed, 0 skipped")
    sys.exit(1)

skipped = {}
try:
    with open(skip_log, encoding="utf-8") as log:
        for line in log:
            name, _, reason = line.rstrip("\n").partition("\t")
            skipped[name] = reason
except FileNotFoundError:
    pass

unknown = [name for name in skipped if name not in results]
for name, reason in sorted(skipped.items()):
    if results.get(name) == "passed":
        results[name] = "skipped"
    print(f"skipped {name}: {reason}")
for name in sorted(n for n, r in results.items() if r == "failed"):
    print(f"failed {name}")
counts = {kind: sum(1 for r in results.values() if r == kind) for kind in ("passed", "failed", "skipped")}
if not results:
    print("the report lists no tests")
    counts["failed"] += 1
if unknown:
    print(f"skips of tests the report does not list: {', '.join(unknown)}")
    counts["failed"] += len(unknown)
print(f'{counts["passed"]} passed, {counts["failed"]} failed, {counts["skipped"]} skipped')
sys.exit(1 if counts["failed"] else 0)
