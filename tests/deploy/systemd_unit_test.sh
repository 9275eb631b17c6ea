#!/bin/sh
# Verifies a kbenchd unit (deploy/systemd/kbenchd.service, or the Debian package's copy) with
# `systemd-analyze verify`: directives exist and parse. Its ExecStart names a kbenchd the build
# host may lack (/opt/kbench/bin, /usr/bin), so a copy pointing at /bin/true is verified (what is
# checked is the unit, not the binary). Drop-ins given after the unit (deploy/systemd/fleet.conf)
# are verified with it, from kbenchd.service.d/ on a private unit path.
# usage: systemd_unit_test.sh SYSTEMD_ANALYZE UNIT [DROP_IN...]   exit 77: no systemd-analyze
set -eu
analyze="$1"
unit="$2"
shift 2
if [ ! -x "$analyze" ]; then
  echo "SKIP: systemd-analyze not found ('$analyze'; Debian package systemd)"
  exit 77
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
sed 's|^ExecStart=[^ ]*/kbenchd |ExecStart=/bin/true |' "$unit" > "$work/kbenchd.service"
mkdir "$work/kbenchd.service.d"
for dropin in "$@"; do cp "$dropin" "$work/kbenchd.service.d/"; done
# The trailing ':' keeps systemd's own unit directories after ours (dependencies such as
# network-online.target resolve).
out="$(SYSTEMD_UNIT_PATH="$work:" timeout 60 "$analyze" verify "$work/kbenchd.service" 2>&1)" || { echo "$out"; exit 1; }
# verify exits 0 on some warnings; unknown directives and bad values must still fail the test.
if printf '%s\n' "$out" | grep -E "Unknown (key|section)|Failed to parse|Invalid|ignoring" ; then
  exit 1
fi
echo "$out"
echo "kbenchd.service verified${1:+ with drop-ins: $*}"
