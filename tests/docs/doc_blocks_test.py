#!/usr/bin/env python3
"""Runs the README's and docs/' command blocks marked to run on the cpu device (issue 28).

A block is marked by the line `<!-- runs on the cpu device in CI -->` just before its ```sh
fence. Each marked block runs as written, in one `bash -euo pipefail`, against a real kbenchd
(--open --no-cuda, a fresh data directory, a loopback port: KBENCH_SERVER), with the build's
kbctl first on PATH, in a scratch directory where `examples/` and `tools/` are the repository's;
bounded in time. A block that fails fails the test, naming its file and line and what it printed.
Fewer marked blocks than MIN_BLOCKS fail it too: a test that runs nothing proves nothing.

usage: doc_blocks_test.py BIN_DIR REPO_ROOT
"""
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import time

MARK = "<!-- runs on the cpu device in CI -->"
MIN_BLOCKS = 2
BLOCK_TIMEOUT_S = 180


def marked_blocks(path):
    """(line number, text) of each marked ```sh block in `path`."""
    lines = path.read_text(encoding="utf-8").splitlines()
    blocks = []
    i = 0
    while i < len(lines):
        if lines[i].strip() == MARK and i + 1 < len(lines) and lines[i + 1].strip() == "```sh":
            start = i + 2
            end = start
            while end < len(lines) and lines[end].strip() != "```":
                end += 1
            blocks.append((start + 1, "\n".join(lines[start:end]) + "\n"))
            i = end
        i += 1
    return blocks


def start_kbenchd(bin_dir, data_dir, log):
    proc = subprocess.Popen(
        [str(bin_dir / "kbenchd"), "--open", "--no-cuda", "--listen", "127.0.0.1:0",
         "--data-dir", str(data_dir)],
        stdout=subprocess.PIPE, stderr=log, text=True)
    deadline = time.monotonic() + 60
    address = None
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        match = re.match(r"kbenchd: listening on (\S+)", line)
        if match:
            address = match.group(1)
        if line.startswith("kbenchd: ready"):
            return proc, address
    proc.kill()
    raise RuntimeError("kbenchd did not become ready (see its log)")


def main():
    bin_dir = pathlib.Path(sys.argv[1]).resolve()
    root = pathlib.Path(sys.argv[2]).resolve()
    files = [root / "README.md"] + sorted((root / "docs").glob("*.md"))
    blocks = [(f, line, text) for f in files for line, text in marked_blocks(f)]
    if len(blocks) < MIN_BLOCKS:
        print(f"only {len(blocks)} marked blocks (at least {MIN_BLOCKS} expected): "
              f"is the mark '{MARK}' still in README.md and docs/?")
        return 1
    scratch = pathlib.Path(tempfile.mkdtemp(prefix="kbench-doc-blocks-"))
    failures = 0
    try:
        with open(scratch / "kbenchd.log", "w") as log:
            daemon, address = start_kbenchd(bin_dir, scratch / "data", log)
        try:
            work = scratch / "work"
            work.mkdir()
            for name in ("examples", "tools"):
                (work / name).symlink_to(root / name)
            env = dict(os.environ, KBENCH_SERVER=address,
                       PATH=f"{bin_dir}:{os.environ.get('PATH', '/usr/bin:/bin')}",
                       KBENCH_CONFIG=str(scratch / "kbctl-config.yaml"))
            for path, line, text in blocks:
                where = f"{path.relative_to(root)}:{line}"
                started = time.monotonic()
                try:
                    run = subprocess.run(["bash", "-euo", "pipefail", "-c", text], cwd=work,
                                         env=env, capture_output=True, text=True,
                                         timeout=BLOCK_TIMEOUT_S)
                    ok, output = run.returncode == 0, run.stdout + run.stderr
                    status = f"exit {run.returncode}"
                except subprocess.TimeoutExpired as e:
                    ok, output = False, f"{e.stdout or ''}{e.stderr or ''}"
                    status = f"timed out after {BLOCK_TIMEOUT_S} s"
                took = time.monotonic() - started
                print(f"{'ok  ' if ok else 'FAIL'} {where} ({took:.1f} s)")
                if not ok:
                    failures += 1
                    print(f"--- the block ({status}):\n{text}--- what it printed:\n{output[-4000:]}")
        finally:
            daemon.terminate()
            daemon.wait(timeout=30)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
