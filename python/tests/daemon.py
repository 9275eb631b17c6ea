"""A real kbenchd for the Python client's tests: started from $KBENCH_BIN_DIR on a free loopback
port with a temporary data directory (cpu device only), stopped with SIGTERM. Every wait is
bounded, so a daemon that never comes up fails the test instead of hanging it."""

import os
import select
import shutil
import subprocess
import tempfile
import time
import unittest

START_SECONDS = 60


def bin_dir():
    """$KBENCH_BIN_DIR (CTest sets it), else skips the test: it needs a built kbenchd."""
    directory = os.environ.get("KBENCH_BIN_DIR", "")
    if not directory or not os.access(os.path.join(directory, "kbenchd"), os.X_OK):
        raise unittest.SkipTest("set KBENCH_BIN_DIR to the folder holding kbenchd")
    return directory


class Daemon:
    """kbenchd --listen 127.0.0.1:0 (or `listen`) --no-cuda; `address` is where it listens.
    Without `auth_file` it runs --open (every caller is 'local', an admin); `flags` are added
    (TLS)."""

    def __init__(self, auth_file=None, flags=(), listen="127.0.0.1:0"):
        self.dir = tempfile.mkdtemp(prefix="kbench-py-")
        command = [os.path.join(bin_dir(), "kbenchd"), "--listen", listen, "--data-dir",
                   os.path.join(self.dir, "data"), "--no-cuda"]
        command += ["--auth-file", auth_file] if auth_file else ["--open"]
        command += list(flags)
        self.log = open(os.path.join(self.dir, "stderr.log"), "w+")
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=self.log)
        self.address = self._wait_ready()

    def _wait_ready(self):
        deadline = time.monotonic() + START_SECONDS
        address, buffer = None, b""
        while time.monotonic() < deadline:
            ready, _, _ = select.select([self.process.stdout], [], [], 1.0)
            if not ready:
                continue
            chunk = os.read(self.process.stdout.fileno(), 4096)
            if not chunk:
                break  # the daemon exited
            buffer += chunk
            for line in buffer.decode(errors="replace").splitlines():
                if line.startswith("kbenchd: listening on "):
                    address = line.split()[-1]
                if line == "kbenchd: ready" and address:
                    return address
        self.stop()
        self.log.seek(0)
        raise RuntimeError(f"kbenchd did not become ready in {START_SECONDS} s:\n"
                           f"{buffer.decode(errors='replace')}\n{self.log.read()[-4000:]}")

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        self.process.stdout.close()
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)
