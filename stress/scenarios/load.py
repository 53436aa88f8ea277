# SPDX-License-Identifier: Apache-2.0
"""load: a hundred requestors paste from pasteboardd while the clipboard changes every 100 ms.

Each requestor is stress/peers/pbreq.c (one C process each: a hundred Python requestors on two cores would
measure Python). It pastes alternately the big target (a body one chunk + 4 KiB long, so it always comes by
INCR, in two chunks) and UTF8_STRING (a 300-byte text), and checks every paste against the body regenerated
from its header (stresscontent.py), so a truncated paste or one mixing two copies is an error. Meanwhile a
copier runs `pb copy` with a new sequence number (both targets in one copy) every 100 ms, or as soon as the
previous copy returned when that takes longer.

pb copy hands the content to the daemon, which stays CLIPBOARD's owner throughout (it replaces what it
serves in one step of its loop): no request can arrive while nobody owns the clipboard, so the correct
number of refused pastes is zero, and a refusal counts as a failure. A paste whose content is older than the
previous paste of the same requestor would be a failure too (went_back).
"""
import json
import os
import signal
import subprocess
import sys
import threading
import time

from harness import PEERS, ScenarioFailed, scenario, wait_until

sys.path.insert(0, PEERS)
import stresscontent  # noqa: E402

REQUESTORS = 100
BIG_TYPE = "application/x-pbstress"
SMALL_BYTES = 300
WARMUP_SECONDS = 10
COPY_INTERVAL = 0.1
# RSS may end above its post-warm-up value by this much (allocator slack: arenas of the INCR chunks that a
# hundred concurrent transfers hold); a leak of one byte per paste would pass, one KiB per paste would not.
RSS_MARGIN_KIB = 8 * 1024
SLOWEST_COPY_SECONDS = 2.0


class Copier(threading.Thread):
    """Runs pb copy with a new sequence number every COPY_INTERVAL seconds until stopped."""

    def __init__(self, ctx, daemon, big_bytes, first_seq):
        super().__init__(daemon=True)
        self.ctx, self.daemon, self.big_bytes = ctx, daemon, big_bytes
        self.seq = first_seq
        self.last_seq = first_seq
        self.copies = 0
        self.failures = []
        self.slowest = 0.0
        self.stopping = threading.Event()

    def copy(self, seq):
        big = os.path.join(self.ctx.work, "big.bin")
        small = os.path.join(self.ctx.work, "small.txt")
        with open(big, "wb") as f:
            f.write(stresscontent.make(seq, "B", self.big_bytes))
        with open(small, "wb") as f:
            f.write(stresscontent.make(seq, "S", SMALL_BYTES))
        began = time.monotonic()
        try:
            result = self.daemon.pb("copy", "-t", f"{BIG_TYPE}={big}", "-t", f"text={small}", check=False,
                                    timeout=30)
        except subprocess.TimeoutExpired:
            result = None
        self.slowest = max(self.slowest, time.monotonic() - began)
        if result is None:
            self.failures.append("pb copy did not return within 30 s")
        elif result.returncode != 0:
            self.failures.append(result.stderr.decode(errors="replace").strip())
        else:
            self.copies += 1
            self.last_seq = seq

    def run(self):
        next_at = time.monotonic()
        while not self.stopping.is_set():
            self.seq += 1
            self.copy(self.seq)
            next_at += COPY_INTERVAL
            self.stopping.wait(max(0.0, next_at - time.monotonic()))

    def stop(self):
        self.stopping.set()
        self.join(60)


