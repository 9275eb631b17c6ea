# Stands in for oracle_test.py where /usr/bin/python3 or its NumPy is missing: fails, naming the
# problem, so that the oracle is never skipped without anyone noticing.
message(FATAL_ERROR "oracle.ReferencesMatchNumPy cannot run: ${PROBLEM}. Install Debian's "
  "python3-numpy (scripts/install-deps.sh) and re-run cmake.")
