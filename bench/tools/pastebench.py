# SPDX-License-Identifier: Apache-2.0
"""What the cross-endpoint benchmarks share (bench/displays.py, bench/peers.py): the C requestor compiled once,
pastes through it with its figures, fresh xclip copies, waiting, and cleaning up. A subclass says how each display
is set up (`env`) and how pasteboardd is started."""
import argparse
import json
import os
import shutil
import subprocess
import tempfile
import time

from children import Children

TOOLS = os.path.dirname(os.path.abspath(__file__))


class PasteBench(Children):
    def __init__(self, bin_dir, prefix):
        super().__init__()
        self.bin = bin_dir
        self.work = tempfile.mkdtemp(prefix=prefix)
        self.requestor = os.path.join(self.work, "requestor")
        flags = subprocess.run(["pkg-config", "--cflags", "--libs", "x11"], capture_output=True, text=True, check=True).stdout.split()
        subprocess.run(["cc", "-O2", "-o", self.requestor, os.path.join(TOOLS, "requestor.c")] + flags, check=True)

    def env(self, display):
        raise NotImplementedError

    def close(self):
        self.stop_all()
        if not os.environ.get("PB_BENCH_KEEP"):
            shutil.rmtree(self.work, ignore_errors=True)

    @staticmethod
    def wait(predicate, what, timeout=20, pause=0.002):
        deadline = time.monotonic() + timeout
        while not predicate():
            if time.monotonic() > deadline:
                raise SystemExit(f"bench: timed out waiting for {what}")
            time.sleep(pause)

    def paste(self, display, target, check=True, figures=False, targets_first=False):
        """One conversion of `target` on `display`: its bytes (nil when refused, unless `check`), or with `figures`
        the requestor's figures with the bytes under "data". With `targets_first`, TARGETS is asked first, as
        toolkits do (Qt, Chromium, Firefox), and the figures time both."""
        out = os.path.join(self.work, "pasted")
        mode = "targets-bulk" if targets_first else "bulk"
        result = subprocess.run([self.requestor, mode, target, out], env=self.env(display), capture_output=True, timeout=120)
        if result.returncode != 0:
            if check:
                raise SystemExit(f"bench: the paste of {target} on {display} failed: {result.stderr.decode(errors='replace')}")
            return None
        measured = json.loads(result.stdout)
        with open(out, "rb") as f:
            measured["data"] = f.read()
        return measured if figures else measured["data"]

    def fresh_copy(self, display, target, data):
        """xclip owning CLIPBOARD on `display` with `data` as `target`, until stopped."""
        owner = self.start(["xclip", "-quiet", "-i", "-selection", "clipboard", "-t", target], env=self.env(display),
                           stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        owner.stdin.write(data)
        owner.stdin.close()
        return owner

    def measure(self, origin, reader, tag, payload, small_runs, bulk_runs, anchor=True, timeout=60, pause=0.001, spacing=0,
                targets_first=False):
        """The first paste of fresh copies on `origin` read on `reader` — and on `origin` too, the anchor, unless not
        `anchor` — and the time from the copy to the first paste on `reader` that gives its bytes: `small_runs` copies
        of one line (µs), `bulk_runs` of `payload` (MiB/s). Before each copy a small marker copy is waited for on
        `reader`, so a paste that gives the new bytes is the new copy's first; a copy (or its marker) not served on
        `reader` within `timeout` seconds ends the measurement (SystemExit); `pause` seconds pass between pastes on
        `reader` that did not give the awaited bytes, and a copy (its marker first) starts at least `spacing` seconds
        after the previous one did (the wait is not measured); with `targets_first` each measured paste (on `reader` and
        the anchor) asks TARGETS first (`paste`). Returns (small, bulk), each a dict of lists: "cross", "same",
        "available" (ms)."""
        small, bulk = {"cross": [], "same": [], "available": []}, {"cross": [], "same": [], "available": []}
        for figures, runs, size, unit in ((small, small_runs, 0, "seconds"), (bulk, bulk_runs, len(payload), "mib_per_s")):
            target = "UTF8_STRING" if size == 0 else "application/octet-stream"
            for n in range(runs):
                time.sleep(max(0, spacing - (time.monotonic() - cycle)) if n else 0)
                cycle = time.monotonic()
                marker = f"marker {tag} {unit} {n}".encode()
                owner = self.fresh_copy(origin, "UTF8_STRING", marker)
                self.wait(lambda: self.paste(reader, "UTF8_STRING", check=False) == marker, f"the marker on {reader}",
                          timeout=timeout, pause=pause)
                self.stop(owner)
                data = (f"pasteboard benchmark {tag}, copy {n}: a short line of text\n".encode() if size == 0
                        else bytes([n]) + payload[1:])
                began = time.monotonic()
                owner = self.fresh_copy(origin, target, data)
                last = None
                while True:
                    cross = self.paste(reader, target, check=False, figures=True, targets_first=targets_first)
                    if cross and cross["data"] == data:
                        break
                    last = cross or last
                    if time.monotonic() - began > timeout:
                        got = ("no paste gave any bytes" if not last else
                               f"its last paste gave the copy's first {len(last['data']):,} bytes only" if data.startswith(last["data"]) else
                               f"its last paste gave {len(last['data']):,} other bytes")
                        raise SystemExit(f"bench: {reader} did not serve {tag}'s {'small' if size == 0 else f'{size:,}-byte'} copy {n} "
                                         f"within {timeout} s ({got})")
                    time.sleep(pause)
                figures["available"].append((time.monotonic() - began) * 1e3)
                figures["cross"].append(cross[unit] * (1e6 if unit == "seconds" else 1))
                if anchor:
                    same = self.paste(origin, target, figures=True, targets_first=targets_first)
                    assert same["data"] == data
                    figures["same"].append(same[unit] * (1e6 if unit == "seconds" else 1))
                self.stop(owner)
        return small, bulk


def options():
    """The cross-endpoint benchmarks' command line: BIN_DIR [--reps N] [--small N] [--mib M]."""
    parser = argparse.ArgumentParser()
    parser.add_argument("bin")
    parser.add_argument("--reps", type=int, default=int(os.environ.get("PB_BENCH_REPS", 3)))
    parser.add_argument("--small", type=int, default=30)
    parser.add_argument("--mib", type=int, default=int(os.environ.get("PB_BENCH_BULK_MIB", 64)))
    return parser.parse_args()
