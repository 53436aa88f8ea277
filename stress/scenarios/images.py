# SPDX-License-Identifier: Apache-2.0
"""Pictures under load: bombs, truncated files, lying headers, an IFD loop, palette indices out of range and
garbage copied one after another, each pasted as every derived image type by several requestors at once,
between valid pictures, while a text paste on PRIMARY is timed. pasteboardd must refuse every bad
conversion (never serve garbage), serve every good one, stay alive, answer the text paste quickly, and end
with the descriptors and memory it had after the first round.
"""
import io
import os
import struct
import subprocess
import threading
import time
import zlib

from harness import ScenarioFailed, scenario, wait_until

DERIVED = ["image/jpeg", "image/bmp", "image/tiff", "image/webp", "image/png"]
MAGIC = {"image/png": b"\x89PNG", "image/jpeg": b"\xff\xd8\xff", "image/bmp": b"BM", "image/tiff": b"II*\0",
         "image/webp": b"RIFF"}


def chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)


def pictures():
    """(name, type, bytes, good): valid pictures and hostile ones, made with PIL and by hand."""
    from PIL import Image
    image = Image.new("RGB", (1600, 1000))
    pixels = image.load()
    for y in range(0, 1000, 4):
        for x in range(0, 1600, 4):
            colour = (x * 255 // 1600, y * 255 // 1000, (x ^ y) & 255)
            for dy in range(4):
                for dx in range(4):
                    pixels[x + dx, y + dy] = colour

    def saved(fmt, **options):
        buffer = io.BytesIO()
        image.save(buffer, fmt, **options)
        return buffer.getvalue()

    png, jpeg, tiff, webp = saved("PNG"), saved("JPEG", quality=85), saved("TIFF", compression="tiff_lzw"), saved("WEBP")
    bomb = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 60000, 60000, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"\0" * (60000 * 3 + 1) * 4, 9)) + chunk(b"IEND", b""))
    in_cap_bomb = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 8000, 8000, 8, 2, 0, 0, 0))
                   + chunk(b"IDAT", zlib.compress(b"\0" * (8000 * 3 + 1) * 8000, 9)) + chunk(b"IEND", b""))
    liar = bytearray(png)
    liar[20:24] = struct.pack(">I", 40000)
    liar[29:33] = struct.pack(">I", zlib.crc32(bytes(liar[12:29])) & 0xFFFFFFFF)
    gif = (b"GIF89a" + bytes([2, 0, 1, 0, 0x80, 0, 0]) + bytes([0, 0, 0, 255, 255, 255])
           + bytes([0x2C, 0, 0, 0, 0, 2, 0, 1, 0, 0]) + bytes([2, 2, 0xDC, 0x0A, 0]) + b";")
    ifd = 8
    looped = b"II*\0" + struct.pack("<I", ifd) + struct.pack("<H", 1) + struct.pack("<HHII", 256, 4, 1, 10) + struct.pack("<I", ifd)
    return [
        ("png", "image/png", png, True), ("jpeg", "image/jpeg", jpeg, True), ("tiff", "image/tiff", tiff, True),
        ("webp", "image/webp", webp, True),
        ("png-bomb-60000x60000", "image/png", bomb, False),
        # Within the default cap (64 Mi pixels): served, or refused once it outlives conversionTimeoutMs under
        # this load (the conversion goes on and is kept); never garbage.
        ("png-8000x8000-of-zeros", "image/png", in_cap_bomb, None),
        ("png-lying-height", "image/png", bytes(liar), False),
        ("png-truncated", "image/png", png[:len(png) // 3], False),
        ("jpeg-truncated", "image/jpeg", jpeg[:len(jpeg) // 3], False),
        ("tiff-truncated", "image/tiff", tiff[:len(tiff) // 3], False),
        ("webp-truncated", "image/webp", webp[:len(webp) // 3], False),
        ("gif-palette-index", "image/gif", gif, False),
        ("tiff-ifd-loop", "image/tiff", looped, False),
        ("garbage-under-png", "image/png", b"\x89PNG\r\n\x1a\n" + os.urandom(5000), False),
        ("text-under-jpeg", "image/jpeg", b"not a picture at all" * 100, False),
    ]


@scenario("images", "bombs, truncated and lying pictures and garbage under load: every bad conversion refused, every "
                    "good one served, text pastes answered meanwhile, no descriptors or memory left behind")
def images(ctx):
    xvfb = ctx.xvfb()
    daemon = ctx.daemon(xvfb.display)
    daemon.start()
    files = []
    for name, kind, data, good in pictures():
        path = os.path.join(ctx.work, name)
        with open(path, "wb") as f:
            f.write(data)
        files.append((name, kind, path, good))
    env = dict(daemon.env)
    daemon.pb("copy", "-p", input=b"primary text")

    text_latencies = []
    stop = threading.Event()

    def paste_text():
        while not stop.is_set():
            began = time.monotonic()
            result = subprocess.run(["xclip", "-o", "-selection", "primary"], env=env, capture_output=True, timeout=30)
            text_latencies.append(time.monotonic() - began)
            if result.stdout != b"primary text":
                ctx.check(False, f"PRIMARY pasted {result.stdout[:40]!r}")
            time.sleep(0.05)

    texter = threading.Thread(target=paste_text, daemon=True)
    texter.start()
    bad_served, good_refused, rounds, pastes = [], [], 0, 0
    fds_after_first = rss_after_first = None
    rss_by_round = []
    began = time.monotonic()
    budget = max(20.0, min(60.0, ctx.duration))
    while time.monotonic() - began < budget or rounds < 2:
        rounds += 1
        for name, kind, path, good in files:
            daemon.pb("copy", "-t", f"{kind}={path}")
            results = {}

            def fetch(target):
                result = subprocess.run(["xclip", "-o", "-selection", "clipboard", "-t", target], env=env,
                                        capture_output=True, timeout=60)
                results[target] = result.stdout

            threads = [threading.Thread(target=fetch, args=(t,)) for t in DERIVED if t != kind]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(90)
            pastes += len(threads)
            for target, data in results.items():
                if good and not data.startswith(MAGIC[target]):
                    good_refused.append(f"{name} as {target}")
                if good is False and data:
                    bad_served.append(f"{name} as {target} ({len(data)} bytes)")
                if good is None and data and not data.startswith(MAGIC[target]):
                    bad_served.append(f"{name} as {target}: not a {target}")
            if not daemon.alive():
                raise ScenarioFailed(f"pasteboardd died on {name}: {daemon.log_tail()}")
        daemon.pb("clear")
        wait_until(lambda: daemon.status().get("conversions") == "0", 180, what="the conversions to finish")
        rss_by_round.append(daemon.rss_kib())
        if rounds == 1:
            fds_after_first, rss_after_first = daemon.fd_count(), daemon.rss_kib()
    stop.set()
    texter.join(30)
    fds, rss = daemon.fd_count(), rss_by_round[-1]
    text_latencies.sort()
    ctx.figure(f"{rounds} rounds of {len(files)} pictures ({sum(1 for f in files if f[3] is False)} hostile), {pastes} derived pastes "
               f"in {time.monotonic() - began:.0f} s")
    ctx.figure(f"text pastes on PRIMARY meanwhile: {len(text_latencies)}, median "
               f"{1000 * text_latencies[len(text_latencies) // 2]:.1f} ms, max {1000 * text_latencies[-1]:.0f} ms")
    ctx.figure(f"descriptors after round 1 {fds_after_first}, at the end {fds}; RSS after round 1 {rss_after_first} KiB, "
               f"at the end {rss} KiB, peak {daemon.hwm_kib()} KiB; after each round {rss_by_round}")
    ctx.check(not bad_served, f"garbage served: {bad_served[:5]}")
    ctx.check(not good_refused, f"good pictures refused: {good_refused[:5]}")
    ctx.check(daemon.alive(), "pasteboardd is alive")
    ctx.check(text_latencies[-1] < 2.0, f"a text paste waited {text_latencies[-1]:.2f} s behind conversions")
    ctx.check(fds == fds_after_first, f"descriptors went from {fds_after_first} to {fds}")
    ctx.check(rss - rss_after_first < 32 * 1024, f"RSS grew by {rss - rss_after_first} KiB after round 1")
    log = open(daemon.log_path, encoding="utf-8", errors="replace").read()
    ctx.check("not a picture at all" not in log and "PBKILL" not in log, "no content in the log")
