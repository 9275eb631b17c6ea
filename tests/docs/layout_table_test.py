#!/usr/bin/env python3
"""The README's layout table matches the tree (issue 27, item 3): every top-level folder and
every part of server/ is in the table, every folder the table names exists, and each part of
common/ and server/ has its tests at the same path under tests/ (tests/common/stats for
common/stats, tests/server/api for server/api), or is listed with where its tests are.

usage: layout_table_test.py SOURCE_DIR
"""
import os
import re
import subprocess
import sys
import unittest

SOURCE = sys.argv.pop(1) if len(sys.argv) > 1 else os.getcwd()
# Parts whose tests sit with another part's, and why.
TESTED_ELSEWHERE = {
    "server/kbenchd",  # the daemon as a whole: tests/integration starts the real kbenchd
    "server/common",  # shared helpers, tested where the parts using them are
    "server/executor/conditions",  # tests/server/executor (clean_stamp_test, energy_test, ...)
    "server/executor/sandbox",  # tests/server/executor (sandbox_test)
    "server/executor/usermodule",  # tests/integration and tests/gpu: users' kernels end to end
    "server/executor/cuda",  # tests/gpu: needs a device
}


def tracked_folders():
    """The folders git tracks files in, relative to the checkout."""
    files = subprocess.run(["git", "-C", SOURCE, "ls-files"], check=True, capture_output=True,
                           text=True).stdout.split()
    folders = set()
    for f in files:
        parts = f.split("/")[:-1]
        for i in range(1, len(parts) + 1):
            folders.add("/".join(parts[:i]))
    return {f for f in folders if not f.startswith(".")}


def table_folders():
    """The folders the README's Layout table names (its first column, `a/`, `a/b`, `a/b/c.cc`)."""
    with open(os.path.join(SOURCE, "README.md"), encoding="utf-8") as f:
        text = f.read()
    section = text[text.index("## Layout"):]
    section = section[:section.index("\n## ", 4)] if "\n## " in section[4:] else section
    named = set()
    for line in section.splitlines():
        if not line.startswith("| `"):
            continue
        first = line.split("|")[1]
        for path in re.findall(r"`([^`]+)`", first):
            path = path.rstrip("/")
            named.add(path if "." not in os.path.basename(path) else os.path.dirname(path))
    return named


class LayoutTable(unittest.TestCase):
    def setUp(self):
        self.tree = tracked_folders()
        self.table = table_folders()

    def test_every_top_level_folder_is_in_the_table(self):
        top = {f for f in self.tree if "/" not in f}
        missing = [f for f in sorted(top)
                   if not any(t == f or t.startswith(f + "/") for t in self.table)]
        self.assertEqual(missing, [], "folders missing from README's Layout")

    def test_every_part_of_server_is_in_the_table(self):
        parts = {f for f in self.tree if re.fullmatch(r"server/[^/]+", f)}
        self.assertEqual(sorted(parts - self.table), [], "server/ parts missing from the table")

    def test_every_folder_the_table_names_exists(self):
        self.assertEqual(sorted(self.table - self.tree), [], "the table names folders not here")

    def test_the_parts_tests_mirror_them(self):
        parts = {f for f in self.tree if re.fullmatch(r"(common|server|server/executor)/[^/]+", f)}
        missing = [p for p in sorted(parts - TESTED_ELSEWHERE) if "tests/" + p not in self.tree]
        self.assertEqual(missing, [], "parts without their tests at tests/<part>")


if __name__ == "__main__":
    unittest.main()
