#!/usr/bin/env bash
# kbctl shares nothing with the server but the .proto files and common/: no file under client/
# includes a header of server/ (what both need lives in common/ or the proto).
# usage: client_includes_no_server_test.sh SOURCE_DIR
set -euo pipefail
found="$(grep -rn '#include "server/' "$1/client" || true)"
if [[ -n "$found" ]]; then
  echo "FAIL: client/ includes server/ headers:" >&2
  echo "$found" >&2
  exit 1
fi
echo "client/ includes no server/ header"
