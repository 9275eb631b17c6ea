"""Tests of the kbench Python client (python -m unittest discover -s python/tests)."""
