# SPDX-License-Identifier: Apache-2.0
"""Two daemons, one pasteboard, under churn: two pasteboardd, each with its own Xvfb and directories (two
machines but for the network), peered through the second one's remote.sock as `pb peer add` does through an
ssh -L forward. Copies made by real owners (xclip) alternately on each side for the load's duration, each one
read on the other side by xclip, with a sensitive pb copy every tenth copy.

What must hold (issue 23, part 3): nothing lost — every copy pastes on the other side, byte for byte; no echo —
each copy is exactly one change on each daemon, so both counts end at start + changes; no fight — once the churn
stops, nothing changes any more; sensitive content never crosses (the other side never pastes it); both daemons
live and never log content.
"""
import os
import subprocess
import time

from harness import ScenarioFailed, scenario, wait_until, x_read




@scenario("peers", "two daemons peered over remote.sock, churn on both sides: every copy pastes on the other "
                   "side, one change each on both, sensitive copies never cross, quiet once the churn stops")
def peers(ctx):
    a_x, b_x = ctx.xvfb(), ctx.xvfb()
    a, b = ctx.daemon(a_x.display), ctx.daemon(b_x.display)
    a.start()
    b.start()
    a.pb("peer", "add", os.path.join(b.home, "runtime", "pasteboard", "remote.sock"))
    wait_until(lambda: "\tconnected\t" in a.pb("peer", "list").stdout.decode(), 10, what="A peered with B")
    starts = (a.count(), b.count())
    sides = [(a, a_x.display, b, b_x.display), (b, b_x.display, a, a_x.display)]
    latencies = []
    changes = 0
    secrets = 0
    owners = []
    deadline = time.monotonic() + min(ctx.duration, 60)
    while time.monotonic() < deadline:
        here, origin, there, other = sides[changes % 2]
        changes += 1
        if changes % 10 == 0:
            secret = f"peer secret {changes} ".encode() + os.urandom(16).hex().encode()
            here.pb("copy", "--sensitive", input=secret)
            secrets += 1
            wait_until(lambda: there.count() == starts[0 if there is a else 1] + changes, 10, interval=0.005,
                       what=f"the sensitive copy {changes} counted on the other side")
            seen = x_read(other)
            if seen is not None and b"peer secret" in seen:
                raise ScenarioFailed(f"sensitive copy {changes} was pasted on the other side")
            continue
        content = f"peer copy {changes} on {origin} ".encode() + os.urandom(48).hex().encode()
        began = time.monotonic()
        owner = ctx.start(["xclip", "-quiet", "-i", "-selection", "clipboard"], env=dict(os.environ, DISPLAY=origin),
                          stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        owner.stdin.write(content)
        owner.stdin.close()
        owners.append(owner)
        wait_until(lambda: x_read(other) == content, 10, interval=0.005, what=f"copy {changes} on {other}")
        latencies.append(time.monotonic() - began)
        for finished in [o for o in owners[:-1] if o.poll() is not None]:
            ctx.stop(finished)
            owners.remove(finished)
        if changes % 2 == 0 and (a.count(), b.count()) != (starts[0] + changes, starts[1] + changes):
            raise ScenarioFailed(f"after {changes} changes the counts are {a.count()} and {b.count()}, "
                                 f"not {starts[0] + changes} and {starts[1] + changes}: an echo or a loss")
    settled = (a.count(), b.count())
    time.sleep(1.0)
    ctx.check((a.count(), b.count()) == settled, f"quiet once the churn stopped ({settled} -> {(a.count(), b.count())})")
    ctx.check(settled == (starts[0] + changes, starts[1] + changes),
              f"one change per copy on each side: {changes} changes moved the counts {settled[0] - starts[0]} and "
              f"{settled[1] - starts[1]}")
    ctx.check(a.alive() and b.alive(), "both daemons are still running")
    for daemon in (a, b):
        ctx.check(not any("peer copy" in line or "peer secret" in line for line in daemon.log_lines()), "no content in the logs")
    latencies.sort()
    ctx.figure(f"{changes} changes alternating between two peered daemons in {min(ctx.duration, 60):.0f} s "
               f"({secrets} of them sensitive, never crossing); from xclip -i on one side to the same bytes read by "
               f"xclip -o on the other: median {latencies[len(latencies) // 2] * 1000:.1f} ms, "
               f"p95 {latencies[int(len(latencies) * 0.95)] * 1000:.1f} ms, max {latencies[-1] * 1000:.1f} ms "
               f"(both xclip processes' start included)")
    for owner in owners:
        ctx.stop(owner)
