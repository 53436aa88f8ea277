#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Runs pb for the large-transfer tests (TransferProgressTests) the way a user at a terminal would, and says
what they would see, as one JSON object on standard output:

  {"status": EXIT STATUS (negative: killed by that signal), "terminal": TEXT pb wrote on its terminal
   (standard error on a pseudo-terminal), "stderr": TEXT it wrote to a file (with --stderr-file),
   "stdout_bytes": N, "stdout_sha256": HEX, "vmhwm_kib": pb's peak resident memory (VmHWM in
   /proc/PID/status, read every 50 ms while it runs: it only grows),
   "relayed": bytes the slow link carried, "transfers_while": pb status's transfers seen mid-way}

usage: transfer.py [--stderr-file] [--slow-reader] [--slow-link SOCKET] [--interrupt-after BYTES]
                   [--interrupt-signal NAME] [--interrupt-group] [--stdin FILE | --pipe FILE] -- PB ARGS...

  --stderr-file        standard error goes to a file, not a pseudo-terminal
  --slow-reader        standard output is read slowly (256 KiB every 25 ms), as by a slow consumer
  --slow-link SOCKET   pb talks to SOCKET (a daemon's remote socket) through a relay that carries 256 KiB every
                       25 ms towards the daemon ($PASTEBOARD_SOCKET names the relay), as a slow ssh link would
  --interrupt-after N  once N bytes went through (the relay's, plus pb's standard output), pb status is asked for
                       its transfers, then pb gets SIGINT (as Ctrl-C would send it)
  --append-after N F   once N bytes went through, a byte is appended to file F (a file changing while it is copied)
  --socket SOCKET      pb talks to SOCKET ($PASTEBOARD_SOCKET, for pb only)
  --interrupt-signal S the signal --interrupt-after sends (INT, KILL...; INT by default)
  --interrupt-group    it goes to the pipeline's process group (the producer of --pipe and pb), as a terminal's
                       Ctrl-C does, rather than to pb alone
  --stdin FILE         standard input is FILE (else /dev/null)
  --pipe FILE          standard input is a pipe from a producer, `cat FILE`, in pb's process group
"""
import hashlib
import json
import os
import pty
import select
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

CHUNK = 256 << 10
PAUSE = 0.025


def pump(source, sink, size, pause=0.0, counted=None):
    """Carries what `source` sends to `sink`, `size` bytes a read, `pause` s after each, until `source` ends;
    then ends `sink`'s side. `counted(n)` is told each piece's length."""
    try:
        while True:
            data = source.recv(size)
            if not data:
                break
            sink.sendall(data)
            if counted:
                counted(len(data))
            if pause:
                time.sleep(pause)
    except OSError:
        pass
    try:
        sink.shutdown(socket.SHUT_WR)
    except OSError:
        pass


def relay(listener, target, state):
    """Accepts pb's connections and carries each to `target`, slowly towards it, at once back."""
    def count(n):
        state["relayed"] += n

    while True:
        try:
            client, _ = listener.accept()
        except OSError:
            return
        upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        upstream.connect(target)
        threading.Thread(target=pump, args=(upstream, client, 65536), daemon=True).start()
        threading.Thread(target=pump, args=(client, upstream, CHUNK, PAUSE, count), daemon=True).start()


def main():
    args = sys.argv[1:]
    split = args.index("--")
    options, command = args[:split], args[split + 1:]
    stderr_file = "--stderr-file" in options
    slow_reader = "--slow-reader" in options
    link = options[options.index("--slow-link") + 1] if "--slow-link" in options else None
    interrupt_after = int(options[options.index("--interrupt-after") + 1]) if "--interrupt-after" in options else None
    append_after = int(options[options.index("--append-after") + 1]) if "--append-after" in options else None
    append_path = options[options.index("--append-after") + 2] if "--append-after" in options else None
    appended = False
    stdin_path = options[options.index("--stdin") + 1] if "--stdin" in options else "/dev/null"
    pipe_path = options[options.index("--pipe") + 1] if "--pipe" in options else None
    interrupt_signal = getattr(signal, "SIG" + options[options.index("--interrupt-signal") + 1]) \
        if "--interrupt-signal" in options else signal.SIGINT
    interrupt_group = "--interrupt-group" in options

    env = dict(os.environ)
    state = {"relayed": 0}
    scratch = tempfile.mkdtemp(prefix="pb-transfer-")
    if link:
        relay_path = os.path.join(scratch, "relay.sock")
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(relay_path)
        listener.listen(4)
        threading.Thread(target=relay, args=(listener, link, state), daemon=True).start()
        env["PASTEBOARD_SOCKET"] = relay_path
    if "--socket" in options:
        env["PASTEBOARD_SOCKET"] = options[options.index("--socket") + 1]
    home = {key: value for key, value in os.environ.items() if key != "PASTEBOARD_SOCKET"}

    if stderr_file:
        error_file = open(os.path.join(scratch, "stderr"), "w+b")
        error_target, terminal = error_file, None
    else:
        terminal, pty_end = pty.openpty()
        error_target = pty_end
    out_read, out_write = os.pipe()
    producer = None
    if pipe_path:
        # A pipeline of its own, as a shell starts one: the producer leads a process group that pb joins.
        producer = subprocess.Popen(["cat", pipe_path], stdout=subprocess.PIPE, process_group=0)
        stdin = producer.stdout
        child = subprocess.Popen(command, stdin=stdin, stdout=out_write, stderr=error_target, env=env, process_group=producer.pid)
        producer.stdout.close()
    else:
        stdin = open(stdin_path, "rb")
        child = subprocess.Popen(command, stdin=stdin, stdout=out_write, stderr=error_target, env=env)
    os.close(out_write)
    if not stderr_file:
        os.close(pty_end)

    digest = hashlib.sha256()
    out_bytes = 0
    seen = b""
    transfers_while = None
    interrupted = False
    open_fds = [out_read] + ([terminal] if terminal is not None else [])
    exited = None  # (wait status, rusage) once pb ended

    def reap(block=False):
        nonlocal exited
        if exited is None:
            pid, wait_status, usage = os.wait4(child.pid, 0 if block else os.WNOHANG)
            if pid:
                exited = (wait_status, usage)
        return exited is not None

    deadline = time.monotonic() + 120
    vmhwm = 0
    started = time.monotonic()
    while open_fds and time.monotonic() < deadline:
        try:
            with open(f"/proc/{child.pid}/status") as status_file:
                for line in status_file:
                    if line.startswith("VmHWM:"):
                        vmhwm = max(vmhwm, int(line.split()[1]))
        except OSError:
            pass
        through = state["relayed"] + out_bytes
        if append_after is not None and not appended and through >= append_after:
            with open(append_path, "ab") as grown:
                grown.write(b"!")
            appended = True
        if interrupt_after is not None and not interrupted and through >= interrupt_after:
            status = subprocess.run([command[0], "status"], env=home, capture_output=True, text=True)
            for line in status.stdout.splitlines():
                key, _, value = line.partition(":")
                if key.strip() == "transfers":
                    transfers_while = int(value.strip())
            if interrupt_group and producer:
                os.killpg(producer.pid, interrupt_signal)
            else:
                child.send_signal(interrupt_signal)
            interrupted = True
        ready, _, _ = select.select(open_fds, [], [], 0.05)
        for fd in ready:
            try:
                data = os.read(fd, CHUNK if fd == out_read else 65536)
            except OSError:  # EIO: the terminal's last writer is gone
                data = b""
            if not data:
                open_fds.remove(fd)
                continue
            if fd == out_read:
                digest.update(data)
                out_bytes += len(data)
                if slow_reader:
                    time.sleep(PAUSE * len(data) / CHUNK)
            else:
                seen += data
        if out_read not in open_fds and reap():
            # Drain what the terminal still holds, then stop.
            while terminal in open_fds:
                ready, _, _ = select.select([terminal], [], [], 0.2)
                if not ready:
                    break
                try:
                    data = os.read(terminal, 65536)
                except OSError:
                    data = b""
                if not data:
                    break
                seen += data
            break
    if not reap():
        child.kill()
        reap(block=True)
    if producer:
        producer.kill()
        producer.wait()
    wait_status, usage = exited
    returncode = -os.WTERMSIG(wait_status) if os.WIFSIGNALED(wait_status) else os.WEXITSTATUS(wait_status)
    stderr_text = ""
    if stderr_file:
        error_file.seek(0)
        stderr_text = error_file.read().decode("utf-8", "replace")
    print(json.dumps({"status": returncode, "terminal": seen.decode("utf-8", "replace"), "stderr": stderr_text,
                      "stdout_bytes": out_bytes, "stdout_sha256": digest.hexdigest(), "vmhwm_kib": vmhwm, "seconds": time.monotonic() - started,
                      "relayed": state["relayed"], "transfers_while": transfers_while}))


main()
