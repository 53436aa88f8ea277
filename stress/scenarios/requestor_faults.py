# SPDX-License-Identifier: Apache-2.0
"""requestor_faults: requestors that die, stall, or send garbage to pasteboardd while it serves CLIPBOARD.

The clipboard holds a stress content (stresscontent.py): a 1 MiB + 4 KiB binary target that always goes by
INCR and a 300-byte text. After each fault the scenario checks what a user would notice: the daemon is alive
and serves a byte-exact paste of both targets (pbreq), `pb status` shows no transfer in flight, the daemon's
descriptors are back to their baseline, and the log has the one line the fault deserves (never content).
transferTimeoutMs is lowered to 1000 so that stalled transfers time out quickly.
"""
import json
import os
import select
import signal
import subprocess
import sys
import time

from harness import PEERS, PYTHON, ScenarioFailed, scenario, wait_until

sys.path.insert(0, PEERS)
import stresscontent  # noqa: E402

BIG_TYPE = "application/x-pbstress"
TRANSFER_TIMEOUT_MS = 1000
MULTIPLE_CAP = 4096  # SelectionResponder.maximumMultiplePairs
RANDOM_SEED, RANDOM_COUNT = 20261130, 5000


class Fixture:
    def __init__(self, ctx):
        self.ctx = ctx
        self.pbreq = ctx.compile_peer("pbreq")
        self.xvfb = ctx.xvfb()
        self.env = dict(os.environ, DISPLAY=self.xvfb.display)
        self.daemon = ctx.daemon(self.xvfb.display)
        self.daemon.config({"transferTimeoutMs": TRANSFER_TIMEOUT_MS})
        self.daemon.start()
        chunk = int(self.daemon.status()["incr-chunk-bytes"])
        self.big_bytes = chunk + 4096 - stresscontent.HEADER_BYTES
        self.seq = 0
        self.copy()
        self.paste_ok("baseline")
        self.fds = self.daemon.quiet_fd_count()

    def copy(self):
        self.seq += 1
        big, small = os.path.join(self.ctx.work, "big.bin"), os.path.join(self.ctx.work, "small.txt")
        with open(big, "wb") as f:
            f.write(stresscontent.make(self.seq, "B", self.big_bytes))
        with open(small, "wb") as f:
            f.write(stresscontent.make(self.seq, "S", 300))
        self.daemon.pb("copy", "-t", f"{BIG_TYPE}={big}", "-t", f"text={small}")

    def paste_ok(self, label):
        """Both targets pasted byte-exact with the current sequence number."""
        for target, kind in ((BIG_TYPE, "B"), ("UTF8_STRING", "S")):
            result = subprocess.run([self.pbreq, "paste", target, kind], env=self.env, capture_output=True,
                                    timeout=30)
            got = json.loads(result.stdout.decode() or "{}")
            self.ctx.check(got.get("ok") and got.get("seq") == self.seq,
                           f"{label}: the paste of {target} afterwards got {got or result.stderr[-200:]}")

    def start_peer(self, *args):
        """Starts xrequestor.py with a pipe on stdin (closing it ends a peer that holds); returns the
        process and its first JSON line."""
        process = self.ctx.start([PYTHON, os.path.join(PEERS, "xrequestor.py"), *args], env=self.env,
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        ready, _, _ = select.select([process.stdout], [], [], 20)
        line = process.stdout.readline() if ready else b""
        if not line:
            self.ctx.stop(process, signal.SIGKILL)
            raise ScenarioFailed(f"xrequestor {' '.join(args)} printed nothing: "
                                 + process.stderr.read().decode(errors="replace")[-400:])
        return process, json.loads(line)

    def release(self, process):
        process.stdin.close()
        self.ctx.stop(process)

    def run_peer(self, *args, timeout=120):
        return self.ctx.run_peer(self.xvfb.display, "xrequestor.py", *args, timeout=timeout)

    def status(self):
        return self.daemon.status()

    def settled(self, label, within):
        """Transfers back to 0 within `within` seconds, descriptors back to the baseline, a correct paste."""
        self.ctx.check(self.daemon.alive(), f"{label}: pasteboardd died: " + self.daemon.log_tail())
        if not self.daemon.alive():
            raise ScenarioFailed(f"{label}: pasteboardd is gone")
        began = time.monotonic()
        try:
            wait_until(lambda: self.status()["transfers"] == "0", within, interval=0.1, what="transfers to end")
        except ScenarioFailed:
            self.ctx.check(False, f"{label}: transfers still {self.status()['transfers']} after {within} s")
        waited = time.monotonic() - began
        self.paste_ok(label)
        # A leak is a descriptor more than the baseline; fewer (a transient one gone) is not.
        try:
            wait_until(lambda: self.daemon.quiet_fd_count(timeout=5) <= self.fds, 5, interval=0.1, what="descriptors")
        except ScenarioFailed:
            self.ctx.check(False, f"{label}: {self.daemon.fd_count()} descriptors, baseline {self.fds}: "
                                  + ", ".join(self.daemon.fd_targets()))
        return waited

    def lines(self, mark, text):
        """The log lines since `mark` that contain `text`; also checks that no line carries content."""
        since = self.daemon.log_since(mark)
        self.ctx.check(not any("PBSTRESS" in line or "PB_STRESS" in line for line in since),
                       "the log holds clipboard content or the requestor's names")
        return [line for line in since if text in line]

    def one_line(self, mark, text, label):
        """Checks the log has exactly one line with `text` since `mark`, or none when an earlier such line
        said that further occurrences are summarised (the daemon's rate limit: a few lines per kind)."""
        found = self.lines(mark, text)
        earlier = [line for line in self.daemon.log_text()[:mark].splitlines() if text in line]
        limited = any("further occurrences summarised" in line for line in earlier)
        self.ctx.check(len(found) == 1 or (limited and not found),
                       f"{label}: expected one log line with '{text}', got {found[:4]}")
        return found[0] if found else "(rate-limited)"


@scenario("requestor_faults", "requestors that die or stall mid-INCR, send huge or malformed MULTIPLE, or "
                              "seeded random garbage: the daemon keeps serving byte-exact, drops the "
                              "transfer, logs one line")
def requestor_faults(ctx):
    f = Fixture(ctx)
    ctx.figure(f"baseline: {f.fds} descriptors; INCR paste {f.big_bytes + stresscontent.HEADER_BYTES} bytes; "
               f"transferTimeoutMs {TRANSFER_TIMEOUT_MS}")

    # (a) A requestor killed with SIGKILL after the first chunk: its window dies with its connection.
    mark = f.daemon.mark_log()
    process, first = f.start_peer("hold-mid-incr", BIG_TYPE)
    ctx.check(f.status()["transfers"] == "1", "the INCR transfer is not in flight before the kill")
    f.ctx.stop(process, signal.SIGKILL)
    waited = f.settled("killed mid-INCR", 3)
    line = f.one_line(mark, "dropped an INCR transfer", "killed mid-INCR")
    ctx.figure(f"killed with SIGKILL after a {first['chunk']}-byte chunk: transfer gone in {waited:.2f} s; "
               f"log: `{line}`")

    # (a) A requestor that destroys its window mid-transfer and keeps its connection.
    mark = f.daemon.mark_log()
    process, first = f.start_peer("destroy-mid-incr", BIG_TYPE)
    waited = f.settled("window destroyed mid-INCR", 3)
    line = f.one_line(mark, "dropped an INCR transfer", "window destroyed mid-INCR")
    f.release(process)
    ctx.figure(f"window destroyed after the first chunk: transfer gone in {waited:.2f} s; log: `{line}`")

    # (b) Requestors that never delete the property: the transfer times out after transferTimeoutMs.
    for where in ("chunk", "header"):
        mark = f.daemon.mark_log()
        process, first = f.start_peer("stall-incr", BIG_TYPE, where)
        ctx.check(f.status()["transfers"] == "1", f"stalled at the {where}: no transfer in flight")
        waited = f.settled(f"stalled at the {where}", TRANSFER_TIMEOUT_MS / 1000 + 3)
        line = f.one_line(mark, "dropped an INCR transfer", f"stalled at the {where}")
        f.release(process)
        ctx.check(waited >= TRANSFER_TIMEOUT_MS / 1000 - 0.3, f"stalled at the {where}: dropped after {waited:.2f} s, "
                                                               f"before the {TRANSFER_TIMEOUT_MS} ms timeout")
        ctx.figure(f"never deletes the {where}: dropped after {waited:.2f} s; log: `{line}`")

    # (c) MULTIPLE over the cap is refused as a whole; at the cap it works.
    mark = f.daemon.mark_log()
    over = f.run_peer("multiple", "10000", "UTF8_STRING")[0]
    ctx.check(over["notified"] and not over["property"] and over["filled"] == 0 and not over["extra_notifies"],
              f"MULTIPLE with 10000 pairs: {over}")
    line = f.one_line(mark, "over the cap", "MULTIPLE over the cap")
    f.settled("MULTIPLE over the cap", 3)
    ctx.figure(f"MULTIPLE with 10000 pairs: refused as a whole in {over['seconds']} s, nothing written; log: `{line}`")
    mark = f.daemon.mark_log()
    at = f.run_peer("multiple", str(MULTIPLE_CAP), "UTF8_STRING")[0]
    ctx.check(at["notified"] and at["property"] and at["filled"] == 64 and not at["bad"] and at["pairs_refused"] == 0
              and not at["extra_notifies"], f"MULTIPLE with {MULTIPLE_CAP} pairs: {at}")
    ctx.check(not f.lines(mark, "MULTIPLE"), "a MULTIPLE at the cap was logged as a refusal")
    f.settled("MULTIPLE at the cap", 3)
    ctx.figure(f"MULTIPLE with {MULTIPLE_CAP} pairs (the cap): served in {at['seconds']} s, one SelectionNotify, "
               f"all 64 properties byte-exact")

    # (d) Malformed MULTIPLE properties: refused with one SelectionNotify; a wrong type with format 32
    # is read as the pair list (as GTK and Qt owners do), so that request is served.
    outcomes, example = [], None
    for kind in ("format8", "format16", "odd", "none-property", "missing", "wrong-type"):
        mark = f.daemon.mark_log()
        got = f.run_peer("multiple-bad", kind, "UTF8_STRING")[0]
        served = kind == "wrong-type"
        ctx.check(got["notified"] and not got["extra_notifies"], f"MULTIPLE {kind}: {got}")
        if served:
            ctx.check(got["property"] and got["pair_served"] == "ok", f"MULTIPLE {kind}: not served: {got}")
        else:
            ctx.check(not got["property"] and got["pair_served"] is None, f"MULTIPLE {kind}: not refused: {got}")
            line = f.one_line(mark, "refused a MULTIPLE request", f"MULTIPLE {kind}")
            example = example or line
        outcomes.append(f"{kind} {'served' if got['property'] else 'refused'}")
        f.settled(f"MULTIPLE {kind}", 3)
    ctx.figure("malformed MULTIPLE: " + ", ".join(outcomes) + f"; one SelectionNotify each; log: `{example}`")

    # (e) Seeded random requests interleaved with pastes that must be byte-exact.
    mark = f.daemon.mark_log()
    began = time.monotonic()
    rnd = f.run_peer("random", str(RANDOM_SEED), str(RANDOM_COUNT), "UTF8_STRING", BIG_TYPE, timeout=150)[0]
    seconds = time.monotonic() - began
    waited = f.settled("random requests", TRANSFER_TIMEOUT_MS / 1000 + 3)
    logged = f.daemon.log_since(mark)
    f.lines(mark, "")
    ctx.check(rnd["pastes"] > 0 and rnd["bad_pastes"] == 0, f"random: {rnd['bad_pastes']} of {rnd['pastes']} pastes "
                                                           f"wrong: {rnd['first_bad']}")
    ctx.check(len(logged) <= 60, f"random: {len(logged)} log lines (rate limiting should keep it to a few dozen)")
    ctx.check(any("X error" in line for line in logged), "random: no X error was logged (windows destroyed "
                                                         "before the reply should cause BadWindow)")
    ctx.figure(f"seed {RANDOM_SEED}: {rnd['requests']} random requests in {seconds:.1f} s ({rnd['multiple']} MULTIPLE, "
               f"{rnd['destroyed_windows']} to windows destroyed at once, {rnd['bogus_windows']} to windows that never "
               f"existed), {rnd['pastes']} interleaved pastes ({rnd['incr_pastes']} by INCR) all byte-exact; transfers "
               f"0 after {waited:.2f} s; {len(logged)} log lines, e.g. `{next((l for l in logged if 'X error' in l), '')}`")
    ctx.check(f.daemon.alive(), "pasteboardd died")
