#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""The pasteboard over SSH, measured side by side with the transport it rides on, in one run.

    bench/remote.py BIN_DIR [--small N] [--mib M] [--reps R] [--copy-only]

Home: a private Xvfb and pasteboardd. The host: the real sshd, started per connection by ssh's ProxyCommand in
a network namespace of its own (`ip netns exec NS sshd -i`: no TCP port), throwaway host and user keys, its own
HOME and runtime directory and no display; `pb ssh` forwards pasteboardd's remote socket there (docs/remote.md).
Rows:
- small remote paste: inside one session, a timing script on the host runs `pb paste` (a one-line copy) and
  `pb count` (one round trip through the forward, nothing more) N times each; the median of each, in ms, pb's
  own start included in both — the difference is what a paste costs beyond the forward's round trip;
- M MiB: `pb paste` of M MiB of random bytes on the host (home → host through the forward) against `ssh HOST
  cat FILE` of the same bytes (host → home: the limit the transport sets), each a whole session, best of R;
  and `pb copy` of the same file on the host (host → home through the forward), and `cat FILE | pb copy` (a
  pipe, sent in pieces as it is read); `--copy-only` measures only the copies and their anchor;
- OSC 52, the copy direction without a forward: at most 75,000 bytes and no paste at all, so it has no figure
  to set beside these; the row says so.
Needs root (sshd, a network namespace). Prints markdown.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "tools"))
from children import Children  # noqa: E402