def run_requestors(ctx, pbreq, display, seconds):
    """Starts REQUESTORS pbreq load processes (nice 5) and returns their parsed results."""
    env = dict(os.environ, DISPLAY=display)
    processes = [ctx.start(["nice", "-n", "5", pbreq, "load", str(seconds), BIG_TYPE, "UTF8_STRING"], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(REQUESTORS)]
    results = []
    deadline = time.monotonic() + seconds + 60
    for process in processes:
        try:
            out, err = process.communicate(timeout=max(1.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            ctx.stop(process, signal.SIGKILL)
            raise ScenarioFailed("a requestor did not finish within its duration + 60 s")
        ctx.stop(process)
        if process.returncode != 0:
            raise ScenarioFailed(f"pbreq exited {process.returncode}: {err.decode(errors='replace')[-300:]}")
        results.append(json.loads(out.decode()))
    return results


def total(results, key):
    return sum(r[key] for r in results)


def quiet(daemon, what):
    """Waits until no transfer or snapshot is in flight; returns pb status."""
    return wait_until(lambda: (lambda s: s if s["transfers"] == "0" and s["snapshots"] == "0" else None)(
        daemon.status()), 15, interval=0.2, what=what)


@scenario("load", "100 C requestors paste 1 MiB+ (INCR) and small text while the clipboard changes every "
                  "100 ms: every paste byte-exact, memory and descriptors flat")
def load(ctx):
    pbreq = ctx.compile_peer("pbreq")
    xvfb = ctx.xvfb()
    daemon = ctx.daemon(xvfb.display)
    # The history is bounded so the disk holds 20 entries, not 200 MiB of them; the daemon still writes
    # clipboard.archive and one history entry (with fsync) per copy, as it does by default.
    daemon.config({"historyLength": 20})
    daemon.start()
    chunk = int(daemon.status()["incr-chunk-bytes"])
    big_bytes = chunk + 4096 - stresscontent.HEADER_BYTES  # the body: header + body is one chunk + 4 KiB
    ctx.figure(f"INCR chunk {chunk} bytes; big paste {big_bytes + stresscontent.HEADER_BYTES} bytes "
               f"(2 chunks), small paste {SMALL_BYTES + stresscontent.HEADER_BYTES} bytes")

    # Warm-up: the same load for a short while, so that allocator arenas and buffers reach their size.
    copier = Copier(ctx, daemon, big_bytes, first_seq=0)
    copier.copy(0)
    copier.start()
    warm = run_requestors(ctx, pbreq, xvfb.display, WARMUP_SECONDS)
    copier.stop()
    ctx.check(total(warm, "errors") == 0, f"warm-up: {total(warm, 'errors')} pastes failed: "
              + next((r["first_error"] for r in warm if r["errors"]), ""))
    quiet(daemon, "the warm-up's transfers to end")
    status0 = daemon.status()
    rss0, fds0 = daemon.rss_kib(), daemon.quiet_fd_count()
    ctx.figure(f"after a {WARMUP_SECONDS} s warm-up ({total(warm, 'big') + total(warm, 'small')} pastes): "
               f"RSS {rss0} KiB, {fds0} descriptors, clients {status0['clients']}")

    # The measured run.
    samples = []
    sampling = threading.Event()

    def sample():
        while not sampling.wait(1.0):
            try:
                samples.append(daemon.rss_kib())
            except (FileNotFoundError, ProcessLookupError):
                return

    sampler = threading.Thread(target=sample, daemon=True)
    copier = Copier(ctx, daemon, big_bytes, first_seq=copier.seq)
    began = time.monotonic()
    sampler.start()
    copier.start()
    results = run_requestors(ctx, pbreq, xvfb.display, ctx.duration)
    copier.stop()
    sampling.set()
    sampler.join(5)
    seconds = time.monotonic() - began
    ctx.check(daemon.alive(), "pasteboardd died under load: " + daemon.log_tail())

    big, small = total(results, "big"), total(results, "small")
    ctx.figure(f"{REQUESTORS} requestors for {ctx.duration:.0f} s: {big + small} pastes ({big} big, {small} small), "
               f"{total(results, 'bytes') / 1048576:.0f} MiB, {(big + small) / seconds:.0f} pastes/s, "
               f"{total(results, 'bytes') / 1048576 / seconds:.0f} MiB/s; {total(results, 'incr')} by INCR in "
               f"{total(results, 'chunks')} chunks")
    ctx.figure(f"errors {total(results, 'errors')}, refused {total(results, 'refused')}, older than the previous "
               f"paste {total(results, 'went_back')}; copies {copier.copies} (one every {COPY_INTERVAL * 1000:.0f} ms "
               f"at most, slowest pb copy {copier.slowest * 1000:.0f} ms, {len(copier.failures)} failed); each requestor "
               f"saw {min(r['seq_last'] - r['seq_first'] for r in results)}–"
               f"{max(r['seq_last'] - r['seq_first'] for r in results)} copies go by")
    errors = [r["first_error"] for r in results if r["errors"]]
    ctx.check(not errors, f"{total(results, 'errors')} pastes were wrong or missing, e.g. {errors[:3]}")
    ctx.check(total(results, "refused") == 0, f"{total(results, 'refused')} pastes refused while the daemon owned "
                                              "the clipboard throughout")
    ctx.check(total(results, "went_back") == 0, "a paste returned older content than the one before it")
    ctx.check(total(results, "incr") == big, f"only {total(results, 'incr')} of {big} big pastes came by INCR")
    ctx.check(all(r["big"] > 0 and r["small"] > 0 for r in results), "a requestor completed no paste of a kind")
    ctx.check(not copier.failures, f"pb copy failed {len(copier.failures)} times: {copier.failures[:2]}")
    # The copier runs pb copy back to back (every 100 ms at most): under this load one copy of 1 MiB may
    # take a few hundred ms, which nobody notices; seconds are noticed, and so is a clipboard that barely
    # changes during the run.
    ctx.check(copier.slowest <= SLOWEST_COPY_SECONDS,
              f"the slowest pb copy took {copier.slowest:.1f} s under load (at most {SLOWEST_COPY_SECONDS} s wanted)")
    ctx.check(copier.copies >= ctx.duration, f"only {copier.copies} copies in {ctx.duration:.0f} s (one a second "
                                             "at least wanted)")

    status = quiet(daemon, "transfers to end after the load")
    try:  # the last pb's connection may still be closing
        wait_until(lambda: daemon.quiet_fd_count(timeout=5) <= fds0, 5, interval=0.1, what="descriptors back to the warm-up's (a leak is one more)")
    except ScenarioFailed:
        pass
    rss1, hwm, fds1 = daemon.rss_kib(), daemon.hwm_kib(), daemon.fd_count()
    ctx.figure(f"RSS after warm-up {rss0} KiB, during the run {min(samples, default=0)}–{max(samples, default=0)} "
               f"KiB, at the end {rss1} KiB ({rss1 - rss0:+d} KiB), peak (VmHWM) {hwm} KiB; descriptors "
               f"{fds0} → {fds1}")
    ctx.figure(f"pb status at the end: transfers {status['transfers']}, snapshots {status['snapshots']}, "
               f"clients {status['clients']} (the status query itself), history {status['history']}")
    ctx.check(rss1 <= rss0 + RSS_MARGIN_KIB, f"RSS grew from {rss0} to {rss1} KiB (margin {RSS_MARGIN_KIB} KiB)")
    ctx.check(fds1 == fds0, f"descriptors {fds0} after warm-up, {fds1} at the end: {daemon.fd_targets()}")
    ctx.check(status["clients"] == status0["clients"], f"clients {status0['clients']} → {status['clients']}")

    # The daemon serves the newest copy, byte-exact, once the load is over.
    env = dict(os.environ, DISPLAY=xvfb.display)
    final = subprocess.run([pbreq, "paste", BIG_TYPE, "B"], env=env, capture_output=True, timeout=30)
    final = json.loads(final.stdout.decode())
    # The newest copy that pb confirmed, or a later one whose pb copy timed out but reached the daemon.
    ctx.check(final["ok"] and copier.last_seq <= final["seq"] <= copier.seq,
              f"the paste after the load got {final} (last confirmed copy {copier.last_seq}, last tried {copier.seq})")
