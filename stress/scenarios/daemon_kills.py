# SPDX-License-Identifier: Apache-2.0
"""pasteboardd killed with SIGKILL while it saves content and while it sends an INCR transfer.

What is persisted (docs/architecture.md, ClipboardManager.record): after answering the copying client,
the daemon writes a history entry and the kept clipboard: a small copy (an archive of at most 16 KiB) as one frame
appended to `history/journal` (fdatasync), which also says it is the kept clipboard; a larger one as
`history/<id>.archive` with AtomicFile (temp file, fsync, rename, fsync of the directory), `clipboard.archive` a
hard link to it, then the journal's frame; `counts` is written before the client is answered. A kill lands in one
of those writes when it comes a few milliseconds after `pb copy` returns, or while a copy is in flight. Rounds
alternate between the two: a small copy and a 1–6 MiB one.
"""
import json
import os
import signal
import statistics
import subprocess
import threading
import time
import zlib

from harness import PYTHON, ScenarioFailed, scenario, wait_until

SECONDS = 35          # the kill loop's time budget
MIN_ITERATIONS = 25
MAX_ITERATIONS = 120
HISTORY_LENGTH = 8


def make_content(seq, size):
    """`size` bytes of ASCII text that name their sequence number and size."""
    header = f"PBKILL {seq:06d} {size:010d}\n".encode()
    body = os.urandom((size - len(header) + 1) // 2).hex().encode()[:size - len(header)]
    return header + body


def state_dir(daemon):
    return os.path.join(daemon.home, "state", "pasteboard")


def temporary_files(daemon):
    """AtomicFile's temp files (`.NAME.tmp-PID-N`) anywhere under the state directory."""
    found = []
    for directory, _, files in os.walk(state_dir(daemon)):
        found += [os.path.join(directory, f) for f in files if f.startswith(".") and ".tmp-" in f]
    return found


def persisted_count(daemon):
    try:
        with open(os.path.join(state_dir(daemon), "counts")) as f:
            for line in f:
                name, _, value = line.strip().partition("\t")
                if name == "CLIPBOARD":
                    return int(value)
    except FileNotFoundError:
        pass
    return 0



def history(daemon):
    """`pb history` as (index, size) pairs, newest first."""
    entries = []
    for line in daemon.pb("history").stdout.decode().splitlines():
        fields = line.split("\t")
        entries.append((int(fields[0]), int(fields[2].split()[0])))
    return entries


@scenario("daemon_kills", "SIGKILL while saving or during an INCR send: restart restores old or new content whole, "
                          "counts never go back, no temp files pile up; an INCR requestor sees the owner go")
def daemon_kills(ctx):
    xvfb = ctx.xvfb()
    daemon = ctx.daemon(xvfb.display)
    daemon.config({"historyLength": HISTORY_LENGTH})
    ready_times = []

    def restart():
        began = time.monotonic()
        daemon.start()
        ready_times.append(time.monotonic() - began)

    restart()
    contents = {}           # crc32 -> seq, every content ever copied
    seq = 0
    first = make_content(seq, 1 << 20)
    contents[zlib.crc32(first)] = seq
    daemon.pb("copy", input=first)
    wait_until(lambda: history(daemon), 10, what="the first copy in the history")
    previous = first        # what the clipboard held (restored, or written and waited for) before this round
    highest_count = daemon.count()

    iterations = restored_new = restored_old = inflight_failed = mid_write = small_rounds = small_old = 0
    history_checked = 0
    leftover_max = 0
    began = time.monotonic()
    while iterations < MAX_ITERATIONS and (iterations < MIN_ITERATIONS or time.monotonic() - began < SECONDS):
        seq += 1
        if seq % 2:
            size = 40 + seq * 997 % 12000                           # a frame of the journal
            small_rounds += 1
        else:
            size = (1 << 20) * (1 + seq % 6) + seq * 4099 % 65536  # 1 to 6 MiB: a file of its own
        new = make_content(seq, size)
        contents[zlib.crc32(new)] = seq
        in_flight = seq % 3 == 0
        # 0 to 5 ms mostly; every fourth round 5 to 40 ms, when the save is further on or done.
        delay = (seq * 7 % 11) / 2000.0 if seq % 4 else 0.005 + (seq * 13 % 36) / 1000.0
        acknowledged = None
        if in_flight:
            # Kill while pb copy is sending or the daemon is taking the content.
            copier = subprocess.Popen([ctx.bin("pb"), "copy"], env=daemon.env, stdin=subprocess.PIPE,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            def feed():
                try:
                    copier.stdin.write(new)
                    copier.stdin.close()
                except OSError:
                    pass   # pb copy gave up when the daemon died
            writer = threading.Thread(target=feed, daemon=True)
            writer.start()
            time.sleep(0.005 + delay * 4)
            os.kill(daemon.pid, signal.SIGKILL)
            writer.join(10)
            try:
                acknowledged = copier.wait(10) == 0
            except subprocess.TimeoutExpired:
                copier.kill()
                copier.wait()
                raise ScenarioFailed("pb copy hung after the daemon was killed")
            if not acknowledged:
                inflight_failed += 1
        else:
            daemon.pb("copy", input=new)
            acknowledged = True
            deadline = time.monotonic() + delay
            while time.monotonic() < deadline:
                pass
            os.kill(daemon.pid, signal.SIGKILL)
        daemon.wait_exit(10)
        if temporary_files(daemon):
            mid_write += 1
        on_disk = persisted_count(daemon)
        if acknowledged:
            # Counts are saved ahead of what is published (a lease), so the file already covers this copy.
            ctx.check(on_disk > highest_count, f"round {seq}: an acknowledged copy is not covered by the counts "
                                               f"file ({on_disk}, count before the copy {highest_count})")
        ctx.check(on_disk >= highest_count, f"round {seq}: the counts file went back to {on_disk} from {highest_count}")
        restart()
        iterations += 1

        pasted = daemon.pb("paste", check=False).stdout
        if pasted == new:
            restored_new += 1
            previous = new
        elif pasted == previous:
            restored_old += 1
            small_old += seq % 2
        else:
            which = contents.get(zlib.crc32(pasted))
            ctx.check(False, f"round {seq}: the clipboard holds {len(pasted)} bytes that are neither the previous "
                             f"nor the new content (a copy of round {which})" if which is not None else
                             f"round {seq}: the clipboard holds {len(pasted)} bytes that were never copied (torn)")
            previous = pasted
        now_count = daemon.count()
        ctx.check(now_count >= highest_count, f"round {seq}: changeCount went back from {highest_count} to {now_count}")
        if acknowledged:
            ctx.check(now_count > highest_count, f"round {seq}: an acknowledged copy is not counted after the restart "
                                                 f"({now_count})")
        highest_count = max(highest_count, now_count)

        entries = history(daemon)
        ctx.check(0 < len(entries) <= HISTORY_LENGTH, f"round {seq}: {len(entries)} history entries")
        # Every entry the history lists can be read back whole (all of them every fifth round: it costs).
        for index, size_listed in entries if seq % 5 == 0 else entries[:1]:
            shown = daemon.pb("history", "show", str(index), check=False)
            ok = shown.returncode == 0 and zlib.crc32(shown.stdout) in contents and len(shown.stdout) == size_listed
            ctx.check(ok, f"round {seq}: history entry {index} is unreadable or torn ({len(shown.stdout)} bytes, "
                          f"listed {size_listed})")
            history_checked += 1
        leftovers = temporary_files(daemon)
        leftover_max = max(leftover_max, len(leftovers))
        ctx.check(not leftovers, f"round {seq}: {len(leftovers)} temp files left in the state directory "
                                       f"after the restart: {', '.join(os.path.basename(p) for p in leftovers[:4])}")
    ctx.figure(f"save kills: {iterations} SIGKILLs ({small_rounds} of copies of 40 B to 12 KiB, kept in the history's journal, the "
               f"others of 1–6 MiB copies; every third while `pb copy` was in flight, "
               f"the others 0–5 ms (every fourth 5–40 ms) after it returned), {mid_write} of them left a save half-written")
    ctx.figure(f"restores verified: {iterations} (new content {restored_new}, previous content {restored_old} — {small_old} of "
               f"them after a small copy, killed before its frame was on disk —, "
               f"torn 0 allowed); {inflight_failed} in-flight copies were not acknowledged; "
               f"{history_checked} history entries read back whole; changeCount never went back (last {highest_count})")
    ctx.figure(f"temp files in the state directory after a restart: at most {leftover_max}")
    ctx.figure(f"time to READY=1 after a restart: median {statistics.median(ready_times) * 1000:.0f} ms, "
               f"max {max(ready_times) * 1000:.0f} ms ({len(ready_times)} starts)")

    incr_kills(ctx, xvfb, daemon)


def incr_kills(ctx, xvfb, daemon):
    """SIGKILL while a requestor is in the middle of an INCR transfer from the daemon."""
    chunk = int(daemon.status()["incr-chunk-bytes"])
    rounds = 4
    notice_ms = []
    for round_ in range(rounds):
        content = make_content(1000 + round_, 4 * chunk + 12345 + round_)   # INCR, and persisted
        daemon.pb("copy", input=content)
        wait_until(lambda: history(daemon) and daemon.pb("history", "show", "0").stdout == content, 10,
                   what="the copy to be saved")
        requestor = ctx.start([PYTHON, ctx.peer("kill_incr_requestor.py"), "8"],
                              env=dict(os.environ, DISPLAY=xvfb.display), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE)
        lines = []
        line = requestor.stdout.readline()
        first = json.loads(line) if line else {}
        ctx.check(first.get("event") == "first-chunk" and first.get("bytes", 0) > 0,
                  f"INCR round {round_}: the requestor did not get a first chunk: {line!r} "
                  f"{requestor.stderr.read().decode(errors='replace')[-300:] if not line else ''}")
        ctx.check(daemon.status().get("transfers") == "1", f"INCR round {round_}: the daemon has no transfer running")
        killed_at = time.monotonic()
        os.kill(daemon.pid, signal.SIGKILL)
        daemon.wait_exit(10)
        try:
            out, err = requestor.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            ctx.stop(requestor, signal.SIGKILL)
            raise ScenarioFailed("the INCR requestor hung after the owner was killed")
        ctx.stop(requestor)
        lines = [json.loads(x) for x in out.decode().splitlines() if x.strip()]
        end = lines[-1] if lines else {}
        ctx.check(requestor.returncode == 0 and end.get("event") == "end",
                  f"INCR round {round_}: requestor ended badly: {err.decode(errors='replace')[-300:]}")
        gone = [x for x in lines if x.get("event") in ("owner-window-destroyed", "xfixes")]
        ctx.check(bool(gone), f"INCR round {round_}: the requestor saw nothing of the owner's death: {lines}")
        if gone:
            notice_ms.append((gone[0]["t"] - killed_at) * 1000)
        ctx.check(not end.get("next_chunk"), f"INCR round {round_}: a chunk arrived after the owner died")
        ctx.check(end.get("owner_now") == 0, f"INCR round {round_}: CLIPBOARD still has an owner after the kill")
        if round_ == 0:
            ctx.figure("INCR kill: what the requestor sees — " + ", ".join(
                x.get("subtype", "DestroyNotify") for x in gone) + "; after asking for the next chunk nothing ever "
                "comes (no PropertyNotify), so a requestor that watches only its property would wait forever; "
                "CLIPBOARD has no owner until the daemon is back")
        began = time.monotonic()
        daemon.start()
        ready_ms = (time.monotonic() - began) * 1000
        pasted = daemon.pb("paste").stdout
        ctx.check(pasted == content, f"INCR round {round_}: restored {len(pasted)} bytes, wanted {len(content)}")
        xclip = subprocess.run(["xclip", "-o", "-selection", "clipboard", "-t", "UTF8_STRING"],
                               env=dict(os.environ, DISPLAY=xvfb.display), capture_output=True, timeout=20)
        ctx.check(xclip.stdout == content, f"INCR round {round_}: X clients read {len(xclip.stdout)} bytes after the restore")
    ctx.figure(f"INCR kills: {rounds} (content {4 * chunk // 1024} KiB + a bit, chunk {chunk // 1024} KiB); the "
               f"requestor noticed the owner's death {min(notice_ms):.1f}–{max(notice_ms):.1f} ms after the SIGKILL "
               f"(DestroyNotify on the owner window, XFixes SelectionClientClose); content restored and served to "
               f"xclip after every restart (last READY in {ready_ms:.0f} ms)")
