# SPDX-License-Identifier: Apache-2.0
"""What the cross-endpoint benchmarks share (bench/displays.py, bench/peers.py): the C requestor compiled once,
pastes through it with its figures, fresh xclip copies, waiting, and cleaning up. A subclass says how each display
is set up (`env`) and how pasteboardd is started."""
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
    def wait(predicate, what, timeout=20):
        deadline = time.monotonic() + timeout
        while not predicate():
            if time.monotonic() > deadline:
                raise SystemExit(f"bench: timed out waiting for {what}")
            time.sleep(0.002)

    def paste(self, display, target, check=True, figures=False):
        """One conversion of `target` on `display`: its bytes (nil when refused, unless `check`), or with `figures`
        the requestor's figures with the bytes under "data"."""
        out = os.path.join(self.work, "pasted")
        result = subprocess.run([self.requestor, "bulk", target, out], env=self.env(display), capture_output=True, timeout=120)
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
