#!/usr/bin/env python3
"""tools/layering/check_includes.py against a tiny CMake project configured in a temporary
folder: an include across a boundary the targets do not link fails, naming the file, the header,
its owner and the target that would have to link it; the link added, it passes; a header of no
target may be included from its own top-level folder only.

usage: check_includes_test.py SOURCE_DIR CMAKE
"""
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

SOURCE = sys.argv.pop(1) if len(sys.argv) > 1 else os.getcwd()
CMAKE = sys.argv.pop(1) if len(sys.argv) > 1 else "cmake"
CHECKER = os.path.join(SOURCE, "tools", "layering", "check_includes.py")

# Two static libraries, lower/ and upper/, upper's source including lower's header; helpers/
# compiles nothing. LINK is upper's target_link_libraries, or nothing.
FILES = {
    "lower/lower.h": "#pragma once\nint Lower();\n",
    "lower/lower.cc": '#include "lower/lower.h"\nint Lower() { return 1; }\n',
    "upper/upper.cc": '#include "lower/lower.h"\n#include "upper/helpers/clamp.h"\n'
                      "int Upper() { return Lower(); }\n",
    "upper/helpers/clamp.h": "#pragma once\n",
    "helpers/shared.h": "#pragma once\n",
    "CMakeLists.txt": textwrap.dedent("""\
        cmake_minimum_required(VERSION 3.25)
        project(tiny LANGUAGES CXX)
        include_directories(${CMAKE_SOURCE_DIR})
        file(WRITE ${CMAKE_BINARY_DIR}/.cmake/api/v1/query/codemodel-v2 "")
        add_library(lower STATIC lower/lower.cc)
        add_library(upper STATIC upper/upper.cc)
        LINK
        """),
}


class CheckIncludes(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.source = os.path.join(self.tmp.name, "src")
        self.build = os.path.join(self.tmp.name, "build")

    def tearDown(self):
        self.tmp.cleanup()

    def write_project(self, link="", extra=None):
        files = dict(FILES, **(extra or {}))
        files["CMakeLists.txt"] = files["CMakeLists.txt"].replace("LINK", link)
        for path, text in files.items():
            os.makedirs(os.path.dirname(os.path.join(self.source, path)), exist_ok=True)
            with open(os.path.join(self.source, path), "w", encoding="utf-8") as f:
                f.write(text)
        # One configure only: the checker must configure again itself (its --cmake).
        subprocess.run([CMAKE, "-S", self.source, "-B", self.build], check=True,
                       capture_output=True)

    def check(self):
        return subprocess.run([sys.executable, CHECKER, self.build, "--cmake", CMAKE],
                              capture_output=True, text=True)

    def test_fails_naming_the_include_its_owner_and_the_target(self):
        self.write_project()
        result = self.check()
        self.assertEqual(result.returncode, 1, result.stderr)
        self.assertIn('upper/upper.cc:1: [upper] includes "lower/lower.h"', result.stderr)
        self.assertIn("owned by lower, which upper does not link", result.stderr)
        self.assertIn("target_link_libraries(upper ... lower)", result.stderr)

    def test_passes_once_the_target_links_the_owner(self):
        self.write_project(link="target_link_libraries(upper PRIVATE lower)")
        result = self.check()
        self.assertEqual(result.returncode, 0, result.stderr)

    def test_a_header_of_no_target_is_for_its_top_level_folder_only(self):
        extra = {"lower/lower.cc": '#include "lower/lower.h"\n#include "helpers/shared.h"\n'
                                   "int Lower() { return 1; }\n"}
        self.write_project(link="target_link_libraries(upper PRIVATE lower)", extra=extra)
        result = self.check()
        self.assertEqual(result.returncode, 1, result.stderr)
        self.assertIn('lower/lower.cc:2: [lower] includes "helpers/shared.h"', result.stderr)
        self.assertIn("a header of no target", result.stderr)
        self.assertNotIn("upper/helpers/clamp.h", result.stderr)  # upper/ includes upper/


if __name__ == "__main__":
    unittest.main()
