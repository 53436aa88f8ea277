# SPDX-License-Identifier: Apache-2.0
"""One pasteboard across two X displays under churn: copies made by real owners (xclip) alternately on
each display for the load's duration, each one read on the other display by xclip.

What must hold (issue "One pasteboard across displays"): nothing lost — every copy pastes on the other
display, byte for byte; no echo — each copy is exactly one change, so the count ends at start + copies and
the root property of both displays says the same; no fight — once the churn stops, nothing changes any
more; the daemon never dies and never logs content.
"""
import os
import subprocess
import time

from harness import ScenarioFailed, scenario, wait_until, x_read



def root_count(display):
    """_PASTEBOARD_CHANGE_COUNT_CLIPBOARD as published on `display`'s root window."""
    result = subprocess.run(["xprop", "-root", "_PASTEBOARD_CHANGE_COUNT_CLIPBOARD"],
                            env=dict(os.environ, DISPLAY=display), capture_output=True, timeout=20)
    text = result.stdout.decode(errors="replace")
    return int(text.rsplit("=", 1)[1]) if "=" in text else None



@scenario("multi_display", "two displays, one pasteboard, churn on both sides: every copy pastes on the other "
                           "display, one change each, the same count on both roots, quiet once the churn stops")
def multi_display(ctx):
    a, b = ctx.xvfb(), ctx.xvfb()
    daemon = ctx.daemon(a.display, args=["--display", a.display, "--display", b.display])
    daemon.start()
    start = daemon.count()
    sides = [a.display, b.display]
    latencies = []
    copies = 0
    owners = []
    deadline = time.monotonic() + min(ctx.duration, 60)
    while time.monotonic() < deadline:
        origin, other = sides[copies % 2], sides[(copies + 1) % 2]
        content = f"multi-display copy {copies} on {origin} ".encode() + os.urandom(48).hex().encode()
        began = time.monotonic()
        owner = ctx.start(["xclip", "-quiet", "-i", "-selection", "clipboard"], env=dict(os.environ, DISPLAY=origin),
                          stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        owner.stdin.write(content)
        owner.stdin.close()
        owners.append(owner)
        copies += 1
        wait_until(lambda: x_read(other) == content, 10, interval=0.005, what=f"copy {copies} on {other}")
        latencies.append(time.monotonic() - began)
        # The previous owner lost the selection and exits by itself; reap what has.
        for finished in [o for o in owners[:-1] if o.poll() is not None]:
            ctx.stop(finished)
            owners.remove(finished)
        if copies % 2 == 0 and daemon.count() != start + copies:
            raise ScenarioFailed(f"after {copies} copies the count is {daemon.count()}, not {start + copies}: an echo")
    settled = daemon.count()
    time.sleep(1.0)
    ctx.check(daemon.count() == settled, f"quiet once the churn stopped (count {settled} -> {daemon.count()})")
    ctx.check(settled == start + copies, f"one change per copy: {copies} copies moved the count {settled - start}")
    ctx.check(root_count(a.display) == root_count(b.display) == settled,
              f"the same count on both roots ({root_count(a.display)}, {root_count(b.display)}, pb count {settled})")
    ctx.check(daemon.alive(), "the daemon is still running")
    ctx.check(not any("multi-display copy" in line for line in daemon.log_lines()), "no content in the log")
    latencies.sort()
    ctx.figure(f"{copies} copies alternating between two displays in {min(ctx.duration, 60):.0f} s; "
               f"from xclip -i on one to the same bytes read by xclip -o on the other: median "
               f"{latencies[len(latencies) // 2] * 1000:.1f} ms, p95 {latencies[int(len(latencies) * 0.95)] * 1000:.1f} ms, "
               f"max {latencies[-1] * 1000:.1f} ms (both xclip processes' start included)")
    for owner in owners:
        ctx.stop(owner)
