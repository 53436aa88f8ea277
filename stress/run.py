#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""The reliability suite: load, faults and hostile peers against the real pasteboardd on private Xvfb
servers. Run it as `make stress` (builds the release binaries first) or directly:

    stress/run.py --bin DIR [--duration SECONDS] [--out FILE] [SCENARIO...]

Every scenario is bounded in time; the whole suite takes about 6 minutes with the default 60 s load. The
report goes to stdout and to stress/results/latest.md. Exit status 0 when every scenario passed.
"""
import argparse
import importlib
import os
import pkgutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import harness  # noqa: E402
import scenarios  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", required=True, help="directory with pasteboardd and pb")
    parser.add_argument("--duration", type=float, default=float(os.environ.get("PB_STRESS_SECONDS", 60)),
                        help="seconds of the load scenario (default 60, or $PB_STRESS_SECONDS)")
    parser.add_argument("--out", default=os.path.join(HERE, "results", "latest.md"),
                        help="where to write the markdown report ('' for nowhere)")
    parser.add_argument("--list", action="store_true", help="list the scenarios and exit")
    parser.add_argument("only", nargs="*", help="run just these scenarios")
    options = parser.parse_args()
    for module in sorted(m.name for m in pkgutil.iter_modules(scenarios.__path__)):
        importlib.import_module(f"scenarios.{module}")
    if options.list:
        for name, shows, _ in harness.SCENARIOS:
            print(f"{name}: {shows}")
        return 0
    for program in ("pasteboardd", "pb"):
        if not os.access(os.path.join(options.bin, program), os.X_OK):
            print(f"stress: no {program} in {options.bin}", file=sys.stderr)
            return 2
    return harness.run(os.path.abspath(options.bin), options.only, options.duration, options.out)


if __name__ == "__main__":
    sys.exit(main())
