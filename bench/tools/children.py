# SPDX-License-Identifier: Apache-2.0
"""What the Python benches share: the processes they start, by PID, and private Xvfb servers."""
import os
import signal
import subprocess


class Children:
    """Processes started by a bench, stopped by their PID (TERM, then KILL after 5 s), newest first."""

    def __init__(self):
        self.children = []

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

    def stop_all(self):
        for process in reversed(list(self.children)):
            self.stop(process)

    def xvfb(self):
        """A private Xvfb (`-displayfd`: it picks a free display and says which); its display name."""
        read, write = os.pipe()
        self.start(["Xvfb", "-displayfd", str(write), "-nolisten", "tcp", "-noreset"], pass_fds=(write,),
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(write)
        number = b""
        while not number.endswith(b"\n"):
            chunk = os.read(read, 16)
            if not chunk:
                raise SystemExit("bench: Xvfb exited before reporting a display")
            number += chunk
        os.close(read)
        return ":" + number.decode().strip()
