#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""One pasteboard across two X displays, measured side by side with a paste on one display, in one run.

    bench/displays.py BIN_DIR [--reps N] [--small N] [--mib M]

Starts two private Xvfb servers (A and B) and pasteboardd serving both (`--display A --display B`). Each
measurement is the first paste of a fresh copy (a second paste on B is answered from what B fetched, at
same-display speed): xclip owns CLIPBOARD on A with a target named for that copy, and once B lists it, the
bench's requestor (bench/tools/requestor.c: one conversion, INCR handled, CLOCK_MONOTONIC in-process) reads
it on B — through pasteboardd, which fetches it from xclip on A — and then on A straight from xclip, the
anchor. Small: N copies of one line (the median of each, in µs). Bulk: M MiB of random bytes, REPS copies
(the median MiB/s). Xpra's clipboard sync is the anchor the issue names; it is reported n/a when xpra is not
installed (its Debian package pulls ~100 packages: not in deps-bench yet). Prints markdown.
"""
import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


class Bench:
    def __init__(self, bin_dir):
        self.bin = bin_dir
        self.work = tempfile.mkdtemp(prefix="pb-displays.")
        self.children = []
        self.requestor = os.path.join(self.work, "requestor")
        flags = subprocess.run(["pkg-config", "--cflags", "--libs", "x11"], capture_output=True, text=True, check=True).stdout.split()
        subprocess.run(["cc", "-O2", "-o", self.requestor, os.path.join(HERE, "tools", "requestor.c")] + flags, check=True)

    def start(self, argv, **kwargs):
        process = subprocess.Popen(argv, **kwargs)
        self.children.append(process)
        return process

    def stop(self, process):
        if process.poll() is None:
            os.kill(process.pid, signal.SIGTERM)
            try:
                process.wait(5)
            except subprocess.TimeoutExpired:
                os.kill(process.pid, signal.SIGKILL)
                process.wait()
        if process in self.children:
            self.children.remove(process)

    def close(self):
        for process in reversed(list(self.children)):
            self.stop(process)
        shutil.rmtree(self.work, ignore_errors=True)

    def xvfb(self):
        read, write = os.pipe()
        process = self.start(["Xvfb", "-displayfd", str(write), "-nolisten", "tcp", "-noreset"], pass_fds=(write,),
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(write)
        number = b""
        while not number.endswith(b"\n"):
            chunk = os.read(read, 16)
            if not chunk:
                raise SystemExit("Xvfb exited before reporting a display")
            number += chunk
        os.close(read)
        return ":" + number.decode().strip()

    def env(self, display):
        env = dict(os.environ, DISPLAY=display, XDG_RUNTIME_DIR=os.path.join(self.work, "run"),
                   XDG_STATE_HOME=os.path.join(self.work, "state"), XDG_CONFIG_HOME=os.path.join(self.work, "config"))
        for key in ("NOTIFY_SOCKET", "JOURNAL_STREAM"):
            env.pop(key, None)
        return env

    def daemon(self, displays):
        for sub in ("run", "state", "config"):
            os.makedirs(os.path.join(self.work, sub), mode=0o700, exist_ok=True)
        arguments = [os.path.join(self.bin, "pasteboardd")]
        for display in displays:
            arguments += ["--display", display]
        process = self.start(arguments, env=self.env(displays[0]), stderr=subprocess.DEVNULL)
        self.wait(lambda: subprocess.run([os.path.join(self.bin, "pb"), "displays"], env=self.env(displays[0]),
                                         capture_output=True).stdout.count(b"\tconnected") == len(displays), "the daemon")
        return process

    @staticmethod
    def wait(predicate, what, timeout=20):
        deadline = time.monotonic() + timeout
        while not predicate():
            if time.monotonic() > deadline:
                raise SystemExit(f"bench: timed out waiting for {what}")
            time.sleep(0.002)

    def lists(self, display, target):
        names = subprocess.run(["xclip", "-o", "-selection", "clipboard", "-t", "TARGETS"], env=self.env(display),
                               capture_output=True).stdout.decode(errors="replace").split()
        return target in names

    def paste(self, display, target):
        out = os.path.join(self.work, "pasted")
        result = subprocess.run([self.requestor, "bulk", target, out], env=self.env(display), capture_output=True, timeout=120)
        if result.returncode != 0:
            raise SystemExit(f"bench: the paste of {target} on {display} failed: {result.stderr.decode(errors='replace')}")
        figures = json.loads(result.stdout)
        with open(out, "rb") as f:
            figures["data"] = f.read()
        return figures

    def fresh_copy(self, display, target, data):
        owner = self.start(["xclip", "-quiet", "-i", "-selection", "clipboard", "-t", target], env=self.env(display),
                           stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        owner.stdin.write(data)
        owner.stdin.close()
        return owner


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("bin")
    parser.add_argument("--reps", type=int, default=int(os.environ.get("PB_BENCH_REPS", 3)))
    parser.add_argument("--small", type=int, default=30)
    parser.add_argument("--mib", type=int, default=int(os.environ.get("PB_BENCH_BULK_MIB", 64)))
    options = parser.parse_args()
    bench = Bench(options.bin)
    try:
        a, b = bench.xvfb(), bench.xvfb()
        bench.daemon([a, b])
        small = {"cross": [], "same": []}
        for n in range(options.small):
            target = f"application/x-bench-small-{n}"
            data = f"pasteboard benchmark, copy {n}: a short line of text\n".encode()
            owner = bench.fresh_copy(a, target, data)
            bench.wait(lambda: bench.lists(b, target), f"B to list copy {n}")
            cross = bench.paste(b, target)
            same = bench.paste(a, target)
            assert cross["data"] == data == same["data"], "the same bytes on both displays"
            small["cross"].append(cross["seconds"] * 1e6)
            small["same"].append(same["seconds"] * 1e6)
            bench.stop(owner)
        bulk = {"cross": [], "same": []}
        payload = os.urandom(options.mib << 20)
        for n in range(options.reps):
            target = f"application/x-bench-bulk-{n}"
            owner = bench.fresh_copy(a, target, payload)
            bench.wait(lambda: bench.lists(b, target), f"B to list bulk copy {n}", timeout=60)
            cross = bench.paste(b, target)
            same = bench.paste(a, target)
            assert cross["data"] == payload == same["data"], "the same bytes on both displays"
            bulk["cross"].append(cross["mib_per_s"])
            bulk["same"].append(same["mib_per_s"])
            bench.stop(owner)
    finally:
        bench.close()
    sc, ss = statistics.median(small["cross"]), statistics.median(small["same"])
    bc, bs = statistics.median(bulk["cross"]), statistics.median(bulk["same"])
    xpra = shutil.which("xpra")
    print("# One pasteboard across displays\n")
    print(f"Two Xvfb servers, pasteboardd serving both; the first paste of each fresh copy made by xclip on A, read by "
          f"bench/tools/requestor on B (through pasteboardd, which fetches it from xclip) and then on A (from xclip). "
          f"{options.small} small copies, {options.reps} copies of {options.mib} MiB; medians.\n")
    print("| row | across displays (B, through pasteboardd) | same display (A, from xclip) | ratio | aim |")
    print("|---|---|---|---|---|")
    print(f"| small paste, first of its copy | {sc:,.0f} µs | {ss:,.0f} µs | {sc / ss:.2f}× the time | ≤ 1.5× |")
    print(f"| {options.mib} MiB paste, first of its copy | {bc:,.0f} MiB/s | {bs:,.0f} MiB/s | {bc / bs:.2f}× the throughput | ≥ 0.8× |")
    print(f"| Xpra's clipboard sync (the anchor) | {'not measured yet' if xpra else 'n/a: xpra is not installed'} | | | faster than Xpra |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