class Bench(Children):
    def __init__(self, bin_dir):
        super().__init__()
        self.bin = bin_dir
        self.work = tempfile.mkdtemp(prefix="pb-remote.")
        self.namespace = None
        self.started = time.time() - 1

    def close(self):
        self.stop_all()
        if self.namespace:
            subprocess.run(["/usr/sbin/ip", "netns", "delete", self.namespace], capture_output=True)
        for name in os.listdir("/tmp"):
            path = "/tmp/" + name
            if name.startswith("pasteboard-ssh-") and os.path.getmtime(path) >= self.started:
                try:
                    os.unlink(path)   # this run's sessions' sockets (sshd leaves them)
                except OSError:
                    pass
        shutil.rmtree(self.work, ignore_errors=True)

    def home(self):
        display = self.xvfb()
        self.env = dict(os.environ, DISPLAY=display, HOME=self.work,
                        XDG_RUNTIME_DIR=os.path.join(self.work, "run"), XDG_STATE_HOME=os.path.join(self.work, "state"),
                        XDG_CONFIG_HOME=os.path.join(self.work, "config"))
        for key in ("NOTIFY_SOCKET", "JOURNAL_STREAM", "PASTEBOARD_SOCKET", "LC_PASTEBOARD_SESSION"):
            self.env.pop(key, None)
        for sub in ("run", "state", "config"):
            os.makedirs(os.path.join(self.work, sub), mode=0o700, exist_ok=True)
        self.start([os.path.join(self.bin, "pasteboardd")], env=self.env, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 20
        while subprocess.run([self.pb, "status"], env=self.env, capture_output=True).returncode != 0:
            if time.monotonic() > deadline:
                raise SystemExit("bench: pasteboardd did not start")
            time.sleep(0.02)

    @property
    def pb(self):
        return os.path.join(self.bin, "pb")

    def host(self):
        """The second host, as RemoteTests' SSHHost makes it."""
        directory = os.path.join(self.work, "ssh")
        self.host_home = os.path.join(directory, "remote-home")
        for sub in (directory, self.host_home, self.host_home + "/runtime", directory + "/bin"):
            os.makedirs(sub, mode=0o700, exist_ok=True)
        for name in ("pb", "pbcopy", "pbpaste"):
            os.symlink(self.pb, os.path.join(directory, "bin", name))
        os.makedirs("/run/sshd", mode=0o755, exist_ok=True)
        for key in ("hostkey", "userkey"):
            subprocess.run(["/usr/bin/ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "pb-bench", "-f",
                            os.path.join(directory, key)], check=True)
        shutil.copy(os.path.join(directory, "userkey.pub"), os.path.join(directory, "authorized_keys"))
        with open(os.path.join(directory, "hostkey.pub")) as f:
            host_key = " ".join(f.read().split()[:2])
        with open(os.path.join(directory, "known_hosts"), "w") as f:
            f.write(f"remote {host_key}\n")
        self.namespace = "pbbench-" + uuid.uuid4().hex[:8]
        with open(os.path.join(directory, "sshd_config"), "w") as f:
            f.write(f"""HostKey {directory}/hostkey
AuthorizedKeysFile {directory}/authorized_keys
PermitRootLogin yes
StrictModes no
UsePAM no
AllowTcpForwarding yes
AllowStreamLocalForwarding yes
AcceptEnv LANG LC_*
SetEnv HOME={self.host_home} XDG_RUNTIME_DIR={self.host_home}/runtime PATH={directory}/bin:/usr/local/bin:/usr/bin:/bin
PidFile none
PrintMotd no
PrintLastLog no
LogLevel ERROR
""")
        self.ssh_config = os.path.join(directory, "ssh_config")
        with open(self.ssh_config, "w") as f:
            f.write(f"""Host remote
  ProxyCommand /usr/sbin/ip netns exec {self.namespace} /usr/sbin/sshd -i -f {directory}/sshd_config -E {directory}/sshd.log
  User root
  IdentityFile {directory}/userkey
  IdentitiesOnly yes
  UserKnownHostsFile {directory}/known_hosts
  StrictHostKeyChecking yes
  BatchMode yes
  LogLevel ERROR
""")
        subprocess.run(["/usr/sbin/ip", "netns", "add", self.namespace], check=True)
        subprocess.run(["/usr/sbin/ip", "netns", "exec", self.namespace, "/usr/sbin/ip", "link", "set", "lo", "up"], check=True)

    def session(self, script, through_pb=True):
        """Runs `script` on the host in one session (`pb ssh`, or plain ssh); (seconds, stdout)."""
        argv = ([self.pb, "ssh"] if through_pb else ["/usr/bin/ssh"]) + ["-F", self.ssh_config, "remote", script]
        began = time.monotonic()
        result = subprocess.run(argv, env=self.env, capture_output=True, timeout=600)
        elapsed = time.monotonic() - began
        if result.returncode != 0:
            raise SystemExit(f"bench: {' '.join(argv[:2])} … failed ({result.returncode}): {result.stderr.decode(errors='replace')}")
        return elapsed, result.stdout


TIMING = """
import statistics, subprocess, sys, time
def once(argv):
    began = time.monotonic()
    subprocess.run(argv, stdout=subprocess.DEVNULL, check=True)
    return (time.monotonic() - began) * 1000
n = int(sys.argv[1])
once(["pb", "count"]); once(["pb", "paste"])   # warm: the page cache, the forward's first connection
counts, pastes = [], []
for _ in range(n):   # interleaved, so that neither gets the quieter moments
    counts.append(once(["pb", "count"]))
    pastes.append(once(["pb", "paste"]))
print(statistics.median(counts), statistics.median(pastes))
"""


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("bin")
    parser.add_argument("--small", type=int, default=50)
    parser.add_argument("--mib", type=int, default=int(os.environ.get("PB_BENCH_BULK_MIB", 64)))
    parser.add_argument("--reps", type=int, default=int(os.environ.get("PB_BENCH_REPS", 3)))
    parser.add_argument("--copy-only", action="store_true")
    options = parser.parse_args()
    if os.getuid() != 0:
        print("# The pasteboard over SSH\n\nn/a: this bench runs sshd and makes a network namespace, which needs root.")
        return 0
    bench = Bench(options.bin)
    try:
        bench.home()
        bench.host()
        subprocess.run([bench.pb, "copy", "pasteboard benchmark: a short line of text"], env=bench.env, check=True)
        script = os.path.join(bench.host_home, "timing.py")
        with open(script, "w") as f:
            f.write(TIMING)
        count_ms = paste_ms = None
        if not options.copy_only:
            _, out = bench.session(f"/usr/bin/python3 {script} {options.small}")
            count_ms, paste_ms = (float(v) for v in out.split())
        payload = os.path.join(bench.host_home, "bulk.bin")
        with open(payload, "wb") as f:
            f.write(os.urandom(options.mib << 20))
        subprocess.run([bench.pb, "copy", "-t", f"application/octet-stream={payload}"], env=bench.env, check=True)
        paste_s = None
        if not options.copy_only:
            paste_s = min(bench.session("pb paste -t application/octet-stream | cksum")[0] for _ in range(options.reps))
        cat_s = min(bench.session(f"cat {payload}", through_pb=False)[0] for _ in range(options.reps))
        copy_s = min(bench.session(f"pb copy -t application/octet-stream={payload}")[0] for _ in range(options.reps))
        with open(payload, "rb") as f:
            expected = f.read()

        def check(what):
            pasted = subprocess.run([bench.pb, "paste", "-t", "application/octet-stream"], env=bench.env, capture_output=True).stdout
            if pasted != expected:
                raise SystemExit(f"bench: the {what} made on the host is not the file's bytes at home")
        check("copy")
        piped_s = min(bench.session(f"cat {payload} | pb copy -t application/octet-stream")[0] for _ in range(options.reps))
        check("piped copy")
        empty = min(bench.session("true")[0] for _ in range(options.reps))
    finally:
        bench.close()
    mib = options.mib

    def rate(seconds):
        return mib / max(seconds - empty, 1e-6)
    print("# The pasteboard over SSH\n")
    print(f"pasteboardd at home, the real sshd for the host (per connection, in a network namespace), `pb ssh` forwarding "
          f"the remote socket. Small: medians of {options.small} runs of each, pb's start included. {mib} MiB: whole "
          f"sessions, best of {options.reps}, less an empty session's {empty * 1000:,.0f} ms (key exchange, the shell).\n")
    print("| row | through the forward | anchor | anchor figure | ratio | aim |")
    print("|---|---|---|---|---|---|")
    if not options.copy_only:
        print(f"| small remote `pb paste` | {paste_ms:,.2f} ms | `pb count` through the same forward (one round trip) | "
              f"{count_ms:,.2f} ms | {paste_ms - count_ms:+,.2f} ms | within 1 ms of the round trip |")
        print(f"| {mib} MiB `pb paste` on the host (home → host) | {rate(paste_s):,.0f} MiB/s | `ssh HOST cat FILE` (host → home) | "
              f"{rate(cat_s):,.0f} MiB/s | {rate(paste_s) / rate(cat_s):.2f}× | ≥ 0.9× |")
    print(f"| {mib} MiB `pb copy` on the host (host → home) | {rate(copy_s):,.0f} MiB/s | `ssh HOST cat FILE` | "
          f"{rate(cat_s):,.0f} MiB/s | {rate(copy_s) / rate(cat_s):.2f}× | |")
    print(f"| {mib} MiB `cat FILE \\| pb copy` on the host (host → home, in pieces) | {rate(piped_s):,.0f} MiB/s | `ssh HOST cat FILE` | "
          f"{rate(cat_s):,.0f} MiB/s | {rate(piped_s) / rate(cat_s):.2f}× | |")
    print("| copy without a forward (OSC 52) | — | `pb copy --osc52` | at most 75,000 bytes, copy only | — | no figure to compare: "
          "OSC 52 carries no paste and nothing past the terminal's limit |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
