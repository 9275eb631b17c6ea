"""CTest's entry to the Python client's tests (python/tests): skips (exit 77) where Debian's
python3-grpcio, python3-protobuf or python3-yaml is missing, else runs them all with the client
imported from the checkout's python/ folder."""

import importlib.util
import os
import sys
import unittest

SKIP = 77


def main():
    missing = [m for m in ("grpc", "google.protobuf", "yaml") if importlib.util.find_spec(
        m.split(".")[0]) is None]
    if missing:
        print(f"skipped: {', '.join(missing)} not importable (scripts/install-deps.sh installs "
              "python3-grpcio, python3-protobuf and python3-yaml)")
        return SKIP
    root = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
    tests = os.path.join(root, "python", "tests")
    sys.path[:0] = [os.path.join(root, "python"), tests]
    suite = unittest.defaultTestLoader.discover(tests, top_level_dir=tests)
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    return 0 if result.wasSuccessful() and result.testsRun > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
